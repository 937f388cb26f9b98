#!/bin/sh
# Install the hourglass table companion on Raspberry Pi OS Bookworm, from this checkout.
#
#   sudo systemd/install.sh [--spi] [--kiosk]      install, or bring an install up to date
#   sudo systemd/install.sh --uninstall [--purge]  remove it; --purge also removes config and data
#   systemd/install.sh --root DIR ...              the same into DIR instead of / (nothing else touched)
#   systemd/install.sh --offline --wheels DIR      into a system that is not running (an image's root)
#
# Safe to run again: it never overwrites a config file that exists, and every step
# first looks whether it is already done. Each version of the program is a release of
# its own beside the others; docs/install.md explains every step.
set -eu

NAME=companion
HOME_DIR=/opt/companion
RELEASES=$HOME_DIR/releases
CURRENT=$HOME_DIR/current    # the release the unit runs (a relative link)
PREVIOUS=$HOME_DIR/previous  # the one before it, for a way back
RELEASE_MARK=companion-release  # written last into a release: a folder without it is half made
WRAPPER=/usr/local/bin/companion
CONFIG_DIR=/etc/companion
STATE_DIR=/var/lib/companion
UNIT=/etc/systemd/system/companion.service
UPDATE_PATH=/etc/systemd/system/companion-update.path        # a release from the maintenance page, waiting
UPDATE_SERVICE=/etc/systemd/system/companion-update.service  # ... installed by it as root
SYSUSERS=/etc/sysusers.d/companion.conf
UDEV_RULES=/etc/udev/rules.d/60-companion.rules  # the pins and the SPI bus to their groups
KIOSK_BIN=/usr/local/bin/companion-kiosk
KIOSK_AUTOSTART=/etc/xdg/autostart/companion-kiosk.desktop
DROP_IN_DIR=/etc/systemd/system/companion.service.d
MADE_GROUPS="# groups made by install.sh:"  # a line of the sysusers file: what --purge takes away
MADE_FOLDERS="# folders made by install.sh:"  # a line of the udev rules: what uninstalling takes away
APT_PACKAGES="python3-venv python3-pip"

HERE=$(cd "$(dirname "$0")" && pwd)
SOURCE=$(dirname "$HERE")
ROOT=""
PYTHON=python3
SPI=no
KIOSK=no
ACTION=install
PURGE=no
OFFLINE=no
WHEELS=""
REQUIREMENTS=""

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    echo "Options: --root DIR, --source DIR (default: this checkout), --python PYTHON, --spi, --kiosk,"
    echo "         --offline, --wheels DIR, --requirements FILE (default: DIR/requirements.txt),"
    echo "         --uninstall, --purge"
}

fail() {
    echo "install.sh: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ $# -ge 2 ] || fail "--root needs a directory"; ROOT=${2%/}; shift ;;
        --source) [ $# -ge 2 ] || fail "--source needs a directory"; SOURCE=$2; shift ;;
        --python) [ $# -ge 2 ] || fail "--python needs a program"; PYTHON=$2; shift ;;
        --wheels) [ $# -ge 2 ] || fail "--wheels needs a directory"; WHEELS=${2%/}; shift ;;
        --requirements) [ $# -ge 2 ] || fail "--requirements needs a file"; REQUIREMENTS=$2; shift ;;
        --offline) OFFLINE=yes ;;
        --spi) SPI=yes ;;
        --kiosk) KIOSK=yes ;;
        --uninstall) ACTION=uninstall ;;
        --purge) PURGE=yes ;;
        -h|--help) usage; exit 0 ;;
        *) fail "unknown option $1 (try --help)" ;;
    esac
    shift
done

if [ -n "$ROOT" ]; then
    [ -d "$ROOT" ] || fail "--root $ROOT is not a directory"
    ROOT=$(cd "$ROOT" && pwd)
elif [ "$(id -u)" -ne 0 ]; then
    fail "run it as root: sudo $0"
