#!/bin/sh
# Build the hourglass table companion's card image from Debian's archive: flash it, put the Wi-Fi in a
# file on its boot partition, boot, open companion.local (docs/raspberry-pi.md).
#
#   sudo systemd/image/build.sh [--arch arm64|amd64] [--out DIR] [--cache DIR] [--mirror URL]
#                               [--root-only] [--no-xz] [--relock] [--wheels-out DIR]
#
# arm64 is the Raspberry Pi's image; amd64 builds the same root for the tests (no kernel, no firmware).
# The same inputs give the same image: Debian's packages at the versions in lock/<arch>.txt, the
# program's libraries by the hashes in requirements.txt, fixed file system ids, every date
# SOURCE_DATE_EPOCH. The base root (Debian alone) is cached; only the program's layer is rebuilt.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
SOURCE=$(dirname "$(dirname "$HERE")")
SUITE=bookworm
ARCH=arm64
OUT=$SOURCE/build/image
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/companion/image
MIRROR=""
ROOT_ONLY=no
RELOCK=no
XZ=yes
WHEELS_OUT=""  # where to leave a copy of the hashed wheelhouse the program was installed from (release.sh's)
# The card's fixed ids, so two builds agree (and fstab and cmdline.txt name them): the disk's id
# ("comp"), the boot partition's FAT serial (shown as 636F-6D70) and label, the root's label and UUID.
DISK_ID=0x636f6d70
BOOT_SERIAL=636f6d70
BOOT_LABEL=COMPANION
ROOT_LABEL=companion-root
ROOT_UUID=6f6d7061-6e69-4f6e-8074-61626c650001
BOOT_MIB=256          # kernel, initrd and firmware twice over (a kernel update writes the new beside the old)
ROOT_SPARE_MIB=400    # free room on the root before it grows to the card at first boot
FIRST_MIB=4           # partitions start 4 MiB in, on an erase block of any card

usage() {
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
}

fail() {
    echo "build.sh: $*" >&2
    exit 2
}

say() {
    echo "build.sh: $*" >&2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --arch) [ $# -ge 2 ] || fail "--arch needs arm64 or amd64"; ARCH=$2; shift ;;
        --out) [ $# -ge 2 ] || fail "--out needs a directory"; OUT=$2; shift ;;
        --cache) [ $# -ge 2 ] || fail "--cache needs a directory"; CACHE=$2; shift ;;
        --mirror) [ $# -ge 2 ] || fail "--mirror needs a URL"; MIRROR=$2; shift ;;
        --root-only) ROOT_ONLY=yes ;;
        --relock) RELOCK=yes ;;
        --no-xz) XZ=no ;;
        --wheels-out) [ $# -ge 2 ] || fail "--wheels-out needs a directory"; WHEELS_OUT=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        *) fail "unknown option $1 (try --help)" ;;
    esac
    shift
done
case "$ARCH" in arm64|amd64) ;; *) fail "--arch $ARCH: expected arm64 or amd64" ;; esac
MACHINE=$( [ "$ARCH" = arm64 ] && echo aarch64 || echo x86_64 )  # the kernel's and the wheels' name for it
[ "$(id -u)" -eq 0 ] || fail "run it as root (the root's files belong to their users): sudo $0"
INSTALL="apt-get install mmdebstrap fdisk e2fsprogs dosfstools mtools device-tree-compiler xz-utils python3-pip"
for tool in mmdebstrap sfdisk mkfs.ext4 dumpe2fs debugfs mkfs.vfat mcopy dtc xz; do
    command -v "$tool" > /dev/null || fail "not installed: $tool ($INSTALL)"
done
# pip fetches the program's hashed wheels for the card's processor.
python3 -m pip --version > /dev/null 2>&1 || fail "not installed: python3 -m pip ($INSTALL)"
# Another processor's programs run in the root through qemu, which the kernel's binfmt_misc hands them to.
if [ "$ARCH" != "$(dpkg --print-architecture 2> /dev/null || echo "$ARCH")" ]; then
    grep -qs '^enabled' "/proc/sys/fs/binfmt_misc/qemu-$MACHINE" ||
        fail "$ARCH programs cannot run here: apt-get install qemu-user-static binfmt-support, and mount binfmt_misc (mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc)"
fi

LOCK=$HERE/lock/$ARCH.txt
# Every date in the image: the lock's last change, so a new lock (new packages) is a new date.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git -C "$SOURCE" log -1 --format=%ct -- "$LOCK" "$HERE" 2> /dev/null || true)
    [ -n "$SOURCE_DATE_EPOCH" ] || SOURCE_DATE_EPOCH=$(stat -c %Y "$HERE/packages.txt")
