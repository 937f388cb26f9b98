#!/bin/sh
# Build the small virtual Pi the real-pin tests boot (docs/pins-vm.md): Debian's own amd64 kernel with
# a simulated GPIO chip that has the Pi's 28 lines, SPI0 bit-banged on that chip's lines 11/10/8 with
# /dev/spidev0.0, and a Debian root into which systemd/install.sh installed the program from the same
# hashed wheels the card image uses. The root is one initramfs; the machine's one disk is the card's boot
# partition, which the tests make (tests/vm/card.py).
#
#   tests/vm/build.sh [--cache DIR]     prints the folder holding kernel and initramfs
#
# Cached, so only the program's layer is made again on a second run:
#   modules  by the kernel's ABI and package version and the module sources here;
#   base     (Debian's packages) by the suite and the package list;
#   wheels   by systemd/image/requirements.txt.
# Needs root, and: qemu-system-x86 linux-headers-amd64 linux-source-6.1 mmdebstrap kmod cpio.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
SOURCE=$(cd "$HERE/../.." && pwd)
SUITE=bookworm
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/companion/vm
# What the root needs beyond Debian's required packages: systemd as PID 1 and udev (which gives the GPIO
# chip and spidev their groups, as on a Pi), the network, what install.sh uses, and iw (first boot sets the
# Wi-Fi country with it, as on the card).
PACKAGES="systemd systemd-sysv udev kmod iproute2 python3 python3-venv python3-pip iw"
# Modules the root loads: the network card, configfs (gpio-sim is made through it), the SPI bit-banger, and
# the card's boot partition (a virtio disk holding FAT, read with the code pages vfat asks for by default).
MODULES="virtio_pci virtio_net configfs spi-bitbang virtio_blk vfat nls_cp437 nls_ascii"

fail() { echo "build.sh: $*" >&2; exit 2; }
say() { echo "build.sh: $*" >&2; }
digest() { cat "$@" | sha256sum | cut -c1-12; }

