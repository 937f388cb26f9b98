"""The table's backup: a round trip through the archive, and archives refused with a named reason before
anything is written (changed after it was made, a config the table would refuse, not a database, too big)."""

import hashlib
import io
import json
import subprocess
import sys
import tarfile

import pytest

from companion.appliance.backup import (CONFIG, DATABASE, MANIFEST, MAX_BACKUP_BYTES, backup_name, keep_newest,
                                        make_backup, read_backup, restore)
from companion.errors import BadInput
from companion.records.database import Database
from companion.records.schema import TABLE_FILE

CONFIG_TEXT = '# the kitchen table\n[table]\nname = "Kitchen"\n\n[timers.red]\nsource = "emulated"\nduration = 31.5\n'


@pytest.fixture
def table(tmp_path):
    """A table's files: a config with a calibrated glass, and a database with a player, open (its WAL live)."""
    config, database = tmp_path / "etc" / "config.toml", tmp_path / "var" / "companion.sqlite3"
    config.parent.mkdir()
    config.write_text(CONFIG_TEXT)
    db = Database(database, TABLE_FILE)
    with db.transaction() as tx:
        tx.execute("INSERT INTO players (position, name) VALUES (1, 'Aiko')")
    yield config, database, db
    db.close()


def players(database) -> list[str]:
    db = Database(database, TABLE_FILE)
    try:
        return [row["name"] for row in db.read("SELECT name FROM players ORDER BY position")]
    finally:
        db.close()


def members(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar}


