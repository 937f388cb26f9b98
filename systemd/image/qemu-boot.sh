#!/bin/sh
# Boot the arm64 card image under qemu-system-aarch64 -M virt (no Pi needed) and time the boot to the page.
#
#   systemd/image/qemu-boot.sh IMAGE [--port PORT] [--imager] [--keep]
#
# IMAGE: companion-arm64.img or .img.xz from build.sh. The card is copied and grown to 4 GiB (first boot
# grows the root to it); a Wi-Fi file is put on its boot partition as an owner would, or with --imager the
# files Raspberry Pi Imager writes (user-data with a user, a key made here, a time zone and a keyboard;
# network-config; meta-data), and the owner's ssh login is tried with that key on 127.0.0.1:PORT+1. The
# kernel and initrd are the image's own, read from its boot partition. The page is forwarded to
# 127.0.0.1:PORT (8080). --keep leaves qemu running (Ctrl-A X ends it) instead of stopping it once the page
# answered.
set -eu

PORT=8080
KEEP=no
IMAGER=no
IMAGE=""
CARD_SIZE=4G
WAIT_S=900  # under emulation on a busy machine the first boot takes minutes
CODE_WAIT_S=300  # from the page's first answer to the setup code on the card: the guest's kernel writes it out
                 # within half a minute, but under emulation the keyboard's first set-up can come first

fail() {
    echo "qemu-boot.sh: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --port) [ $# -ge 2 ] || fail "--port needs a number"; PORT=$2; shift ;;
        --keep) KEEP=yes ;;
        --imager) IMAGER=yes ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) [ -z "$IMAGE" ] || fail "one image only"; IMAGE=$1 ;;
    esac
    shift
done
{ [ -n "$IMAGE" ] && [ -f "$IMAGE" ]; } || fail "give the image file (try --help)"
for tool in qemu-system-aarch64 sfdisk mcopy mdir curl; do
    command -v "$tool" > /dev/null || fail "not installed: $tool (apt-get install qemu-system-arm fdisk mtools curl)"
done

work=$(mktemp -d)
qemu=""
cleanup() {
    [ -z "$qemu" ] || kill "$qemu" 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

case "$IMAGE" in
    *.xz) xz -dc "$IMAGE" > "$work/card.img" ;;
    *) cp --sparse=always "$IMAGE" "$work/card.img" ;;
esac
truncate -s "$CARD_SIZE" "$work/card.img"
start=$(sfdisk --dump "$work/card.img" | awk -F'[=,]' '/^[^#].*start=/ { gsub(/ /, "", $2); print $2; exit }')
boot="$work/card.img@@$((start * 512))"
export MTOOLS_SKIP_CHECK=1
kernel=$(mdir -b -i "$boot" :: | sed -n 's|^::/||; /^vmlinuz-/p' | sort -V | tail -n 1)
initrd=$(mdir -b -i "$boot" :: | sed -n 's|^::/||; /^initrd.img-/p' | sort -V | tail -n 1)
{ [ -n "$kernel" ] && [ -n "$initrd" ]; } || fail "no kernel and initrd on the image's boot partition (an arm64 image?)"
mcopy -i "$boot" "::$kernel" "$work/vmlinuz"
mcopy -i "$boot" "::$initrd" "$work/initrd"
# qemu's virt board has no Raspberry Pi GPIO: this copy's table runs on mock pins, as the nspawn test's does
# (a Pi opens its pins). The root's config is rewritten in place by debugfs, keeping its owner and mode.
root_start=$(sfdisk --dump "$work/card.img" | awk -F'[=,]' '/^[^#].*start=/ { n++; if (n == 2) { gsub(/ /, "", $2); print $2; exit } }')
root_fs="$work/card.img?offset=$((root_start * 512))"
config=/etc/companion/config.toml
debugfs -R "cat $config" "$root_fs" 2> /dev/null | sed 's/^mock_pins *= *false/mock_pins = true/' > "$work/config.toml"
grep -q '^mock_pins = true' "$work/config.toml" || fail "no mock_pins line in the image's $config"
owner=$(debugfs -R "stat $config" "$root_fs" 2> /dev/null | awk '/^User:/ { print $2, $4; exit }')
printf 'rm %s\nwrite %s %s\nsif %s uid %s\nsif %s gid %s\nsif %s mode 0100640\n' "$config" "$work/config.toml" \
    "$config" "$config" "${owner% *}" "$config" "${owner#* }" "$config" | debugfs -w -f - "$root_fs" > /dev/null 2>&1
