"""A release uploaded on the maintenance page, through Flask's test client: only a session holding the setup code
(the owner's key) may send one, never the PIN; the table checks it whole and leaves it, renamed in one step, in
the drop folder the update service watches; a forged one is refused naming why, and nothing is handed over. The
page shows the release running and the one before."""

import json
import re
import string

import pytest

from companion.appliance.handover import DROP, STATUS, WAITING, tell
from companion.appliance.keeping import Backups
from companion.appliance.update import SAID, Said
from companion.web import create_app
from conftest import csrf_in, installed_table
from tests.appliance.test_backup_page import PIN, ROOT
from tests.appliance.test_release_file import built, wheelhouse  # noqa: F401  (a fixture)

API = "/api/maintenance/release"


@pytest.fixture
def installed(tmp_path):
    """A table that runs from releases/0.1.0-aaa of a home whose way back is 0.0.9-bbb, as install.sh lays it."""
    home = tmp_path / "opt"
    for name in ("0.1.0-aaa", "0.0.9-bbb"):
        (home / "releases" / name).mkdir(parents=True)
    (home / "current").symlink_to("releases/0.1.0-aaa")
    (home / "previous").symlink_to("releases/0.0.9-bbb")
    (home / "companion-update.path").write_text("[Path]\n")  # its update service enabled, as install.sh does
    return home


@pytest.fixture
def table(tmp_path, installed):
    (tmp_path / "state").mkdir()
    example = (ROOT / "docs" / "config.example.toml").read_text(encoding="utf-8")
    table = installed_table(tmp_path / "state", more="" if "\n[web]" in example else f'\n[web]\npin = "{PIN}"\n',
                            keeping=Backups(prefix=str(installed / "current"),
                                            watch=installed / "companion-update.path"))
    yield table
    table.stop()


@pytest.fixture
def client(table):
    client = create_app(table, testing=True).test_client()
    page = client.get("/maintenance/").get_data(as_text=True)
    client.csrf = csrf_in(page)
    return client


def own(client, table) -> None:
    """The owner's key: the setup code entered on this session (setup reopened, as `companion setup --reopen`)."""
    code = table.first_run.reopen()
    assert client.post("/api/setup/code", json={"code": code}, headers={"X-CSRF-Token": client.csrf}).status_code == 200


def unlock(client, table) -> None:
    """A player's way in: the PIN typed on the page, the session unlocked by it."""
    answer = client.post("/pin", data={"pin": table.door.pin, "csrf": client.csrf})
    assert answer.status_code in (302, 303), answer.get_data(as_text=True)