def archive(files: dict[str, bytes], manifest: dict | None = None) -> bytes:
    """An archive of `files`, with a list whose digests match them (unless `manifest` is given)."""
    listed = {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}
    manifest = manifest or {"format": 1, "made": "2026-01-02T03:04:05Z", "files": listed}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in [(MANIFEST, json.dumps(manifest).encode()), *files.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def refusal(data: bytes) -> BadInput:
    with pytest.raises(BadInput) as caught:
        read_backup(data)
    return caught.value


def test_a_backup_restored_over_a_changed_table_brings_back_its_config_and_database(table):
    config, database, db = table
    data = make_backup(config, database)
    db.close()
    config.write_text('[table]\nname = "Changed"\n')
    Database(database, TABLE_FILE).close()
    other = Database(database, TABLE_FILE)
    with other.transaction() as tx:
        tx.execute("UPDATE players SET name = 'Someone else'")
    other.close()
    replaced = restore(read_backup(data), config, database)
    assert replaced == [str(config), str(database)]
    assert config.read_text() == CONFIG_TEXT  # comments and the calibration included
    assert players(database) == ["Aiko"]
    assert sorted(p.name for p in database.parent.iterdir() if p.name.startswith(".")) == []  # nothing left beside


def test_the_archive_holds_the_list_and_the_two_files(table):
    config, database, _ = table
    files = members(make_backup(config, database, now=0))
    assert sorted(files) == sorted([MANIFEST, CONFIG, DATABASE])
    manifest = json.loads(files[MANIFEST])
    assert manifest["made"] == "1970-01-01T00:00:00Z" and manifest["format"] == 1
    assert manifest["files"][DATABASE] == hashlib.sha256(files[DATABASE]).hexdigest()
    assert files[DATABASE].startswith(b"SQLite format 3\0")


def test_an_archive_changed_after_it_was_made_is_refused_and_nothing_is_written(table):
    config, database, _ = table
    files = members(make_backup(config, database))
    manifest = json.loads(files.pop(MANIFEST))
    files[CONFIG] = files[CONFIG].replace(b"31.5", b"30.5")
    e = refusal(archive(files, manifest))
    assert e.field == "backup.config.toml" and e.error_code == "errors.backup.changed"
    assert config.read_text() == CONFIG_TEXT


@pytest.mark.parametrize("files, field, code", [
    ({CONFIG: b'[table]\nname = "x"\n[timers.red]\nduration = 300\n'}, "backup.config.toml.timers.red.duration",
     "errors.setup.calibration"),
    ({CONFIG: b"[table\n"}, "backup.config.toml", "errors.backup.config"),
    ({DATABASE: b"not a database" * 100}, "backup.companion.sqlite3", "errors.backup.database"),
    ({"passwd": b"root::0:0::/:/bin/sh"}, "backup.passwd", "errors.backup.member"),
])
def test_a_file_the_table_could_not_use_is_refused_naming_it(files, field, code):
    e = refusal(archive(files))
    assert (e.field, e.error_code) == (field, code), str(e)


def test_a_database_of_a_newer_program_is_refused(tmp_path):
    path = tmp_path / "newer.sqlite3"
    Database(path, TABLE_FILE).close()
    import sqlite3
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {TABLE_FILE.latest + 1}")
    db.close()
    e = refusal(archive({DATABASE: path.read_bytes()}))
    assert e.error_code == "errors.backup.database" and "newer than this program" in str(e)


@pytest.mark.parametrize("change, reason", [
    ("DROP TABLE checkpoints; DROP TABLE journal; DROP TRIGGER pad_on_insert; DROP TRIGGER pad_on_delete;"
     " DROP TRIGGER pad_on_update; DROP TABLE shows", "no such table: main.shows"),
    ("CREATE TRIGGER no_more BEFORE INSERT ON players BEGIN SELECT RAISE(ABORT, 'no'); END", "trigger no_more"),
    ("CREATE VIEW everyone AS SELECT * FROM players", "view everyone"),
    ("CREATE TABLE notes (text TEXT)", "table notes"),
])
def test_a_database_not_of_its_versions_shape_is_refused_before_it_replaces_anything(tmp_path, change, reason):
    """A version 5 file (as the table wrote it before) that a start would fail on, or that refuses writes."""
    import sqlite3

    path = tmp_path / "changed.sqlite3"
    Database(path, TABLE_FILE).close()
    db = sqlite3.connect(path)
    db.executescript(change + "; PRAGMA user_version = 5;")
    db.close()
    e = refusal(archive({DATABASE: path.read_bytes()}))
    assert e.error_code == "errors.backup.database" and reason in str(e), str(e)


def running_show_file(path, event_id: str):
    """A table file made during a show: show 1 won, show 2 (of `event_id` in its row) still running."""
    import sqlite3

    from companion.records import Store
    from companion.records.fakes import played_show

    store = Store(path)
    played_show(store, "night", "win", 3)
    played_show(store, "day", "loss")
    store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE shows SET outcome = 'running', ended = NULL, event_id = ? WHERE id = 2", (event_id,))
    db.commit()
    db.close()


def test_a_backup_made_during_a_show_is_taken_and_its_show_is_still_running_after_the_restore(tmp_path):
    running_show_file(tmp_path / "made.sqlite3", "day")
    backup = read_backup(archive({DATABASE: (tmp_path / "made.sqlite3").read_bytes()}))
    restore(backup, None, tmp_path / "t.sqlite3")
    db = Database(tmp_path / "t.sqlite3", TABLE_FILE)
    try:
        assert [tuple(r) for r in db.read("SELECT id, outcome FROM shows ORDER BY id")] == [(1, "win"), (2, "running")]
    finally:
        db.close()


def test_a_running_show_whose_row_and_journal_name_other_events_is_refused_as_the_import_would_once_it_ends(tmp_path):
    running_show_file(tmp_path / "made.sqlite3", "night")  # its journal is of "day"
    e = refusal(archive({DATABASE: (tmp_path / "made.sqlite3").read_bytes()}))
    assert e.error_code == "errors.backup.database" and "not of this show's" in str(e), str(e)


@pytest.mark.parametrize("data, code", [
    (b"plain text", "errors.backup.not_archive"),
    (archive({}, manifest={"format": 2, "made": "2026-01-02T03:04:05Z", "files": {}}), "errors.choice"),
    (b"\0" * (MAX_BACKUP_BYTES + 1), "errors.backup.too_big"),
])
def test_what_is_not_a_backup_is_refused(data, code):
    assert refusal(data).error_code == code


def test_an_archive_bomb_is_refused_before_it_is_unpacked():
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        info = tarfile.TarInfo(DATABASE)
        info.size = 5 * MAX_BACKUP_BYTES
        tar.addfile(info, io.BytesIO(b"\0" * info.size))
    data = out.getvalue()
    assert len(data) < MAX_BACKUP_BYTES
    assert refusal(data).error_code == "errors.backup.too_big"


def test_only_the_newest_backups_are_kept(tmp_path):
    for n in range(8):
        (tmp_path / backup_name(n * 86400)).write_bytes(b"")
    gone = keep_newest(tmp_path, 5)
    assert [p.name for p in gone] == [backup_name(n * 86400) for n in range(3)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [backup_name(n * 86400) for n in range(3, 8)]


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def test_the_commands_back_up_and_restore(table, tmp_path):
    config, database, db = table
    config.write_text(CONFIG_TEXT.replace('name = "Kitchen"', f'name = "Kitchen"\ndatabase = "{database}"'))
    made = cli("backup", str(tmp_path / "table.tar.gz"), "--config", str(config))
    assert made.returncode == 0, made.stderr
    db.close()
    with Database(database, TABLE_FILE).transaction() as tx:
        tx.execute("DELETE FROM players")
    back = cli("restore", str(tmp_path / "table.tar.gz"), "--config", str(config))
    assert back.returncode == 0, back.stderr
    assert back.stdout.startswith("restored the backup made ") and players(database) == ["Aiko"]


def test_restore_refuses_a_tampered_archive_in_one_line(table, tmp_path):
    config, database, _ = table
    files = members(make_backup(config, database))
    manifest = json.loads(files.pop(MANIFEST))
    files[DATABASE] = files[DATABASE][:-1] + b"x"
    (tmp_path / "bad.tar.gz").write_bytes(archive(files, manifest))
    done = cli("restore", str(tmp_path / "bad.tar.gz"), "--config", str(config))
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "companion restore: backup.companion.sqlite3: does not match the backup's list of files: the archive was "
        "changed after it was made"]
    assert config.read_text() == CONFIG_TEXT


def test_restore_refuses_a_big_file_before_reading_it(tmp_path):
    big = tmp_path / "big.tar.gz"
    with big.open("wb") as f:
        f.truncate(MAX_BACKUP_BYTES + 1)  # sparse: nothing to read, only its size says no
    done = cli("restore", str(big), "--config", str(tmp_path / "none.toml"))
    assert done.returncode == 2 and "larger than a backup can be" in done.stderr


def test_a_waiting_backup_that_no_longer_reads_is_set_aside_and_the_table_starts_as_it_was(table):
    from types import SimpleNamespace

    from companion.appliance.backup import apply_pending, pending_path, stage_pending

    config, database, _ = table
    stage_pending(b"not an archive", database)
    said = apply_pending(SimpleNamespace(path=config, database=database))
    assert said.startswith("the backup waiting to be restored was refused and set aside")
    assert not pending_path(database).exists() and (database.parent / "restore-refused.tar.gz").is_file()
    assert config.read_text() == CONFIG_TEXT and apply_pending(SimpleNamespace(path=config, database=database)) is None


def test_restore_is_refused_while_another_program_has_the_database_open(table, tmp_path):
    """A daemon that systemd does not run: the restore must not replace the file (and its -wal) under it."""
    config, database, db = table
    config.write_text(CONFIG_TEXT.replace('name = "Kitchen"', f'name = "Kitchen"\ndatabase = "{database}"'))
    assert cli("backup", str(tmp_path / "table.tar.gz"), "--config", str(config)).returncode == 0
    holder = subprocess.Popen([sys.executable, "-c", "import sys; from companion.records import Store;"
                               f" store = Store({str(database)!r}); print('open', flush=True); sys.stdin.read()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "open\n"
        db.close()
        with Database(database, TABLE_FILE).transaction() as tx:
            tx.execute("INSERT INTO players (position, name) VALUES (2, 'Ben')")  # acknowledged while it runs
        back = cli("restore", str(tmp_path / "table.tar.gz"), "--config", str(config))
    finally:
        holder.communicate("", timeout=60)
    assert back.returncode == 1 and back.stderr.strip().splitlines() == [
        "companion restore: the table's file is open in another program (its daemon, or a command): stop it first;"
        " nothing was replaced"]
    assert players(database) == ["Aiko", "Ben"]
    assert cli("restore", str(tmp_path / "table.tar.gz"), "--config", str(config)).returncode == 0  # once it stopped
    assert players(database) == ["Aiko"]
