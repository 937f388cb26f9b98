"""A release file: the program and the hashed wheels of its libraries in one file, to update a table offline.

`companion-VERSION.tar` is a plain (uncompressed: wheels are zip files
already) tar of regular files, flat, no folders: `companion-release.json`
first (the format, the version, the program's wheel, each member's SHA-256),
then the program's wheel, `requirements.txt` (each library pinned with its
`--hash` lines, as the card image's) and the library wheels. The release's
name is its version and the first 12 hex digits of the SHA-256 of that list,
which holds every member's digest: the same file is the same release.
docs/formats.md describes it.

Reading one checks everything as it goes, before a byte reaches the releases
folder: the file's size, every header before its data is read (a plain file
of a name of the list, no `/`, no link, no device, a size within what is
left), each member hashed as it is copied into a work folder and compared
with the list; a refusal is one line naming the field (`release.files.x.whl`).

It uses the standard library alone (and the one field reader), so a checkout
builds one before anything is installed: `python3 -m companion.release_file
build --wheels DIR --out DIR` from the checkout.

>>> release_name({"version": "0.2.0"}, b"{}")
'0.2.0-44136fa355b3'
"""

import hashlib
import io
import json
import os
import re
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from companion import fields, jsonin
from companion.archives import plain_headers
from companion.errors import BadInput

FORMAT = 1
MANIFEST = "companion-release.json"  # the first member: the list every other member is checked against
REQUIREMENTS = "requirements.txt"  # the libraries pinned by hash, as companion.release installs them
MAX_RELEASE_BYTES = 64 * 1024 * 1024  # a release file larger than this is refused unread (a table's is ~7 MB)
MAX_MANIFEST_BYTES = 64 * 1024  # the list: a few hundred members at most
MAX_MEMBERS = 200  # wheels and the two files: a table's libraries are a few dozen
MAX_MEMBER_NAME = 100  # a plain tar header's name field: no long-name header is ever read
COPY_BYTES = 1 << 20  # a member is hashed and copied this much at a time, never held whole
FIELD = "release"  # the path a refusal names: release.files.flask-3.1.3-py3-none-any.whl, ...
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")  # a member's name: a file of the folder, never a path
VERSION = re.compile(r"[0-9][0-9A-Za-z.+!-]{0,39}")  # a version as pyproject.toml's (PEP 440), short


@dataclass(frozen=True)
class Release:
    """A release file read and checked, its members copied into `folder` (None: checked alone): its name, version
    and program wheel."""

    name: str
    version: str
    folder: Path | None
    program: Path

    @property
    def wheels(self) -> Path:
        return self.folder

    @property
    def requirements(self) -> Path:
        return self.folder / REQUIREMENTS


def release_name(manifest: dict, raw: bytes) -> str:
    """The release a checked list names: its version and its own digest."""
    return f"{manifest['version']}-{hashlib.sha256(raw).hexdigest()[:12]}"


def refused(field: str, problem: str, *, code: str, **params) -> BadInput:
    return BadInput(fields.at(FIELD, field) if field else FIELD, problem, code=code, params=params)


def read_release(path: Path, into: Path | None = None) -> Release:
    """The release file at `path` checked, its members copied into the folder `into` as they are hashed (None:
    checked alone, nothing written); or BadInput naming what is wrong (what was copied stays in `into`, the
    caller's work folder to throw away)."""
    path, into = Path(path), Path(into) if into is not None else None
    size = path.stat().st_size
    if size > MAX_RELEASE_BYTES:
        raise too_big(size)
    try:
        with path.open("rb") as f, tarfile.open(fileobj=f, mode="r:", tarinfo=_PlainFileHeader) as tar:
            return _read(tar, size, into)
    except (tarfile.TarError, EOFError, UnicodeDecodeError):
        raise refused("", "not a release file, or cut short (not a whole tar archive)",
                      code="errors.release.not_archive") from None


def too_big(size: int) -> BadInput:
    return refused("", f"{size} bytes is larger than a release file can be ({MAX_RELEASE_BYTES} bytes)",
                   code="errors.release.too_big", limit=MAX_RELEASE_BYTES)


