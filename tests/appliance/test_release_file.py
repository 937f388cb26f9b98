"""A release file: made by one function, read back member for member; a hostile one (a lying list, `../`, a
link, a device, a member larger than the file, a file cut short) refused in one line naming the field, before
anything of it is written where it could be used, and without reading a huge member's bytes."""

import hashlib
import io
import json
import tarfile
import tracemalloc
from pathlib import Path

import pytest

from companion import release_file
from companion.errors import BadInput
from companion.release_file import MANIFEST, REQUIREMENTS, build_release, read_release

VERSION = "0.2.0"
LIBRARIES = {"flask-3.1.3-py3-none-any.whl": b"flask's wheel", "waitress-3.0.2-py3-none-any.whl": b"waitress"}
READ_ALLOWANCE = 4 * 1024 * 1024  # what refusing any release file may allocate at its peak


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def wheelhouse(tmp_path) -> Path:
    """Library wheels (their bytes are never opened by the release file's code), pinned by hash as the image's
    requirements are, one more that nothing pins, and the program's wheel."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    lines = []
    for name, data in LIBRARIES.items():
        (folder / name).write_bytes(data)
        lines.append(f"{name.split('-')[0]}=={name.split('-')[1]} \\\n    --hash=sha256:{sha(data)}")
    (folder / "unpinned-1.0-py3-none-any.whl").write_bytes(b"not in the lock")
    (folder / REQUIREMENTS).write_text("# the lock\n" + "\n".join(lines) + "\n")
    (tmp_path / f"companion-{VERSION}-py3-none-any.whl").write_bytes(b"the program")
    return folder


def built(wheelhouse: Path) -> Path:
    return build_release(wheelhouse.parent / f"companion-{VERSION}-py3-none-any.whl", wheelhouse,
                         wheelhouse / REQUIREMENTS, wheelhouse.parent / "out")


def test_a_release_file_reads_back_member_for_member(wheelhouse, tmp_path):
    path = built(wheelhouse)
    assert path.name == f"companion-{VERSION}.tar"
    assert Path(f"{path}.sha256").read_text() == f"{sha(path.read_bytes())}  {path.name}\n"  # sha256sum -c reads it
    checked = read_release(path, tmp_path / "unpacked")
    manifest = tarfile.open(path).extractfile(MANIFEST).read()
    assert checked.name == f"{VERSION}-{sha(manifest)[:12]}" and checked.version == VERSION
    assert checked.program.read_bytes() == b"the program"
    assert {p.name: p.read_bytes() for p in checked.folder.glob("*.whl")} == {
        **LIBRARIES, checked.program.name: b"the program"}  # the unpinned wheel was left out
    assert checked.requirements.read_text() == (wheelhouse / REQUIREMENTS).read_text()
    first = build_release(checked.program, wheelhouse, wheelhouse / REQUIREMENTS, tmp_path / "again")
    assert first.read_bytes() == path.read_bytes()  # the same inputs make the same file


def test_a_library_pinned_without_its_wheel_is_never_built_into_a_release(wheelhouse):
    (wheelhouse / "waitress-3.0.2-py3-none-any.whl").unlink()
    with pytest.raises(ValueError, match="no wheel in .* for waitress"):
        built(wheelhouse)


def members(path: Path) -> list[tuple[tarfile.TarInfo, bytes]]:
    with tarfile.open(path) as tar:
        return [(m, tar.extractfile(m).read()) for m in tar]


def packed(entries, tmp_path: Path) -> Path:
    """A tar of (header, data) as given, in a file of its own: headers and lists the builder would never write."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    path = tmp_path / f"hostile-{len(list(tmp_path.glob('hostile-*')))}.tar"
    path.write_bytes(out.getvalue())
    return path


def listed(entries, change) -> list:
    """The entries with their list changed by change(manifest), the list's header sized to fit."""
    (info, raw), rest = entries[0], entries[1:]
    manifest = json.loads(raw)
    change(manifest)
    raw = json.dumps(manifest).encode()
    info = tarfile.TarInfo(MANIFEST)
    info.size = len(raw)
    return [(info, raw), *rest]


def entry(name: str, data: bytes = b"x", kind=tarfile.REGTYPE, **more) -> tuple:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, len(data) if kind == tarfile.REGTYPE else 0
    for key, value in more.items():
        setattr(info, key, value)
    return info, data if kind == tarfile.REGTYPE else None


def refused(path: Path, into: Path) -> BadInput:
    tracemalloc.start()
    try:
        with pytest.raises(BadInput) as caught:
            read_release(path, into)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < READ_ALLOWANCE, f"refusing {path.name} allocated {peak} bytes"
    assert "\n" not in str(caught.value) and str(caught.value).startswith("release")
    return caught.value