fi
# No systemd running here (a chroot, an image being built): nothing is started, units are enabled by their links.
[ -n "$ROOT" ] || [ -d /run/systemd/system ] || OFFLINE=yes
if [ -n "$WHEELS" ]; then
    [ -d "$WHEELS" ] || fail "--wheels $WHEELS is not a directory"
    WHEELS=$(cd "$WHEELS" && pwd)
    REQUIREMENTS=${REQUIREMENTS:-$WHEELS/requirements.txt}
    [ -f "$REQUIREMENTS" ] || fail "no hashed requirements file $REQUIREMENTS for the wheels in $WHEELS"
fi

say() {
    echo "install.sh: $*"
}

# A command that changes the running system: run it on a real install, only report it under --root.
live() {
    if [ -n "$ROOT" ]; then
        say "skipped under --root: $*"
    else
        "$@"
    fi
}

# Install a file from the checkout with a mode, unless it is already there with that content.
put() {
    mode=$1 from=$2 to=$ROOT$3
    mkdir -p "$(dirname "$to")"
    if [ -f "$to" ] && cmp -s "$from" "$to"; then
        chmod "$mode" "$to"
        return
    fi
    cp "$from" "$to.new" && chmod "$mode" "$to.new" && mv "$to.new" "$to"
    say "wrote $3"
}

# Write standard input to a file with a mode, unless it already holds exactly that.
put_text() {
    mode=$1 to=$ROOT$2
    mkdir -p "$(dirname "$to")"
    cat > "$to.new"
    if [ -f "$to" ] && cmp -s "$to.new" "$to"; then
        rm -f "$to.new"
        chmod "$mode" "$to"
        return
    fi
    chmod "$mode" "$to.new" && mv "$to.new" "$to"
    say "wrote $2"
}

boot_config() {
    if [ -d "$ROOT/boot/firmware" ] || [ ! -f "$ROOT/boot/config.txt" ]; then
        echo "$ROOT/boot/firmware/config.txt"
    else
        echo "$ROOT/boot/config.txt"  # before Bookworm
    fi
}

# The board's model, e.g. "Raspberry Pi 4 Model B Rev 1.4" (empty where there is no device tree).
board_model() {
    tr -d '\000' < "$ROOT/proc/device-tree/model" 2> /dev/null || true
}

install_packages() {
    packages=$APT_PACKAGES
    # Raspberry Pi OS packages lgpio; elsewhere (plain Debian) it comes from the 'pi' extra instead.
    if command -v apt-cache > /dev/null && apt-cache show python3-lgpio > /dev/null 2>&1; then
        packages="$packages python3-lgpio"
    fi
    # The kiosk shows Japanese: without a CJK font the Pi's screen draws empty boxes.
    [ "$KIOSK" = no ] || packages="$packages fonts-noto-cjk"
    if [ -z "$ROOT" ] && [ "$OFFLINE" = no ] && command -v apt-get > /dev/null; then
        # shellcheck disable=SC2086  # the list is meant to split into words
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages
    else
        say "skipped: apt-get install $packages"
    fi
}

# The user, its groups and its home, declared for systemd-sysusers (which also makes missing groups).
install_user() {
    # Raspberry Pi OS has these groups; on another system this script makes them, and notes it.
    made=$(sed -n "s/^$MADE_GROUPS//p" "$ROOT$SYSUSERS" 2> /dev/null || true)
    for group in gpio spi dialout; do
        grep -q "^$group:" "$ROOT/etc/group" 2> /dev/null || made="$made $group"
    done
    note=""
    [ -z "$made" ] || note="$MADE_GROUPS$made"
    # A group the system's own sysusers files declare (systemd's basic.conf has dialout) is not declared twice:
    # systemd-sysusers would log a conflict at every boot.
    groups=""
    for group in gpio spi dialout; do
        grep -qs "^g[[:space:]]\{1,\}${group}[[:space:]]" "$ROOT"/usr/lib/sysusers.d/*.conf "$ROOT"/etc/sysusers.d/*.conf \
            --exclude="$(basename "$SYSUSERS")" || groups="${groups}g $group - -
"
    done
    put_text 644 "$SYSUSERS" <<EOF
# The hourglass table companion's own user: the GPIO pins, the SPI bus and serial ports, nothing else.
$groups
u $NAME - "Hourglass table companion" $STATE_DIR /usr/sbin/nologin
m $NAME gpio
m $NAME spi
m $NAME dialout
$note
EOF
    if [ -n "$ROOT" ]; then
        mkdir -p "$ROOT/etc"
        systemd-sysusers --root "$ROOT" "$ROOT$SYSUSERS"
    else
        systemd-sysusers "$SYSUSERS"
    fi
}

# The releases' one recipe (digest, release, links, pruning) is the program's own, run from the checkout:
# companion/release.py uses the standard library alone, so it runs before anything is installed.
release_step() {
    "$PYTHON" "$SOURCE/companion/release.py" "$@"
}

# A digest of the program's files in the checkout: an unchanged checkout need not be installed again.
source_digest() {
    release_step digest "$SOURCE"
}

source_version() {
    sed -n 's/^version *= *"\([^"]*\)".*/\1/p' "$SOURCE/pyproject.toml" | head -n 1
}

