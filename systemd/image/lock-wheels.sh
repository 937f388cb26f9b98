#!/bin/sh
# Pin the program's libraries for the image: every wheel the table runs, by exact version and by the
# sha256 of its file for each board's processor, written to systemd/image/requirements.txt. The image's
# build installs from that file alone (--require-hashes --only-binary=:all:), so the same file gives the
# same libraries. Run it again (and commit the file) to take newer releases.
#
#   systemd/image/lock-wheels.sh
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
SOURCE=$(dirname "$(dirname "$HERE")")
PYTHON_VERSION=3.11  # bookworm's python3
# Each processor the image is built for, as pip names its wheels' platform (glibc 2.36: bookworm's).
MACHINES="aarch64 x86_64"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for machine in $MACHINES; do
    platforms="--platform manylinux2014_$machine"
    for glibc in 17 27 28 31 34 35 36; do
        platforms="$platforms --platform manylinux_2_${glibc}_$machine"
    done
    # shellcheck disable=SC2086  # the platform options are meant to split into words
    python3 -m pip download --quiet --disable-pip-version-check --only-binary=:all: $platforms \
        --python-version "$PYTHON_VERSION" --implementation cp --abi "cp$(echo "$PYTHON_VERSION" | tr -d .)" \
        --abi abi3 --abi none --dest "$scratch/$machine" "${SOURCE}[pi]" "setuptools>=68"
done

# shellcheck disable=SC2086  # one argument per processor
python3 - "$scratch" "$HERE/requirements.txt" $MACHINES <<'PY'
import hashlib, re, sys
from collections import defaultdict
from pathlib import Path

scratch, out, machines = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
found = defaultdict(set)  # (name, version) -> hashes
for machine in machines:
    for wheel in sorted((scratch / machine).glob("*.whl")):
        name, version = wheel.name.split("-")[:2]
        found[(re.sub(r"[-_.]+", "-", name).lower(), version)].add(hashlib.sha256(wheel.read_bytes()).hexdigest())
names = defaultdict(set)
for name, version in found:
    names[name].add(version)
split = {n: v for n, v in names.items() if len(v) > 1}
if split:
    sys.exit(f"lock-wheels.sh: the processors resolved different versions: {split}")
lines = ["# The image's libraries: exact versions and the sha256 of each wheel, for every processor it is built for.",
         "# Written by systemd/image/lock-wheels.sh; installed with --require-hashes --only-binary=:all:."]
for (name, version), hashes in sorted(found.items()):
    if name == "companion":
        continue  # the program itself is built from the checkout
    lines.append(f"{name}=={version} \\")
    lines.extend(f"    --hash=sha256:{h} \\" for h in sorted(hashes)[:-1])
    lines.append(f"    --hash=sha256:{sorted(hashes)[-1]}")
out.write_text("\n".join(lines) + "\n")
print(f"lock-wheels.sh: wrote {out} ({len(found) - 1} libraries)")
PY