def hostile_files(good: Path, tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Each way a release file can lie, with the field its refusal must name."""
    entries = members(good)
    wheel = "flask-3.1.3-py3-none-any.whl"
    at = next(i for i, (m, _) in enumerate(entries) if m.name == wheel)
    lying = list(entries)
    lying[at] = entry(wheel, b"flask's wheel, changed after the list was made")
    climbing = listed(entries, lambda m: m["files"].update({"../evil.whl": sha(b"x")}))
    bytes_of = {
        "a member changed after its list was made": (packed(lying, tmp_path), f"release.files.{wheel}"),
        "a list that names ../": (packed(climbing + [entry("../evil.whl")], tmp_path),
                                  "release.companion-release.json.files.../evil.whl"),
        "a member named ../ the list does not name": (packed(entries + [entry("../evil.whl")], tmp_path),
                                                      "release.files.../evil.whl"),
        "a member in a folder": (packed(entries + [entry("wheels/x.whl")], tmp_path), "release.files.wheels/x.whl"),
        "a link": (packed(entries[:1] + [entry(wheel, kind=tarfile.SYMTYPE, linkname="/etc/shadow")] + entries[2:],
                          tmp_path), f"release.files.{wheel}"),
        "a hard link": (packed(entries + [entry("x.whl", kind=tarfile.LNKTYPE, linkname=wheel)], tmp_path),
                        "release.files.x.whl"),
        "a device": (packed(entries + [entry("tty.whl", kind=tarfile.CHRTYPE, devmajor=4, devminor=1)], tmp_path),
                     "release.files.tty.whl"),
        "a member unlisted": (packed(entries + [entry("extra-1.0-py3-none-any.whl")], tmp_path),
                              "release.files.extra-1.0-py3-none-any.whl"),
        "a list that is not first": (packed(entries[1:] + entries[:1], tmp_path), "release"),
        "a list that is not JSON": (packed([entry(MANIFEST, b"{not json")] + entries[1:], tmp_path),
                                    "release.companion-release.json"),
        "a program that is not this version's": (
            packed(listed(entries, lambda m: m.update(program="companion-9.9-py3-none-any.whl")), tmp_path),
            "release.companion-release.json.program"),
    }
    return bytes_of


def test_hostile_release_files_are_refused_in_one_line_naming_the_field(wheelhouse, tmp_path):
    good = built(wheelhouse)
    for why, (path, field) in hostile_files(good, tmp_path).items():
        into = tmp_path / f"into-{len(why)}"
        error = refused(path, into)
        assert error.field == field, (why, str(error))
        assert getattr(error, "error_code", "").startswith("errors."), why
        assert not (tmp_path / "evil.whl").exists() and not list(tmp_path.glob("into-*/*.whl.*")), why


def test_a_member_larger_than_the_file_is_refused_before_a_byte_of_it_is_read(wheelhouse, tmp_path):
    good = built(wheelhouse).read_bytes()
    # The program's wheel's header says 2 GB: nothing is read, nothing allocated for it.
    with tarfile.open(fileobj=io.BytesIO(good)) as tar:
        first = tar.next()
        second = tar.next()
    header = bytearray(good[second.offset:second.offset + tarfile.BLOCKSIZE])
    huge = tarfile.TarInfo(second.name)
    huge.size, huge.mode = 2 * 1024 ** 3, second.mode
    header[:] = huge.tobuf(tarfile.USTAR_FORMAT)
    path = tmp_path / "huge.tar"
    path.write_bytes(good[:second.offset] + bytes(header) + good[second.offset + tarfile.BLOCKSIZE:])
    error = refused(path, tmp_path / "into")
    assert error.field == f"release.files.{second.name}" and error.error_code == "errors.release.member_size"
    assert not (tmp_path / "into" / second.name).exists()
    assert first.name == MANIFEST


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.99])
def test_a_release_file_cut_short_is_refused(wheelhouse, tmp_path, keep):
    """Cut within its members (what follows the last member is the tar's padding: a file cut there is whole)."""
    good = built(wheelhouse)
    last = members(good)[-1][0]
    path = tmp_path / "cut.tar"
    path.write_bytes(good.read_bytes()[:int((last.offset_data + last.size) * keep)])
    error = refused(path, tmp_path / "into")
    assert error.error_code in ("errors.release.not_archive", "errors.release.member_size", "errors.release.missing")


def test_a_file_over_the_limit_is_refused_unread(wheelhouse, tmp_path, monkeypatch):
    path = built(wheelhouse)
    monkeypatch.setattr(release_file, "MAX_RELEASE_BYTES", path.stat().st_size - 1)
    error = refused(path, tmp_path / "into")
    assert error.error_code == "errors.release.too_big" and not (tmp_path / "into").exists()


def test_a_pax_header_is_refused_before_its_data_is_read(wheelhouse, tmp_path):
    entries = members(built(wheelhouse))
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in entries:
            info.pax_headers = {"comment": "x" * 1000}
            tar.addfile(info, io.BytesIO(data))
    path = tmp_path / "pax.tar"
    path.write_bytes(out.getvalue())
    assert refused(path, tmp_path / "into").error_code == "errors.release.member"


def test_companion_update_refuses_a_forged_release_file_before_anything_reaches_the_releases(wheelhouse, tmp_path):
    from companion.cli.common import Refusal
    from companion.cli.update import Machine

    data = bytearray(built(wheelhouse).read_bytes())
    at = data.index(b"flask's wheel")
    data[at:at + 5] = b"FLASK"
    forged = tmp_path / "companion-0.2.0.tar"
    forged.write_bytes(bytes(data))
    with pytest.raises(Refusal) as caught:
        Machine(config=None, home=tmp_path / "opt").install(str(forged))
    assert str(caught.value) == (f"{forged}: release.files.flask-3.1.3-py3-none-any.whl: does not match the "
                                 "release's list of files: the file was changed after it was made")
    assert not (tmp_path / "opt").exists()