# A release: a complete environment of its own under releases/, marked complete last; with a wheelhouse,
# every library checked against its hash, offline, and the wheels kept in the release for the next update.
make_release() {
    if [ -n "$WHEELS" ]; then
        release_step make "$ROOT$HOME_DIR" "$1" "$SOURCE" "$PYTHON" "$WHEELS" "$REQUIREMENTS" \
            || fail "could not install the program from $SOURCE as the release $1"
    else
        release_step make "$ROOT$HOME_DIR" "$1" "$SOURCE" "$PYTHON" \
            || fail "could not install the program from $SOURCE as the release $1"
    fi
    say "installed the program as the release $RELEASES/$1"
}

# Before releases, /opt/companion was the environment itself: it goes once the new release is in place.
migrate_old_layout() {
    [ -f "$ROOT$HOME_DIR/pyvenv.cfg" ] || return 0
    for part in bin include lib lib64 share pyvenv.cfg companion-source; do
        rm -rf "${ROOT:?}$HOME_DIR/$part"
    done
    say "moved the program from the environment $HOME_DIR to the releases in $RELEASES"
}

# Point a link of $HOME_DIR (current, previous) at a release, in one step.
point() {
    release_step point "$ROOT$HOME_DIR" "$(basename "$1")" "$2"
}

# Releases neither current nor previous are taken away: a Pi's card is small.
prune_releases() {
    removed=$(release_step prune "$ROOT$HOME_DIR")
    [ -z "$removed" ] || echo "$removed" | sed 's/^/install.sh: /'
}

install_program() {
    [ -f "$SOURCE/pyproject.toml" ] || fail "no pyproject.toml in $SOURCE: give the checkout with --source"
    release="$(source_version)-$(source_digest)"
    was=$(basename "$(readlink "$ROOT$CURRENT" 2> /dev/null || echo none)")
    if [ "$was" = "$release" ] && [ -f "$ROOT$RELEASES/$release/$RELEASE_MARK" ]; then
        say "the program in $CURRENT is up to date ($release)"
        return
    fi
    [ -f "$ROOT$RELEASES/$release/$RELEASE_MARK" ] || make_release "$release"
    migrate_old_layout
    [ "$was" = none ] || point "$PREVIOUS" "$was"
    point "$CURRENT" "$release"
    say "$CURRENT is now $release"
    prune_releases
}

install_wrapper() {
    put 755 "$HERE/companion-command" "$WRAPPER"
}