while [ $# -gt 0 ]; do
    case "$1" in
        --cache) [ $# -ge 2 ] || fail "--cache needs a directory"; CACHE=$2; shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) fail "unknown option $1 (try --help)" ;;
    esac
    shift
done
[ "$(id -u)" -eq 0 ] || fail "run it as root (the root's files belong to their users)"
for tool in mmdebstrap depmod modprobe cpio make patch apt-get dpkg-deb; do
    command -v "$tool" > /dev/null ||
        fail "not installed: $tool (apt-get install qemu-system-x86 linux-headers-amd64 linux-source-6.1 mmdebstrap kmod cpio)"
done

# The kernel: the one Debian's linux-headers-amd64 names, and its image package at the same version.
ABI=$(dpkg-query -W -f '${Depends}' linux-headers-amd64 2> /dev/null | sed -n 's/.*linux-headers-\([^ ,]*\).*/\1/p')
[ -n "$ABI" ] || fail "linux-headers-amd64 is not installed"
VERSION=$(dpkg-query -W -f '${Version}' "linux-headers-$ABI")
HEADERS=/usr/src/linux-headers-$ABI
KERNEL_SOURCE=/usr/src/linux-source-${ABI%%.0-*}.tar.xz  # 6.1.0-57-amd64 -> linux-source-6.1
[ -f "$KERNEL_SOURCE" ] || fail "$KERNEL_SOURCE is missing (apt-get install linux-source-${ABI%%.0-*})"
mkdir -p "$CACHE"
# One build at a time in a cache (.ci/run starts one beside the suite, and the tests may start another).
exec 9> "$CACHE/.lock"
flock 9

# --- The kernel and its modules: Debian's, with three built here ---------------------------------------
kernel_dir=$CACHE/kernel-$ABI-$VERSION-$(digest "$HERE"/kernel/*)
if [ ! -f "$kernel_dir/done" ]; then
    started=$(date +%s)
    rm -rf "$kernel_dir" && mkdir -p "$kernel_dir/build" "$kernel_dir/image"
    (cd "$kernel_dir" && apt-get download -q "linux-image-$ABI=$VERSION" > /dev/null 2>&1) ||
        fail "cannot download linux-image-$ABI $VERSION"
    dpkg-deb -x "$kernel_dir"/linux-image-*.deb "$kernel_dir/image"
    tree=${KERNEL_SOURCE##*/}; tree=${tree%.tar.xz}
    tar -xJf "$KERNEL_SOURCE" -C "$kernel_dir" "$tree/drivers/gpio/gpio-sim.c" "$tree/drivers/gpio/gpiolib.h" \
        "$tree/kernel/irq/irq_sim.c" "$tree/drivers/spi/spi-gpio.c" "$tree/drivers/spi/spi-bitbang-txrx.h"
    b=$kernel_dir/build
    # gpio-sim's pull stands for a switch to ground: closed, it holds the line low whatever bias the program
    # asks for; open, the line follows that bias (a program that asks for no pull-up reads a floating line low).
    patch -s -d "$kernel_dir/$tree" -p1 < "$HERE/kernel/gpio-sim-switches.patch" ||
        fail "gpio-sim.c changed: kernel/gpio-sim-switches.patch no longer applies"
    cp "$kernel_dir/$tree/drivers/gpio/gpio-sim.c" "$b/gpio-sim-core.c"
    cp "$kernel_dir/$tree/drivers/gpio/gpiolib.h" "$kernel_dir/$tree/kernel/irq/irq_sim.c" \
        "$kernel_dir/$tree/drivers/spi/spi-gpio.c" "$kernel_dir/$tree/drivers/spi/spi-bitbang-txrx.h" "$b/"
    # Debian builds neither gpio-sim nor the interrupt simulator it needs, so the simulator is linked into
    # the module; in a module it may not reach irq_to_desc (not exported), so it raises the interrupt by number.
    sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$b/irq_sim.c"
    grep -q 'generic_handle_irq(irqnum);' "$b/irq_sim.c" || fail "irq_sim.c changed: the one-line change no longer applies"
    cp "$HERE/kernel/Kbuild" "$HERE/kernel/pi_header.c" "$b/"
    make -s -C "$HEADERS" M="$b" modules > "$b/make.log" 2>&1 || { cat "$b/make.log" >&2; fail "the modules did not build"; }
    rm -rf "${kernel_dir:?}/$tree" "$kernel_dir"/linux-image-*.deb
    touch "$kernel_dir/done"
    say "kernel modules built in $(( $(date +%s) - started )) s ($ABI)"
fi

# --- The base root: Debian's packages and the modules it loads --------------------------------------------
mirror() {  # the first source of $SUITE in apt's configuration (never a host written here)
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk -v want="$SUITE" 'BEGIN { RS = ""; FS = "\n" }
            { uri = ""; ok = 0
              for (i = 1; i <= NF; i++) {
                  if ($i ~ /^URIs:/) { split($i, w, /[ \t]+/); uri = w[2] }
                  if ($i ~ /^Suites:/ && $i ~ ("[ \t]" want "([ \t]|$)")) ok = 1 }
              if (ok && uri != "") { print uri; exit } }' "$file"
    done
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$file" ] || continue
        awk -v want="$SUITE" '$1 == "deb" && $3 == want { print $2; exit }' "$file"
    done
}
base=$CACHE/base-$SUITE-$(echo "$SUITE $PACKAGES" | digest)
if [ ! -f "$base.tar" ]; then
    started=$(date +%s)
    url=$(mirror | head -n 1)
    [ -n "$url" ] || fail "no $SUITE source in apt's configuration"
    # shellcheck disable=SC2016  # the hooks' $1 is mmdebstrap's, expanded by the hook's shell
    mmdebstrap --quiet --variant=required --include="$(echo "$PACKAGES" | tr ' ' ,)" \
        --aptopt='APT::Install-Recommends "false"' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
        --customize-hook='chroot "$1" apt-get clean' --customize-hook='rm -rf "$1"/var/lib/apt/lists/*' \
        --format=tar "$SUITE" "$base.tar.new" "$url" > /dev/null
    mv "$base.tar.new" "$base.tar"
    say "base root made in $(( $(date +%s) - started )) s"
fi

wheels=$CACHE/wheels-$(digest "$SOURCE/systemd/image/requirements.txt")
if [ ! -d "$wheels" ]; then
    platforms="--platform manylinux2014_x86_64"
    for glibc in 17 27 28 31 34 35 36; do platforms="$platforms --platform manylinux_2_${glibc}_x86_64"; done
    # shellcheck disable=SC2086  # the platform options are meant to split into words
    python3 -m pip download --quiet --disable-pip-version-check --only-binary=:all: --require-hashes --no-deps \
        $platforms --python-version 3.11 --implementation cp --abi cp311 --abi abi3 --abi none \
        --dest "$wheels.new" -r "$SOURCE/systemd/image/requirements.txt"
    mv "$wheels.new" "$wheels"
fi

# --- The program's layer, made every time: install.sh into a copy of the base -------------------------------
out=$CACHE/machine
rm -rf "$out" && mkdir -p "$out"
root=$out/root
mkdir "$root" && tar -xf "$base.tar" -C "$root"
cp "$kernel_dir/image/boot/vmlinuz-$ABI" "$out/vmlinuz"
modules=/lib/modules/$ABI
mkdir -p "$root$modules/extra"
cp "$kernel_dir/build/gpio-sim.ko" "$kernel_dir/build/spi-gpio.ko" "$kernel_dir/build/pi_header.ko" "$root$modules/extra/"
# The modules the root loads and those they need, nothing else (the whole set is hundreds of MB).
depmod -b "$kernel_dir/image" "$ABI"
for name in $MODULES; do
    modprobe -d "$kernel_dir/image" -S "$ABI" --show-depends "$name"
done | awk '$1 == "insmod" { print $2 }' | sort -u |
    while read -r module; do
        relative=${module#"$kernel_dir/image"}
        mkdir -p "$root$(dirname "$relative")"
        cp "$module" "$root$relative"
    done
cp "$kernel_dir/image$modules/modules.order" "$kernel_dir/image$modules/modules.builtin" \
    "$kernel_dir/image$modules/modules.builtin.modinfo" "$root$modules/"
depmod -b "$root" "$ABI"

in_root() {
    # shellcheck disable=SC2016  # expanded by the inner shell
    unshare --mount --fork -- sh -c '
        root=$1; shift
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs tmpfs "$root/run"
        exec chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            LANG=C.UTF-8 HOME=/root "$@"' sh "$root" "$@"
}
mkdir -p "$root/tmp/wheels" "$root/tmp/source"
cp "$wheels"/*.whl "$SOURCE/systemd/image/requirements.txt" "$root/tmp/wheels/"
(cd "$SOURCE" && tar -chf - --exclude=__pycache__ --exclude='*.egg-info' pyproject.toml README.md companion docs systemd) |
    tar -xf - -C "$root/tmp/source"
# The install a Pi runs, offline, its libraries from the hashed wheels alone; --spi as the strip needs.
in_root /tmp/source/systemd/install.sh --offline --spi --wheels /tmp/wheels > "$out/install.log" 2>&1 ||
    { cat "$out/install.log" >&2; fail "install.sh failed in the root"; }
rm -rf "$root/tmp/wheels" "$root/tmp/source"

# The board: what makes this machine a Pi to the program, and the agent the tests talk to.
(cd "$HERE/guest" && tar -cf - --owner=0 --group=0 .) | tar -xf - -C "$root" --no-same-owner
chmod 755 "$root/usr/local/sbin/companion-vm-board" "$root/usr/local/sbin/companion-vm-agent"
in_root systemctl enable companion-vm-board.service companion-vm-agent.service systemd-networkd.service > /dev/null 2>&1
in_root systemctl disable companion.service > /dev/null 2>&1  # each test starts it with its own config
in_root systemctl mask getty@tty1.service serial-getty@ttyS0.service systemd-timesyncd.service > /dev/null 2>&1
ln -sf /lib/systemd/systemd "$root/init"
: > "$root/etc/machine-id"

(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc --reproducible) > "$out/initrd.cpio"
rm -rf "$root"
echo "$out"