def send(client, data: bytes, headers=None, piece: int = 4096):
    parts, upload = max(1, -(-len(data) // piece)), None
    for part in range(1, parts + 1):
        query = {"part": part, "parts": parts, "size": len(data), **({"upload": upload} if upload else {})}
        answer = client.post(API, query_string=query, data=data[(part - 1) * piece:part * piece],
                             headers={"X-CSRF-Token": client.csrf} if headers is None else headers,
                             content_type="application/octet-stream")
        if answer.status_code != 202 or part == parts:
            return answer
        upload = answer.json["upload"]


def dropped(table):
    return table.configured.now.database.parent / DROP / WAITING


def test_the_pin_alone_never_uploads_a_release(client, table, wheelhouse):  # noqa: F811
    release = built(wheelhouse).read_bytes()
    by_header = send(client, release, headers={"X-Table-Pin": table.door.pin})
    assert by_header.status_code == 403 and by_header.json["code"] == "errors.owner_needed"
    unlock(client, table)
    by_session = send(client, release)
    assert by_session.status_code == 403 and by_session.json["code"] == "errors.owner_needed"
    assert not dropped(table).exists()
    page = client.get("/maintenance/").get_data(as_text=True)
    assert "update-form" not in page and 'id="setup-code"' in page  # asks for the owner's key


def test_the_owners_session_hands_a_checked_release_to_the_update_service(client, table, wheelhouse):  # noqa: F811
    release = built(wheelhouse)
    own(client, table)
    assert send(client, release.read_bytes(), headers={}).status_code == 403  # no CSRF token: refused
    answer = send(client, release.read_bytes())
    assert answer.status_code == 202, answer.json
    assert answer.json["update"] == "waiting" and answer.json["release"].startswith("0.2.0-")
    assert dropped(table).read_bytes() == release.read_bytes()  # whole, renamed into place
    assert not list(dropped(table).parent.parent.glob(".release-upload*"))  # nothing left behind
    status = client.get(API).json
    assert status["update"]["state"] == "waiting" and status["update"]["release"] == answer.json["release"]


def test_a_forged_release_is_refused_naming_why_and_nothing_is_handed_over(client, table, wheelhouse):  # noqa: F811
    data = bytearray(built(wheelhouse).read_bytes())
    at = data.index(b"flask's wheel")
    data[at:at + 5] = b"FLASK"  # a member changed after the list was made
    own(client, table)
    answer = send(client, bytes(data))
    assert answer.status_code == 400
    assert (answer.json["code"], answer.json["field"]) == ("errors.release.changed",
                                                           "release.files.flask-3.1.3-py3-none-any.whl")
    assert not dropped(table).exists() and not list(dropped(table).parent.parent.glob(".release-upload*"))


def test_a_release_over_the_limit_is_refused_before_a_byte_is_kept(client, table):
    from companion.release_file import MAX_RELEASE_BYTES

    own(client, table)
    answer = client.post(API, query_string={"part": 1, "parts": 9999, "size": MAX_RELEASE_BYTES + 1}, data=b"x",
                         headers={"X-CSRF-Token": client.csrf}, content_type="application/octet-stream")
    assert answer.status_code == 400 and answer.json["code"] == "errors.release.too_big"
    assert not list(table.configured.now.database.parent.glob(".release-upload*"))


def test_the_page_shows_the_release_running_the_one_before_and_the_last_update(client, table):
    (table.configured.now.database.parent / DROP).mkdir()
    tell(table.configured.now.database.parent, "rolled_back", "0.2.0-ccc", "0.1.0-aaa serves again")
    own(client, table)
    page = client.get("/maintenance/").get_data(as_text=True)
    assert re.search(r'id="version-running">0\.1\.0-aaa<', page) and re.search(r'id="version-previous">0\.0\.9-bbb<',
                                                                                 page)
    assert "update-form" in page and "0.2.0-ccc did not come up" in page
    assert client.get(API).json == {"running": "0.1.0-aaa", "previous": "0.0.9-bbb", "update": json.loads(
        (table.configured.now.database.parent / DROP / STATUS).read_text()), "queued": False, "service": True}


def test_a_release_sent_while_another_installs_is_said_to_wait_its_turn(client, table, wheelhouse):  # noqa: F811
    state = table.configured.now.database.parent
    (state / DROP).mkdir()
    own(client, table)
    assert send(client, built(wheelhouse).read_bytes()).status_code == 202
    tell(state, "installing", "0.1.5-eee", "switched from 0.1.0-aaa to 0.1.5-eee")  # root, on the one before
    assert client.get(API).json["queued"] is True
    page = client.get("/maintenance/").get_data(as_text=True)
    assert "0.1.5-eee: installing." in page and "Another release waits its turn" in page


def test_a_table_without_the_update_service_says_so_and_takes_no_release(client, table, installed, wheelhouse):  # noqa: F811
    (installed / "companion-update.path").unlink()  # run by hand: nothing would install an upload
    own(client, table)
    page = client.get("/maintenance/").get_data(as_text=True)
    assert "update-form" not in page and "sudo companion update" in page
    answer = send(client, built(wheelhouse).read_bytes())
    assert answer.status_code == 409 and answer.json["code"] == "errors.update.no_service"
    assert not dropped(table).exists() and client.get(API).json["service"] is False


def catalogue(lang: str) -> dict:
    return json.loads((ROOT / "companion/web/backup/i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def test_the_update_status_line_is_said_in_the_pages_language(client, table):
    state = table.configured.now.database.parent
    (state / DROP).mkdir()
    tell(state, "installing", "0.2.0-ccc", Said.of("update.said.not_up", new="0.2.0-ccc", old="0.1.0-aaa",
                                                   why="update.why.no_page", seconds="120"))
    own(client, table)
    client.set_cookie("lang", "ja")
    ja = catalogue("ja")
    said = ja["update.said.not_up"].format(new="0.2.0-ccc", old="0.1.0-aaa",
                                           why=ja["update.why.no_page"].format(seconds="120"))
    assert client.get(API).json["update"]["line"] == said
    page = client.get("/maintenance/").get_data(as_text=True)
    assert said in page and "did not come up" not in page
    client.set_cookie("lang", "en")
    assert "0.2.0-ccc did not come up: its page did not answer within 120 s" in client.get(API).json["update"]["line"]


def test_every_line_an_update_says_is_in_the_pages_catalogues_with_the_same_values():
    slots = lambda text: {name for _, name, _, _ in string.Formatter().parse(text) if name}  # noqa: E731
    english, japanese = catalogue("en"), catalogue("ja")
    for code, line in SAID.items():
        assert english.get(code) == line, code  # the terminal's English is the page's
        assert slots(japanese[code]) == slots(line), code