fi
export SOURCE_DATE_EPOCH

# The Debian archive this machine's apt uses (never a host written here): the first source of $SUITE.
apt_source() {  # $1: the suite's name pattern
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk -v want="$1" 'BEGIN { RS = ""; FS = "\n" }
            { uri = ""; ok = 0
              for (i = 1; i <= NF; i++) {
                  if ($i ~ /^URIs:/) { split($i, w, /[ \t]+/); uri = w[2] }
                  if ($i ~ /^Suites:/ && $i ~ want) ok = 1 }
              if (ok && uri != "") { print uri; exit } }' "$file"
    done
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$file" ] || continue
        awk -v want="$1" '$1 == "deb" && $0 ~ want { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' "$file"
    done
}
if [ -z "$MIRROR" ]; then
    MIRROR=$(apt_source "[[:space:]]$SUITE([[:space:]]|\$)" | head -n 1)
    [ -n "$MIRROR" ] || fail "no $SUITE source in apt's configuration: give --mirror URL"
fi
SECURITY=$(apt_source "$SUITE-security" | head -n 1)

# The package list for this processor.
packages() {
    sed -e 's/#.*//' "$HERE/packages.txt" | while read -r package only; do
        [ -n "$package" ] || continue
        case "$only" in ""|"[$ARCH]") echo "$package" ;; esac
    done
}

digest() {
    cat "$@" | sha256sum | cut -c1-12
}

# --- The base root: Debian's packages alone, made once per package list and lock ---------------------

# The initramfs settings go in before the kernel's package makes the first initramfs (they matter only there).
INITRAMFS_CONF=$HERE/initramfs.conf
has_kernel() {
    packages | grep -q '^linux-image-'
}

base_tar() {
    key=$(
        { packages; echo "$SUITE $ARCH"; [ ! -f "$LOCK" ] || cat "$LOCK"; ! has_kernel || cat "$INITRAMFS_CONF"; } | digest
    )
    echo "$CACHE/base-$SUITE-$ARCH-$key.tar"
}

make_base() {
    tar_file=$1
    mkdir -p "$CACHE"
    sources="deb $MIRROR $SUITE main non-free-firmware
deb $MIRROR $SUITE-updates main non-free-firmware"
    [ -z "$SECURITY" ] || sources="$sources
deb $SECURITY $SUITE-security main non-free-firmware"
    pins=$CACHE/.pins-$ARCH
    : > "$pins"
    if [ -f "$LOCK" ] && [ "$RELOCK" = no ]; then
        # Every package at the version the lock names: apt may take no other (priority above 1000).
        sed -e 's/#.*//' "$LOCK" | while read -r package version; do
            [ -n "$package" ] || continue
            printf 'Package: %s\nPin: version %s\nPin-Priority: 1001\n\n' "$package" "$version"
        done > "$pins"
    fi
    say "making the base root ($ARCH, $(packages | wc -l) packages) from $MIRROR: this takes a while"
    started=$(date +%s)
    # shellcheck disable=SC2016  # the hooks' $1 is mmdebstrap's, expanded by the hook's shell
    mmdebstrap --variant=apt --architectures="$ARCH" --components=main,non-free-firmware \
        --aptopt='APT::Install-Recommends "false"' \
        --dpkgopt=force-confold --dpkgopt=force-confdef \
        --include="$(packages | paste -sd, -)" \
        --setup-hook="mkdir -p \"\$1/etc/apt/preferences.d\" \"\$1/etc/default\" && cp '$pins' \"\$1/etc/apt/preferences.d/companion-lock\"" \
        --setup-hook="cp '$HERE/raspi-firmware.default' \"\$1/etc/default/raspi-firmware\"" \
        --setup-hook="mkdir -p \"\$1/etc/initramfs-tools/conf.d\" && cp '$INITRAMFS_CONF' \"\$1/etc/initramfs-tools/conf.d/companion\"" \
        --customize-hook='rm -f "$1/etc/apt/preferences.d/companion-lock"' \
        --customize-hook="chroot \"\$1\" dpkg-query -W -f '\${Package} \${Version}\n' > '$CACHE/.installed-$ARCH'" \
        --customize-hook='chroot "$1" apt-get clean' \
        --customize-hook='rm -rf "$1"/var/lib/apt/lists/*' \
        --format=tar "$SUITE" "$tar_file.new" - <<EOF
$sources
EOF
    mv "$tar_file.new" "$tar_file"
    if [ ! -f "$LOCK" ] || [ "$RELOCK" = yes ]; then
        mkdir -p "$(dirname "$LOCK")"
        { echo "# The image's Debian packages ($SUITE, $ARCH) at the versions its build installs (build.sh --relock writes it)."
          sort "$CACHE/.installed-$ARCH"; } > "$LOCK"
        say "wrote ${LOCK#"$SOURCE"/}: commit it, so the next build installs the same versions"
        # The lock is part of the base's name: this base is the one it describes, so the next build finds it.
        mv "$tar_file" "$(base_tar)"
    fi
    say "base root made in $(( $(date +%s) - started )) s"
}