SECRET="not a real password"
if [ "$IMAGER" = yes ]; then
    # As Imager 2.x writes them for a custom image (docs/raspberry-pi.md, A1), with a key made for this boot.
    ssh-keygen -q -t ed25519 -N "" -C owner@qemu -f "$work/owner"
    cat > "$work/user-data" <<EOF
#cloud-config
hostname: qemu-table
manage_etc_hosts: true
packages:
- avahi-daemon
timezone: Asia/Tokyo
keyboard:
  model: pc105
  layout: "jp"
enable_ssh: true
users:
- name: owner
  groups: users,adm,dialout,audio,netdev,video,plugdev,cdrom,games,input,gpio,spi,i2c,render,sudo
  shell: /bin/bash
  lock_passwd: true
  ssh_authorized_keys:
    - $(cat "$work/owner.pub")
  sudo: ALL=(ALL) NOPASSWD:ALL
EOF
    printf 'network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n      regulatory-domain: "GB"\n      access-points:\n        "Test network":\n          password: "%s"\n      optional: true\n' \
        "$SECRET" > "$work/network-config"
    printf 'instance-id: rpi-imager-qemu\n' > "$work/meta-data"
    for file in user-data network-config meta-data; do mcopy -i "$boot" "$work/$file" "::$file"; done
else
    printf 'ssid=Test network\npassword=%s\ncountry=GB\n' "$SECRET" > "$work/companion-wifi.txt"
    mcopy -i "$boot" "$work/companion-wifi.txt" ::companion-wifi.txt
fi

began=$(date +%s)
qemu-system-aarch64 -M virt -cpu cortex-a72 -smp 2 -m 1024 -nographic \
    -kernel "$work/vmlinuz" -initrd "$work/initrd" \
    -append "root=LABEL=companion-root rw rootwait console=ttyAMA0" \
    -drive "file=$work/card.img,format=raw,if=virtio" \
    -netdev "user,id=net,hostfwd=tcp:127.0.0.1:$PORT-:80,hostfwd=tcp:127.0.0.1:$((PORT + 1))-:22" \
    -device virtio-net-pci,netdev=net \
    -serial "file:$work/console.log" -monitor none > /dev/null 2>&1 &
qemu=$!
echo "qemu-boot.sh: booting $IMAGE (console: $work/console.log)"
while ! curl -fsS -o /dev/null "http://127.0.0.1:$PORT/" 2> /dev/null; do
    kill -0 "$qemu" 2> /dev/null || { tail -n 30 "$work/console.log"; fail "qemu stopped"; }
    [ $(( $(date +%s) - began )) -lt "$WAIT_S" ] || { tail -n 30 "$work/console.log"; fail "no page within $WAIT_S s"; }
    sleep 2
done
echo "qemu-boot.sh: boot to page: $(( $(date +%s) - began )) s (http://127.0.0.1:$PORT/)"
# What a new owner's phone gets next: the setup page, which asks for the code from the card.
setup=$(curl -sS -o "$work/setup.html" -w '%{http_code}' "http://127.0.0.1:$PORT/setup/" || true)
title=$(sed -n 's:.*<title>\(.*\)</title>.*:\1:p' "$work/setup.html" 2> /dev/null | head -n 1)
echo "qemu-boot.sh: /setup/ answered $setup: $title"
grep -E "companion|Wi-Fi|growpart|CHANGED" "$work/console.log" | tail -n 10 || true
if [ "$KEEP" = yes ]; then
    wait "$qemu"
    exit 0
