"""The maintenance page through Flask's test client: a backup downloaded in the owner's session (the setup code's), restored in pieces and put
in place at the next start; a changed archive refused naming why, and a size over the limit refused before a byte
is kept."""

import io
import json
import re
import tarfile
from pathlib import Path

import pytest

from companion.appliance.backup import MANIFEST, MAX_BACKUP_BYTES, apply_pending, pending_path, read_backup
from companion.appliance.keeping import Backups
from companion.clock import FakeClock
from companion.config import load_or_fresh
from companion.hardware.mock import mock_pin_factory
from companion.records import Store
from companion.table import Table, demo_table
from companion.web import create_app
from companion.appliance.upload import UPLOAD_NAME
from conftest import as_owner, installed_table

ROOT = Path(__file__).resolve().parents[2]
PIN = "483920"


@pytest.fixture
def table(tmp_path):
    example = (ROOT / "docs" / "config.example.toml").read_text(encoding="utf-8")
    table = installed_table(tmp_path, more="" if "\n[web]" in example else f'\n[web]\npin = "{PIN}"\n',
                            keeping=Backups())
    yield table
    table.stop()


@pytest.fixture
def client(table):
    """The owner's phone: its session opened with the setup code."""
    client = create_app(table, testing=True).test_client()
    client.csrf = as_owner(client, table)
    return client


def files(table):
    """The table's config file and database."""
    return table.configured.now.path, table.configured.now.database


def pin(table) -> dict:
    return {"X-Table-Pin": table.door.pin}


def owners(client) -> dict:
    return {"X-CSRF-Token": client.csrf}


def send(client, table, data: bytes, piece: int = 1000, size: int | None = None, headers: dict | None = None):
    """The page's way: the file in pieces, the first saying its size; the last answer."""
    parts = max(1, -(-len(data) // piece))
    upload = None
    for part in range(1, parts + 1):
        query = {"part": part, "parts": parts, "size": len(data) if size is None else size}
        if upload:
            query["upload"] = upload
        sent = owners(client) if headers is None else headers
        answer = client.post("/api/maintenance/restore", query_string=query, headers=sent,
                             data=data[(part - 1) * piece:part * piece], content_type="application/octet-stream")
        if answer.status_code != 202 or part == parts:
            return answer
        upload = answer.json["upload"]


def test_the_page_asks_for_the_setup_code_first_and_the_pin_opens_nothing(table):
    player = create_app(table, testing=True).test_client()
    page = player.get("/maintenance/").get_data(as_text=True)
    assert 'id="setup-code"' in page and "restore-form" not in page
    assert player.get("/maintenance/backup.tar.gz").status_code == 403
    assert player.get("/maintenance/backup.tar.gz", headers=pin(table)).status_code == 403


def test_the_owner_downloads_a_backup_of_the_config_and_database(client, table):
    answer = client.get("/maintenance/backup.tar.gz")
    assert answer.status_code == 200 and answer.mimetype == "application/gzip"
    assert re.fullmatch(r'attachment; filename="companion-backup-\d{8}T\d{6}Z\.tar\.gz"',
                        answer.headers["Content-Disposition"])
    backup = read_backup(answer.data)
    config, database = files(table)
    assert backup.config == config.read_bytes() and backup.database.startswith(b"SQLite format 3\0")


def restored_from_the_page(client, table, headers: dict) -> str:
    """A backup made, the players and config changed, the backup sent back with `headers`; the config after."""
    config, database = files(table)
    data = client.get("/maintenance/backup.tar.gz").data
    table.ledger.set_players(["Aiko", "Ben"])
    config.write_text(config.read_text().replace("[table]", '[table]\nname = "Changed"', 1))
    answer = send(client, table, data, headers=headers)
    assert answer.status_code == 202, answer.json
    assert answer.json["restore"] == "pending" and answer.json["restart"] is False  # no systemd here
    assert answer.json["config"] == "restored"
    assert pending_path(database).is_file() and not (database.parent / UPLOAD_NAME).exists()
    table.stop()
    said = apply_pending(load_or_fresh(config))
    assert said.startswith("restored the backup made ") and not pending_path(database).exists()
    restarted = Table(load_or_fresh(config), Store(database), mock_pin_factory(), clock=FakeClock(),
                      keeping=Backups())
    try:
        assert restarted.ledger.scorepad()["players"] == []
    finally:
        restarted.stop()
    return config.read_text()


def test_the_pin_restores_nothing(table):
    """A player with the PIN keeps scores; the config (the PIN, the hosts, the broker) and a whole backup are the
    owner's."""
    player = create_app(table, testing=True).test_client()
    answer = send(player, table, b"x" * 10, headers=pin(table))
    assert answer.status_code == 403 and answer.json["code"] == "errors.owner_needed"


def test_the_owners_setup_code_restores_the_config_and_the_scores(client, table):
    assert "Changed" not in restored_from_the_page(client, table, owners(client))


def test_a_changed_archive_is_refused_naming_why_and_nothing_is_kept(client, table):
    _, database = files(table)
    data = client.get("/maintenance/backup.tar.gz").data
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        inside = {m.name: tar.extractfile(m).read() for m in tar}
    inside["config.toml"] += b"\n# a line added later\n"
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name in (MANIFEST, "config.toml", "companion.sqlite3"):
            info = tarfile.TarInfo(name)
            info.size = len(inside[name])
            tar.addfile(info, io.BytesIO(inside[name]))
    answer = send(client, table, out.getvalue())
    assert answer.status_code == 400
    assert (answer.json["code"], answer.json["field"]) == ("errors.backup.changed", "backup.config.toml")
    assert not pending_path(database).exists() and not (database.parent / UPLOAD_NAME).exists()


def test_a_size_over_the_limit_is_refused_before_a_byte_is_kept(client, table):
    _, database = files(table)
    answer = send(client, table, b"x" * 100, size=MAX_BACKUP_BYTES + 1)
    assert answer.status_code == 400 and answer.json["code"] == "errors.backup.too_big"
    assert not (database.parent / UPLOAD_NAME).exists()


def test_a_piece_beyond_the_size_announced_ends_the_upload(client, table):
    _, database = files(table)
    answer = send(client, table, b"x" * 3000, size=1500)
    assert answer.status_code == 400 and answer.json["code"] == "errors.backup.size"
    assert not (database.parent / UPLOAD_NAME).exists()


def test_a_piece_out_of_turn_ends_the_upload(client, table):
    first = client.post("/api/maintenance/restore", query_string={"part": 1, "parts": 3, "size": 30},
                        headers=owners(client), data=b"x" * 10)
    wrong = client.post("/api/maintenance/restore", query_string={"part": 3, "parts": 3, "size": 30,
                                                                  "upload": first.json["upload"]},
                        headers=owners(client), data=b"x" * 10)
    assert wrong.status_code == 409 and wrong.json["code"] == "errors.backup.part"


def test_a_restore_needs_the_owners_session(table):
    client = create_app(table, testing=True).test_client()
    answer = client.post("/api/maintenance/restore", query_string={"part": 1, "parts": 1, "size": 1}, data=b"x")
    assert answer.status_code == 403


def test_the_demos_backup_holds_its_database_alone(tmp_path):
    demo = demo_table(tmp_path / "demo.sqlite3", pin=PIN, keeping=Backups())
    try:
        client = create_app(demo, testing=True).test_client()
        as_owner(client, demo)
        answer = client.get("/maintenance/backup.tar.gz")
        assert answer.status_code == 200 and read_backup(answer.data).config is None
    finally:
        demo.stop()