# --- The program's layer -----------------------------------------------------------------------------

# Run a command inside the root, with /proc and /dev, in a mount namespace of its own (nothing leaks).
in_root() {
    # shellcheck disable=SC2016  # expanded by the inner shell
    unshare --mount --fork -- sh -c '
        root=$1; shift
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs tmpfs "$root/run"
        exec chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            LANG=C.UTF-8 HOME=/root SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" "$@"' sh "$ROOT" "$@"
}

# The program, installed the one way a Pi installs it: systemd/install.sh, inside the root, offline,
# from a wheelhouse checked against requirements.txt.
install_program() {
    wheels=$CACHE/wheels-$ARCH-$(digest "$HERE/requirements.txt")
    if [ ! -d "$wheels" ]; then
        platforms="--platform manylinux2014_$MACHINE"
        for glibc in 17 27 28 31 34 35 36; do platforms="$platforms --platform manylinux_2_${glibc}_$MACHINE"; done
        # shellcheck disable=SC2086  # the platform options are meant to split into words
        python3 -m pip download --quiet --disable-pip-version-check --only-binary=:all: --require-hashes \
            --no-deps $platforms --python-version 3.11 --implementation cp --abi cp311 --abi abi3 --abi none \
            --dest "$wheels.new" -r "$HERE/requirements.txt"
        mv "$wheels.new" "$wheels"
    fi
    mkdir -p "$ROOT/tmp/companion-wheels" "$ROOT/tmp/companion-source"
    cp "$wheels"/*.whl "$ROOT/tmp/companion-wheels/"
    cp "$HERE/requirements.txt" "$ROOT/tmp/companion-wheels/requirements.txt"
    if [ -n "$WHEELS_OUT" ]; then
        mkdir -p "$WHEELS_OUT"
        cp "$ROOT"/tmp/companion-wheels/* "$WHEELS_OUT/"
    fi
    # -h: the package's data links into hw/ and firmware/ (the pin map, the hub's firmware) go in as files.
    (cd "$SOURCE" && tar -chf - --exclude=__pycache__ --exclude='*.egg-info' pyproject.toml README.md companion docs systemd) |
        tar -xf - -C "$ROOT/tmp/companion-source"
    # The install step a Pi runs (install.sh), offline, its libraries from the hashed wheelhouse alone.
    in_root /tmp/companion-source/systemd/install.sh --offline --wheels /tmp/companion-wheels
    rm -rf "$ROOT/tmp/companion-wheels" "$ROOT/tmp/companion-source"
    # The SPI bus comes from the image's overlay (config.txt), not install.sh's dtparam (Raspberry Pi OS's).
    # The daemon writes calibrated durations into its config.
    in_root chown -R companion:companion /etc/companion
}

# The image's own files (units, presets, first-boot settings) and the install's settings for a card.
install_appliance() {
    (cd "$HERE/files" && tar -cf - --owner=0 --group=0 .) | tar -xf - -C "$ROOT" --no-same-owner
    chmod 755 "$ROOT"/usr/local/sbin/companion-*
    cat > "$ROOT/etc/fstab" <<EOF
# The card: the root grows to fill it at first boot.
LABEL=$ROOT_LABEL / ext4 rw,noatime,errors=remount-ro 0 1
# The boot partition a computer reads: the Wi-Fi file, the name file, the setup code. Root's alone: the Wi-Fi
# file holds a password, and the firmware, the kernel and cmdline.txt are there (companion-setup-code.service,
# as root, puts the table's setup code there for the owner).
LABEL=$BOOT_LABEL /boot/firmware vfat rw,noatime,uid=0,gid=0,fmask=0177,dmask=0077 0 2
EOF
    config=$ROOT/etc/companion/config.toml
    # The table's page on the port a phone opens without one (no capability needed: see sysctl.d).
    if grep -q '^port *=' "$config"; then
        sed -i 's/^port *=.*/port = 80/' "$config"
    else
        sed -i '0,/^\[web\]/s//[web]\nport = 80/' "$config"
        grep -q '^port *=' "$config" || printf '\n[web]\nport = 80\n' >> "$config"
    fi
    # One mDNS responder on the card: Avahi, the system's, announces the name and the page
    # (/etc/avahi/services/companion.service); the daemon's own would bind UDP 5353 beside it.
    grep -q '^mdns *=' "$config" || sed -i 's/^port = 80$/port = 80\nmdns = false/' "$config"
    in_root systemctl preset-all --preset-mode=full
    # Enabling NetworkManager enables its wait-online too (Also=), whatever the presets say: masked, nothing
    # holds the table's page behind a network that may come only later, from a phone.
    in_root systemctl mask NetworkManager-wait-online.service
    # Debian's packages change with a new card, not on the table: apt's daily timers would fetch package lists
    # to the card every day for an upgrade nothing installs (docs/image.md, "Updates").
    in_root systemctl mask apt-daily.timer apt-daily-upgrade.timer
    in_root systemctl set-default multi-user.target
}