def _read(tar: tarfile.TarFile, size: int, into: Path) -> Release:
    members = iter(tar)
    first = next(members, None)
    if first is None or first.name != MANIFEST:
        raise refused("", f"not a release file ({MANIFEST} is not its first member)",
                      code="errors.release.not_archive")
    if first.size > MAX_MANIFEST_BYTES:
        raise refused(MANIFEST, f"{first.size} bytes is longer than a release's list can be",
                      code="errors.release.member_size", file=MANIFEST)
    raw = tar.extractfile(first).read()
    manifest = read_manifest(raw)
    listed, seen = manifest["files"], set()
    if into is not None:
        into.mkdir(parents=True, exist_ok=True)
    for member in members:
        name = member.name
        if name not in listed or name in seen:
            raise _not_listed(name)
        if member.size > size - member.offset_data:
            raise refused(fields.at("files", name), f"announces {member.size} bytes, more than the file holds",
                          code="errors.release.member_size", file=name)
        digest = _copy(tar.extractfile(member), member.size, into / name if into is not None else None)
        if digest != listed[name]:
            raise refused(fields.at("files", name), "does not match the release's list of files: the file was "
                          "changed after it was made", code="errors.release.changed", file=name)
        seen.add(name)
    missing = sorted(set(listed) - seen)
    if missing:
        raise refused(fields.at("files", missing[0]), "listed but not in the file (cut short?)",
                      code="errors.release.missing", file=missing[0])
    program = into / manifest["program"] if into is not None else Path(manifest["program"])
    return Release(release_name(manifest, raw), manifest["version"], into, program)


def _copy(source, size: int, target: Path | None) -> str:
    """Copy `size` bytes into a new file `target` (None: nowhere), a piece at a time; their SHA-256."""
    digest, left = hashlib.sha256(), size
    # x: a name twice, or a link planted in the work folder, is never written through
    with open(target, "xb") if target is not None else open(os.devnull, "wb") as out:
        while left:
            piece = source.read(min(COPY_BYTES, left))
            if not piece:
                raise EOFError("cut short")
            digest.update(piece)
            out.write(piece)
            left -= len(piece)
    return digest.hexdigest()


def _not_listed(name: str) -> BadInput:
    return refused(fields.at("files", fields.shown(name)[1:-1]), "not a member the release's list names (each "
                   "listed file once, plain, in no folder)", code="errors.release.member", file=name)


# A plain file of a plain name (no `/`, so no `../`), or refused before tarfile reads anything more.
_PlainFileHeader = plain_headers(_not_listed,
                                 lambda name: NAME.fullmatch(name) is not None and len(name) <= MAX_MEMBER_NAME)


def read_manifest(raw: bytes) -> dict:
    """The release's list, every field checked by the one field reader."""
    where = MANIFEST
    try:
        record = fields.record(jsonin.parse(raw, where), where, ("format", "version", "program", "files"),
                               ("format", "version", "program", "files"))
        fields.choice(record["format"], fields.at(where, "format"), (FORMAT,))
        version = fields.line(record["version"], fields.at(where, "version"), 40)
        if not VERSION.fullmatch(version):
            raise BadInput(fields.at(where, "version"), f"not a version, got {fields.shown(version)}",
                           code="errors.release.manifest")
        listed = fields.mapping(record["files"], fields.at(where, "files"))
        fields.items(list(listed), fields.at(where, "files"), 2, MAX_MEMBERS - 1)
        for name, digest in listed.items():
            field = fields.at(fields.at(where, "files"), name)
            if name == MANIFEST or not NAME.fullmatch(name) or len(name) > MAX_MEMBER_NAME \
                    or not (name == REQUIREMENTS or name.endswith(".whl")):
                raise BadInput(field, "not a file a release holds (a wheel or requirements.txt, a plain name)",
                               code="errors.release.member", params={"file": name})
            if not re.fullmatch(r"[0-9a-f]{64}", fields.line(digest, field, 64)):
                raise BadInput(field, "expected a SHA-256 in hex", code="errors.release.manifest")
        program = fields.choice(record["program"], fields.at(where, "program"), (program_wheel(version),))
        for needed in (program, REQUIREMENTS):
            if needed not in listed:
                raise BadInput(fields.at(fields.at(where, "files"), needed), "missing", code="errors.missing")
    except BadInput as e:
        raise e.within(FIELD) from None
    return record


def program_wheel(version: str) -> str:
    """The program's own wheel in a release of `version` (pure Python: one wheel for every board)."""
    return f"companion-{version}-py3-none-any.whl"


# ---- making one ---------------------------------------------------------------------------------------------

