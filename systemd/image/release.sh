#!/bin/sh
# The release an owner downloads, in one folder: the Raspberry Pi's card (.img.xz), the release file that
# updates a table from the phone, Raspberry Pi Imager's repository file and the checksums of them all. Put the
# folder on any web server at URL; Imager adds it as a custom repository (docs/image.md, "A release").
#
#   sudo systemd/image/release.sh --url URL [--out DIR] [build.sh's options: --cache DIR --mirror URL ...]
#
# DIR is build/release/VERSION unless given; the card is built by build.sh (about an hour the first time).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
SOURCE=$(dirname "$(dirname "$HERE")")
URL=""
OUT=""

fail() {
    echo "release.sh: $*" >&2
    exit 2
}

say() {
    echo "release.sh: $*" >&2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --url) [ $# -ge 2 ] || fail "--url needs the folder's address, http(s)://HOST/PATH"; URL=$2; shift ;;
        --out) [ $# -ge 2 ] || fail "--out needs a directory"; OUT=$2; shift ;;
        --arch|--root-only|--no-xz) fail "$1: a release is the Pi's card, compressed (build.sh for anything else)" ;;
        -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
    shift
done
[ -n "$URL" ] || fail "give --url: where the folder will be served, so Imager can fetch the card"
VERSION=$(sed -n 's/^version *= *"\([^"]*\)".*/\1/p' "$SOURCE/pyproject.toml" | head -n 1)
OUT=${OUT:-$SOURCE/build/release/$VERSION}
# The release's day: its commit's, so the same checkout lists the same date.
RELEASED=$(git -C "$SOURCE" log -1 --format=%cd --date=format:%Y-%m-%d 2> /dev/null || date -u +%Y-%m-%d)

# The release file an owner uploads on the maintenance page (or gives `companion update FILE`): the program and
# the card's hashed wheels, with a checksum. Its format and recipe are companion/release_file.py's; this is the
# one place that calls it. $1: the release folder, $2: the card's wheelhouse (with its requirements.txt).
release_file() {
    if [ -f "$SOURCE/companion/release_file.py" ]; then
        made=$(cd "$SOURCE" && python3 -m companion.release_file build --wheels "$2" --out "$1") ||
            fail "the release file could not be made (the line above says why)"
        say "release file: $made"
    else
        say "no release file: this checkout has no companion/release_file.py yet (the folder holds the card)"
    fi
}

started=$(date +%s)
mkdir -p "$OUT"
rm -f "$OUT"/companion-*.img.xz "$OUT/SHA256SUMS" "$OUT/companion-imager.json"
"$HERE/build.sh" --arch arm64 --out "$OUT/.build" --wheels-out "$OUT/.build/wheels" "$@"
mv "$OUT/.build/companion-arm64.img.xz" "$OUT/"
release_file "$OUT" "$OUT/.build/wheels"
rm -rf "$OUT/.build"
python3 "$SOURCE/companion/release_folder.py" "$OUT" "$URL" "$RELEASED"
say "release $VERSION in $OUT ($(du -sm "$OUT" | cut -f1) MiB) in $(( $(date +%s) - started )) s: serve it at $URL"