# What must not be the same on two tables, or must not be in an image at all.
forget_identity() {
    # Empty: systemd makes one at first boot. (An empty file is not a "first boot" to systemd 252: the presets
    # were applied above, at build time, and are not applied again.)
    : > "$ROOT/etc/machine-id"
    rm -f "$ROOT/var/lib/dbus/machine-id" "$ROOT"/etc/ssh/ssh_host_* "$ROOT/var/lib/systemd/random-seed" \
          "$ROOT/var/lib/systemd/credential.secret" "$ROOT"/etc/NetworkManager/system-connections/*
    rm -rf "$ROOT"/var/log/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/lib/apt/lists/* "$ROOT"/tmp/* "$ROOT"/var/tmp/*
    find "$ROOT" -name __pycache__ -prune -o -name '*.pyc' -print0 | xargs -0 rm -f
    echo companion > "$ROOT/etc/hostname"
    printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tcompanion\n' > "$ROOT/etc/hosts"
}

# The boot partition's files: the kernel hook's cmdline.txt and config.txt, and the SPI overlay.
boot_files() {
    mkdir -p "$ROOT/boot/firmware/overlays"
    dtc -q -@ -I dts -O dtb -o "$ROOT/boot/firmware/overlays/companion-spi.dtbo" "$HERE/companion-spi.dts"
    cp "$HERE/config.txt.custom" "$ROOT/etc/default/raspi-firmware-custom"
    cp "$HERE/raspi-firmware.default" "$ROOT/etc/default/raspi-firmware"
    if [ -x "$ROOT/etc/kernel/postinst.d/z50-raspi-firmware" ]; then
        # The hook as dpkg runs it (it does nothing outside a package's configure step).
        # shellcheck disable=SC2012  # the kernels' names are Debian's: no odd characters
        kernel=$(cd "$ROOT/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
        in_root env DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware "$kernel"
        # The root is checked before it is mounted at every boot only if the initramfs carries fsck (initramfs.conf).
        listed=$(in_root lsinitramfs "/boot/initrd.img-$kernel")
        for checker in fsck fsck.ext4; do
            echo "$listed" | grep -qE "^(usr/)?sbin/$checker\$" || fail "the initramfs has no $checker: the root would never be checked"
        done
    else
        # No Pi firmware for this processor (the tests' amd64 root): the same two files, written as the hook would.
        cmdline="console=tty0 console=ttyS1,115200 root=LABEL=$ROOT_LABEL rw fsck.repair=yes net.ifnames=0 rootwait"
        echo "$cmdline" > "$ROOT/boot/firmware/cmdline.txt"
        { echo "# Written for the tests' root: on a Pi, raspi-firmware writes this file."
          echo "[all]"; cat "$HERE/config.txt.custom"; } > "$ROOT/boot/firmware/config.txt"
    fi
    grep -q "root=LABEL=$ROOT_LABEL" "$ROOT/boot/firmware/cmdline.txt" ||
        fail "cmdline.txt does not name the root by its label: $(cat "$ROOT/boot/firmware/cmdline.txt")"
}

# --- The card image: two partitions assembled from files (no loop device) -------------------------

clamp_dates() {
    find "$1" -xdev -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
}

# mkfs.ext4 -d copies each file's ctime, the moment this build wrote the file (no one may set it), and its atime:
# every inode in use gets SOURCE_DATE_EPOCH for both. The inodes in use are those no group lists as free.
settle_times() {
    commands=$1.times
    dumpe2fs "$1" 2> /dev/null | awk -v when="@$SOURCE_DATE_EPOCH" '
        /^Inode count:/ { count = $3 }
        /^ +Free inodes: / {
            sub(/^ +Free inodes: */, ""); ranges = split($0, range, /, */)
            for (r = 1; r <= ranges; r++) {
                if (split(range[r], ends, "-") == 0) continue
                last = (2 in ends) ? ends[2] : ends[1]
                for (i = ends[1] + 0; i <= last + 0; i++) free[i] = 1
                delete ends
            }
        }
        END { for (i = 1; i <= count; i++) if (!(i in free)) printf "sif <%d> ctime %s\nsif <%d> atime %s\n", i, when, i, when }' > "$commands"
    E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH debugfs -w -f "$commands" "$1" > /dev/null 2>&1 || fail "debugfs could not settle the root's dates"
    rm -f "$commands"
}