# Raspberry Pi OS gives the GPIO chips and the SPI bus to the gpio and spi groups by its own udev rules; plain
# Debian (the card image) leaves them to root alone, and the daemon could open neither. The same two rules.
install_udev_rules() {
    made_here=$(grep -s "^$MADE_FOLDERS" "$ROOT$UDEV_RULES" || true)  # kept from an earlier install
    for folder in /etc/udev /etc/udev/rules.d; do
        [ -d "$ROOT$folder" ] || made_here="${made_here:-$MADE_FOLDERS} $folder"
    done
    put_text 644 "$UDEV_RULES" <<EOF
# The hourglass table companion (written by install.sh): the pins and the LED strip's SPI bus to the groups
# the table's user is in, as Raspberry Pi OS's own rules give them.
SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"
SUBSYSTEM=="spidev", GROUP="spi", MODE="0660"
$made_here
EOF
    [ -n "$ROOT" ] || [ "$OFFLINE" = yes ] || ! command -v udevadm > /dev/null ||
        udevadm trigger --subsystem-match=gpio --subsystem-match=spidev || true
}

install_config() {
    mkdir -p "$ROOT$CONFIG_DIR"
    chmod 750 "$ROOT$CONFIG_DIR"
    if [ -f "$ROOT$CONFIG_DIR/config.toml" ]; then
        say "kept $CONFIG_DIR/config.toml as it is"
    else
        put 640 "$SOURCE/docs/config.example.toml" "$CONFIG_DIR/config.toml"
    fi
    # The daemon writes calibrated durations into its config.
    live chown -R "$NAME:$NAME" "$CONFIG_DIR"
    # The unit's StateDirectory makes the table's folder at its first start; `companion check-hw` and
    # `calibrate` work in it before that, on a table being wired up.
    mkdir -p "$ROOT$STATE_DIR"
    chmod 750 "$ROOT$STATE_DIR"
    live chown "$NAME:$NAME" "$STATE_DIR"
}

install_spi() {
    file=$(boot_config)
    mkdir -p "$(dirname "$file")"
    touch "$file"
    if grep -qx 'dtparam=spi=on' "$file"; then
        say "SPI is already on in ${file#"$ROOT"}"
    else
        echo 'dtparam=spi=on' >> "$file"
        say "SPI switched on in ${file#"$ROOT"}: reboot once for it to take effect"
    fi
    install_core_clock "$file"
}

# Before the Pi 5, the SPI clock is divided from the VideoCore's core clock, which scales with load:
# the LED strip's bits then stretch and the colours flicker. A fixed core clock keeps them steady.
install_core_clock() {
    file=$1
    case "$(board_model)" in
        "Raspberry Pi 4"*|"Raspberry Pi Compute Module 4"*) lines="core_freq=500 core_freq_min=500" ;;
        "Raspberry Pi 3"*|"Raspberry Pi Zero 2"*|"Raspberry Pi Compute Module 3"*) lines="core_freq=250" ;;
        *) return ;;  # a Pi 5 (its own strip driver, no shared clock), or not a Pi
    esac
    if grep -q '^core_freq' "$file"; then
        say "kept the core clock already set in ${file#"$ROOT"}: $(grep '^core_freq' "$file" | tr '\n' ' ')"
        return
    fi
    echo "# The hourglass table's LED strip on SPI: a fixed core clock keeps its timing steady." >> "$file"
    for line in $lines; do
        echo "$line" >> "$file"
    done
    say "fixed the core clock for the SPI LED strip in ${file#"$ROOT"} ($lines): reboot once for it to take effect"
}

install_unit() {
    put 644 "$HERE/companion.service" "$UNIT"
    # The page's updates: the daemon hands a checked release file over; root's service installs it.
    put 644 "$HERE/companion-update.path" "$UPDATE_PATH"
    put 644 "$HERE/companion-update.service" "$UPDATE_SERVICE"
    # A Pi 5 drives the strip through the RP1's PIO: its device joins the ones the unit allows.
    if [ -e "$ROOT/dev/pio0" ]; then
        put_text 644 "$DROP_IN_DIR/pio.conf" <<EOF
# The Raspberry Pi 5's PIO, for the LED strip's pi5 driver (written by install.sh: /dev/pio0 exists).
[Service]
DeviceAllow=/dev/pio0 rw
EOF
    fi
    if [ -n "$ROOT" ] || [ "$OFFLINE" = yes ]; then
        systemctl --root "${ROOT:-/}" enable companion.service companion-update.path
    else
        systemctl daemon-reload
        systemctl enable companion.service
        systemctl enable --now companion-update.path
        systemctl reset-failed companion.service 2> /dev/null || true  # a fresh start after earlier failures
        if ! systemctl restart companion.service; then
            systemctl status --no-pager --lines 5 companion.service >&2 || true
            echo "install.sh: installed, but the service did not start: the lines above say why" \
                 "(docs/install.md, Troubleshooting)" >&2
            exit 1
        fi
        say "started: journalctl -u companion shows the address and the table PIN"
    fi
}