fi
# The card as the owner would read it in a computer: the setup code written (looked for up to CODE_WAIT_S),
# and, once qemu is stopped, the Wi-Fi file used, its password gone.
code=""
looked=$(date +%s)
while [ -z "$code" ] && [ $(( $(date +%s) - looked )) -lt "$CODE_WAIT_S" ]; do
    code=$(mtype -i "$boot" ::companion-setup-code.txt 2> /dev/null | tr -d '\r' | grep -Eo '[A-Z2-9]{10}' | head -n 1 || true)
    [ -n "$code" ] || sleep 2
done
if [ -n "$code" ]; then  # typed into the setup page as a phone does: its cookie, its CSRF token, the code
    site="http://127.0.0.1:$PORT"
    token=$(curl -sS -c "$work/jar" "$site/setup/" | sed -n 's/.*name="csrf-token" content="\([^"]*\)".*/\1/p' | head -n 1)
    curl -sS -b "$work/jar" -c "$work/jar" -H 'Content-Type: application/json' -H "X-CSRF-Token: $token" \
        -d "{\"code\": \"$code\"}" "$site/api/setup/code" > /dev/null
    if curl -sS -b "$work/jar" "$site/setup/" | grep 'id="settings-form"' > /dev/null; then
        echo "qemu-boot.sh: the code from the card opened the setup page's settings"
    else
        fail "the code from the card did not open the setup page's settings"
    fi
fi
if [ "$IMAGER" = yes ]; then  # the owner's way in: Imager's user, by the key Imager put on the card
    ssh -i "$work/owner" -p $((PORT + 1)) -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o ConnectTimeout=30 owner@127.0.0.1 \
        'echo "hostname $(hostname), time zone $(cat /etc/timezone) ($(date +%Z)), $(grep XKBLAYOUT /etc/default/keyboard)"' \
        2> /dev/null > "$work/ssh.txt" || fail "the key from Imager's user-data did not log in over ssh"
    sed 's/^/qemu-boot.sh: ssh owner@ with the key from user-data: /' "$work/ssh.txt"
fi
kill "$qemu" 2> /dev/null || true
wait "$qemu" 2> /dev/null || true
qemu=""
echo "qemu-boot.sh: the boot partition now holds:"
mdir -b -i "$boot" :: | sed -n 's|^::/|  |; /companion/p'
used=companion-wifi-used.txt
[ "$IMAGER" = no ] || used=companion-imager-used.txt
if mtype -i "$boot" "::$used" > "$work/used.txt" 2> /dev/null; then
    grep -q "$SECRET" "$work/used.txt" && fail "$used still holds the Wi-Fi password"
    # FAT keeps a deleted file's bytes: the whole raw partition is read, free clusters included.
    sectors=$(sfdisk --dump "$work/card.img" | awk -F'[=,]' '/^[^#].*size=/ { gsub(/ /, "", $4); print $4; exit }')
    dd if="$work/card.img" of="$work/boot.raw" bs=512 skip="$start" count="$sectors" status=none
    grep -aq "$SECRET" "$work/boot.raw" && fail "the raw boot partition still holds the Wi-Fi password"
    echo "qemu-boot.sh: the card's settings were read and the Wi-Fi password removed, from the raw partition too"
    [ "$IMAGER" = no ] || sed 's/^/qemu-boot.sh:   /' "$work/used.txt"
else
    mtype -i "$boot" ::companion-imager-error.txt 2> /dev/null || true
    fail "the card's settings were not taken up (no $used)"
fi
[ -n "$code" ] || fail "no setup code on the boot partition within $CODE_WAIT_S s (companion-setup-code.txt)"
echo "qemu-boot.sh: the setup code is on the card: $code"