assemble() {
    image=$1
    scratch=$2
    boot=$scratch/boot.vfat
    rootfs=$scratch/root.ext4
    rm -f "$boot" "$rootfs"
    # --invariant first: it sets a serial of its own (1234-ABCD), which -i after it replaces.
    mkfs.vfat -C -F 32 -n "$BOOT_LABEL" --invariant -i "$BOOT_SERIAL" "$boot" $((BOOT_MIB * 1024)) > /dev/null
    (cd "$ROOT/boot/firmware" && find . -mindepth 1 -maxdepth 1 | sort) | while read -r entry; do
        MTOOLS_SKIP_CHECK=1 mcopy -s -p -m -i "$boot" "$ROOT/boot/firmware/${entry#./}" ::
    done
    # The root without the boot partition's files (they live in the first partition).
    mkdir -p "$scratch/empty"
    touch -d "@$SOURCE_DATE_EPOCH" "$scratch/empty"  # it stands for /boot/firmware in the root
    used_mib=$(du -sxm "$ROOT" | cut -f1)
    root_mib=$((used_mib + used_mib / 5 + ROOT_SPARE_MIB))
    mount --bind "$scratch/empty" "$ROOT/boot/firmware"
    E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mkfs.ext4 -q -F -L "$ROOT_LABEL" -U "$ROOT_UUID" \
        -E "hash_seed=$ROOT_UUID,root_owner=0:0" -T default -d "$ROOT" "$rootfs" "${root_mib}M" || {
        umount "$ROOT/boot/firmware"; fail "mkfs.ext4 failed"; }
    umount "$ROOT/boot/firmware"
    settle_times "$rootfs"
    first=$((FIRST_MIB * 2048))
    boot_sectors=$((BOOT_MIB * 2048))
    root_start=$((first + boot_sectors))
    root_sectors=$((root_mib * 2048))
    rm -f "$image"
    truncate -s $(((root_start + root_sectors) * 512)) "$image"
    sfdisk --quiet "$image" <<EOF
label: dos
label-id: $DISK_ID
unit: sectors

start=$first, size=$boot_sectors, type=c, bootable
start=$root_start, size=$root_sectors, type=83
EOF
    dd if="$boot" of="$image" bs=1M seek=$FIRST_MIB conv=notrunc,sparse status=none
    dd if="$rootfs" of="$image" bs=512 seek=$root_start conv=notrunc,sparse status=none
    rm -f "$boot" "$rootfs"
}

# --- The build ---------------------------------------------------------------------------------------

started=$(date +%s)
mkdir -p "$OUT" "$CACHE"
base=$(base_tar)
[ -f "$base" ] || make_base "$base"
base=$(base_tar)  # a first build's new lock names the base anew
ROOT=$OUT/root-$ARCH
rm -rf "$ROOT"
mkdir -p "$ROOT"
tar --numeric-owner --xattrs --xattrs-include='*' -xpf "$base" -C "$ROOT"
install_program
install_appliance
boot_files
forget_identity
clamp_dates "$ROOT"
say "root ready in $ROOT"
if [ "$ROOT_ONLY" = no ]; then
    image=$OUT/companion-$ARCH.img
    assemble "$image" "$OUT"
    say "image: $image ($(du -m --apparent-size "$image" | cut -f1) MiB)"
    rm -f "$image.xz"
    if [ "$XZ" = yes ]; then
        xz -T0 -6 -k "$image"
        say "compressed: $image.xz ($(du -m "$image.xz" | cut -f1) MiB)"
    fi
fi
say "built in $(( $(date +%s) - started )) s"