def build_release(program: Path, wheels: Path, requirements: Path, out: Path) -> Path:
    """The release file of the program's wheel `program` and the library wheels in `wheels` that
    `requirements` pins by hash (each pinned library must have one), written into the folder `out` with its
    checksum beside it (`NAME.tar.sha256`, as sha256sum writes it); its path. The same inputs give the same bytes.
    """
    program, requirements = Path(program), Path(requirements)
    version = program.name.split("-")[1] if program.name.startswith("companion-") else ""
    if program.name != program_wheel(version):
        raise ValueError(f"{program}: not the program's wheel (companion-VERSION-py3-none-any.whl)")
    pinned = pinned_hashes(requirements.read_text("utf-8"))
    chosen = {}
    for wheel in sorted(Path(wheels).glob("*.whl")):
        digest = _file_sha256(wheel)
        if wheel.name != program.name and digest in pinned:
            chosen[wheel.name] = (wheel, digest)
    lacking = sorted(set(pinned.values()) - {pinned[digest] for _, digest in chosen.values()})
    if lacking:
        raise ValueError(f"{requirements}: no wheel in {wheels} for {', '.join(lacking)}")
    members = {program.name: (program, _file_sha256(program)),
               REQUIREMENTS: (requirements, _file_sha256(requirements)), **chosen}
    manifest = {"format": FORMAT, "version": version, "program": program.name,
                "files": {name: digest for name, (_, digest) in sorted(members.items())}}
    raw = json.dumps(manifest, indent=1, sort_keys=True).encode() + b"\n"
    read_manifest(raw)  # what a table would refuse is never written
    Path(out).mkdir(parents=True, exist_ok=True)
    target = Path(out) / f"companion-{version}.tar"
    with tempfile.NamedTemporaryFile(dir=out, prefix=f".{target.name}.", delete=False) as f:
        with tarfile.open(fileobj=f, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            _add(tar, MANIFEST, io.BytesIO(raw), len(raw))
            for name, (path, _) in sorted(members.items()):
                with open(path, "rb") as data:
                    _add(tar, name, data, path.stat().st_size)
    os.chmod(f.name, 0o644)  # a file to publish: anyone may read it
    os.replace(f.name, target)
    Path(f"{target}.sha256").write_text(f"{_file_sha256(target)}  {target.name}\n")
    return target


def _add(tar: tarfile.TarFile, name: str, data, size: int) -> None:
    info = tarfile.TarInfo(name)  # no owner, no time: the same inputs are the same file
    info.size, info.mode, info.mtime = size, 0o644, 0
    tar.addfile(info, data)


def pinned_hashes(text: str) -> dict[str, str]:
    """Each `--hash=sha256:` of a requirements file, with the library it pins (normalised name)."""
    found, current = {}, None
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if not line.startswith("--"):
            current = pinned_name(re.split(r"[=<>!~;\[ \\]", line, maxsplit=1)[0])
        for digest in re.findall(r"--hash=sha256:([0-9a-f]{64})", line):
            found[digest] = current
    return found


def pinned_name(text: str) -> str:
    """A library's name as a requirements file may spell it, in its one form (`Paho_MQTT` -> paho-mqtt)."""
    return re.sub(r"[-_.]+", "-", text).lower()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while piece := f.read(COPY_BYTES):
            digest.update(piece)
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    """build --wheels DIR [--requirements FILE] --out DIR [--program WHEEL] [--source CHECKOUT]: the release
    file of a checkout (its wheel built offline from DIR's build tools) or of a wheel. One line on failure."""
    import argparse

    parser = argparse.ArgumentParser(prog="python3 -m companion.release_file")
    parser.add_argument("step", choices=("build",))
    parser.add_argument("--wheels", type=Path, required=True, help="the library wheels (and requirements.txt)")
    parser.add_argument("--requirements", type=Path, help="the hashes (default: WHEELS/requirements.txt)")
    parser.add_argument("--out", type=Path, required=True, help="the folder the release file is written into")
    parser.add_argument("--program", type=Path, help="the program's wheel (default: built from --source)")
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout (default: this one)")
    args = parser.parse_args(argv)
    try:
        print(build_from(args.source, args.wheels, args.requirements, args.out, program=args.program))
    except (ValueError, OSError) as e:
        print(f"release_file: {e}", file=sys.stderr)
        return 2
    return 0


def build_from(source: Path, wheels: Path, requirements: Path | None, out: Path, *, program: Path | None = None,
               python: str = sys.executable) -> Path:
    """The one way to make a release file: the checkout's wheel (or `program`), the wheels `requirements`
    pins (default: the wheelhouse's own requirements.txt); its path in `out`."""
    from companion import release

    requirements = Path(requirements or Path(wheels) / REQUIREMENTS)
    if program is not None:
        return build_release(program, wheels, requirements, out)
    with tempfile.TemporaryDirectory(prefix="companion-release-file-") as work:
        try:
            wheel = release.build_wheel(source, Path(work), python, Path(wheels))
        except release.ReleaseError as e:
            raise ValueError(str(e)) from None
        return build_release(wheel, wheels, requirements, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
