"""A secured broker: a user with a password read from a file, an ACL, and TLS checked against a CA file."""

import shutil
import subprocess

import pytest

from mqtt_support import WAIT_S, need_mosquitto
from companion.clock import FakeClock
from companion.mqtt.bridge import Bridge
from companion.mqtt.hall import Hall
from companion.mqtt.hall.board import Leaderboard
from companion.mqtt.hall.listener import HallListener
from companion.mqtt.mosquitto import Mosquitto
from companion.mqtt.settings import from_url
from companion.table import demo_table


def wait_online(bridge: Bridge, hall: Hall | None = None) -> None:
    assert bridge.wait_for_answer(WAIT_S) and bridge.problem is None, bridge.problem
    if hall is not None:
        seq = -1
        while not any(c["table"] == "t1" and c["online"] for c in hall.view()["cards"]):
            view = hall.changes(seq, WAIT_S)
            assert view["seq"] > seq, "the hall never saw the table online"
            seq = view["seq"]


@pytest.fixture
def secured(tmp_path):
    need_mosquitto()
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd is not installed (Debian package: mosquitto)")
    passwords = tmp_path / "passwd"
    for user, password in (("t1", "table-secret"), ("hall", "hall-secret")):
        subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if user == "t1" else []), str(passwords), user, password],
                       check=True, capture_output=True)
    acl = tmp_path / "acl"
    acl.write_text("user t1\ntopic readwrite companion/t1/#\ntopic readwrite homeassistant/#\n\n"
                   "user hall\ntopic read companion/#\n")
    broker = Mosquitto(tmp_path / "broker", settings=f"password_file {passwords}\nacl_file {acl}\n"
                       "allow_anonymous false").start()
    yield broker, tmp_path
    broker.stop()


def test_a_table_and_the_hall_log_in_with_passwords_from_files(secured):
    broker, folder = secured
    (folder / "t1.pw").write_text("table-secret\n")
    (folder / "hall.pw").write_text("hall-secret\n")
    table = demo_table(folder / "t.sqlite3", clock=FakeClock())
    board = Leaderboard(":memory:")
    hall = Hall()
    bridge = Bridge(table, from_url(broker.url, table="t1", username="t1", password_file=folder / "t1.pw"),
                    backoff=(0.05, 0.2)).start()
    listener = HallListener(from_url(broker.url, table="hall", username="hall", password_file=folder / "hall.pw"),
                            hall, board, backoff=(0.05, 0.2)).start()
    try:
        wait_online(bridge, hall)
    finally:
        listener.stop()
        bridge.stop()
        table.stop()


def test_a_wrong_password_keeps_the_table_off_the_broker_and_playing(secured, caplog):
    broker, folder = secured
    (folder / "wrong.pw").write_text("guess\n")
    table = demo_table(folder / "t.sqlite3", clock=FakeClock())
    bridge = Bridge(table, from_url(broker.url, table="t1", username="t1", password_file=folder / "wrong.pw"),
                    backoff=(0.05, 0.2)).start()
    try:
        table.desk.start_show("training")
        assert table.desk.snapshot()["outcome"] == "running"
        assert bridge.wait_for_answer(WAIT_S)
        assert bridge.problem.startswith("refused") and not bridge.online
        assert any("cannot join the broker" in r.getMessage() for r in caplog.records)
    finally:
        bridge.stop()
        table.stop()


@pytest.fixture
def tls_broker(tmp_path):
    need_mosquitto()
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")

    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=tmp_path)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Test hall CA",
            "-keyout", "ca.key", "-out", "ca.pem")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key",
            "-out", "server.csr")
    (tmp_path / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "san.ext", "-out", "server.pem")
    broker = Mosquitto(tmp_path / "broker", listener=f"cafile {tmp_path / 'ca.pem'}\n"
                       f"certfile {tmp_path / 'server.pem'}\nkeyfile {tmp_path / 'server.key'}").start()
    yield broker, tmp_path
    broker.stop()


def test_mqtts_with_a_ca_file_connects_and_without_it_does_not(tls_broker):
    broker, folder = tls_broker
    assert broker.url.startswith("mqtts://")
    table = demo_table(folder / "t.sqlite3", clock=FakeClock())
    trusted = Bridge(table, from_url(broker.url, table="t1", ca_file=folder / "ca.pem"), backoff=(0.05, 0.2)).start()
    try:
        wait_online(trusted)
    finally:
        trusted.stop()
    untrusting = Bridge(table, from_url(broker.url, table="t1"), backoff=(0.05, 0.2)).start()  # the system store
    try:
        assert untrusting.wait_for_answer(WAIT_S)
        assert untrusting.problem == "the broker cannot be reached" and not untrusting.online
    finally:
        untrusting.stop()
        table.stop()