install_kiosk() {
    put 755 "$HERE/companion-kiosk" "$KIOSK_BIN"
    put 644 "$HERE/companion-kiosk.desktop" "$KIOSK_AUTOSTART"
    # The kiosk needs a desktop that logs in by itself (B4: desktop, automatic login) and never blanks.
    if command -v raspi-config > /dev/null; then
        live raspi-config nonint do_boot_behaviour B4 || say "no desktop to log in to: install Raspberry Pi OS with desktop"
        live raspi-config nonint do_blanking 1 || say "could not switch screen blanking off: sudo raspi-config, Display"
    else
        say "skipped: raspi-config nonint do_boot_behaviour B4 and do_blanking 1 (no raspi-config here)"
    fi
}

uninstall() {
    if [ -n "$ROOT" ] || [ "$OFFLINE" = yes ]; then
        systemctl --root "${ROOT:-/}" disable companion.service 2> /dev/null || true
        systemctl --root "${ROOT:-/}" disable companion-update.path 2> /dev/null || true
    elif [ -f "$UNIT" ]; then
        systemctl disable --now companion.service || true
        [ ! -f "$UPDATE_PATH" ] || systemctl disable --now companion-update.path || true
    fi
    made_folders=$(sed -n "s|^$MADE_FOLDERS||p" "$ROOT$UDEV_RULES" 2> /dev/null || true)
    for path in "$UNIT" "$UPDATE_PATH" "$UPDATE_SERVICE" "$DROP_IN_DIR" "$KIOSK_BIN" "$KIOSK_AUTOSTART" "$WRAPPER" "$UDEV_RULES"; do
        if [ -e "$ROOT$path" ]; then
            rm -rf "$ROOT$path"
            say "removed $path"
        fi
    done
    for folder in $(echo "$made_folders" | tr ' ' '\n' | sort -r); do  # the folders made for the rule alone
        rmdir "$ROOT$folder" 2> /dev/null || true
    done
    [ -n "$ROOT" ] || [ "$OFFLINE" = yes ] || { systemctl daemon-reload; systemctl reset-failed companion.service 2> /dev/null || true; }
    if [ -d "$ROOT$HOME_DIR" ]; then
        rm -rf "$ROOT$HOME_DIR"
        say "removed $HOME_DIR"
    fi
    if [ "$PURGE" = yes ]; then
        made=$(sed -n "s/^$MADE_GROUPS//p" "$ROOT$SYSUSERS" 2> /dev/null || true)
        for path in "$CONFIG_DIR" "$STATE_DIR" "$SYSUSERS"; do
            if [ -e "$ROOT$path" ]; then
                rm -rf "$ROOT$path"
                say "removed $path"
            fi
        done
        if [ -z "$ROOT" ] && id "$NAME" > /dev/null 2>&1; then
            userdel "$NAME"
            say "removed the user $NAME"
        fi
        rmdir "$ROOT$(dirname "$SYSUSERS")" 2> /dev/null || true  # made for our file alone, if now empty
        for group in $made; do
            if [ -z "$ROOT" ] && getent group "$group" > /dev/null; then
                groupdel "$group"
                say "removed the group $group"
            fi
        done
    else
        say "kept the config $CONFIG_DIR and the shows in $STATE_DIR (--purge removes them)"
    fi
}

if [ "$ACTION" = uninstall ]; then
    uninstall
    exit 0
fi
install_packages
install_user
install_program
install_wrapper
install_udev_rules
install_config
[ "$SPI" = no ] || install_spi
install_unit
[ "$KIOSK" = no ] || install_kiosk
say "done"
