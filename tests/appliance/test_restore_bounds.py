"""A backup is refused before anything in it is read whole: headers that would make the reader hold their
data (a pax or GNU long-name header of hundreds of MB that gzip packs into a few hundred KB), headers chained
without end, sparse members. Measured as memory allocated while reading, not as time."""

import io
import tarfile
import tracemalloc

import pytest

from companion.appliance.backup import DATABASE, MANIFEST, read_backup
from companion.errors import BadInput

BOMB_BYTES = 64 * 1024 * 1024  # a header's data gzip packs to ~64 KB
READ_ALLOWANCE = 4 * 1024 * 1024  # what reading any refused archive may allocate at its peak


def header_bomb(kind: bytes) -> bytes:
    """A gzipped tar whose first header announces BOMB_BYTES of its own data (zeros) before any member."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        info = tarfile.TarInfo("x")
        info.type, info.size = kind, BOMB_BYTES
        tar.fileobj.write(info.tobuf(tarfile.USTAR_FORMAT))
        for _ in range(BOMB_BYTES // (1 << 20)):
            tar.fileobj.write(bytes(1 << 20))
        tar.offset += tarfile.BLOCKSIZE + BOMB_BYTES
    return out.getvalue()


def chained_pax(count: int) -> bytes:
    """`count` small pax headers one after another, each naming the next member: tarfile follows them in turn."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        record = b"12 path=abc\n"
        info = tarfile.TarInfo("x")
        info.type, info.size = tarfile.XHDTYPE, len(record)
        block = info.tobuf(tarfile.USTAR_FORMAT) + record + bytes(tarfile.BLOCKSIZE - len(record))
        for _ in range(count):
            tar.fileobj.write(block)
        tar.offset += count * len(block)
    return out.getvalue()


def refused_within_allowance(data: bytes) -> BadInput:
    tracemalloc.start()
    try:
        with pytest.raises(BadInput) as caught:
            read_backup(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < READ_ALLOWANCE, f"reading a {len(data)} byte archive allocated {peak} bytes"
    return caught.value


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.GNUTYPE_LONGNAME,
                                  tarfile.GNUTYPE_LONGLINK])
def test_a_header_that_announces_megabytes_is_refused_before_its_data_is_read(kind):
    data = header_bomb(kind)
    assert len(data) < 200 * 1024
    e = refused_within_allowance(data)
    assert e.error_code == "errors.backup.member" and str(e).count("\n") == 0


def test_headers_chained_without_end_are_refused_at_the_first():
    e = refused_within_allowance(chained_pax(5000))
    assert e.error_code == "errors.backup.member"


def test_a_sparse_member_is_refused():
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        info = tarfile.TarInfo(DATABASE)
        info.type = tarfile.GNUTYPE_SPARSE
        tar.fileobj.write(info.tobuf(tarfile.GNU_FORMAT))
        tar.offset += tarfile.BLOCKSIZE
    assert refused_within_allowance(out.getvalue()).error_code == "errors.backup.member"


def test_a_backup_the_table_makes_holds_plain_file_headers_only(tmp_path):
    from companion.appliance.backup import make_backup

    (tmp_path / "config.toml").write_text('[table]\nname = "Küche ☕"\n')
    with tarfile.open(fileobj=io.BytesIO(make_backup(tmp_path / "config.toml", tmp_path / "none")), mode="r:gz") as tar:
        assert [(m.name, m.type) for m in tar] == [(MANIFEST, tarfile.REGTYPE), ("config.toml", tarfile.REGTYPE)]
