"""`companion demo --mqtt URL` and `[mqtt]` in the config: the table on a real broker, and its last will."""

import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli
from mqtt_support import listen, mosquitto  # noqa: F401  (fixtures)
from companion.config import parse_config
from companion.mqtt.mosquitto import free_port


def mosquitto_sub(port: int, topic: str, count: int = 1) -> list[str]:
    """What Mosquitto's own client reads (retained messages first), `count` of them."""
    done = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-C", str(count),
                           "-W", "20"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.fixture
def demo_process(mosquitto, tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "demo", "--port", str(free_port()), "--db", str(tmp_path / "demo.sqlite3"),
         "--mqtt", mosquitto.url + "/k1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    yield process
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)
    process.stdout.close()
    process.stderr.close()


def test_the_demo_publishes_a_retained_state_and_discovery_that_mosquitto_sub_reads(mosquitto, demo_process):
    (state,) = mosquitto_sub(mosquitto.port, "companion/k1/state")
    assert json.loads(state)["outcome"] == "idle"
    (config,) = mosquitto_sub(mosquitto.port, "homeassistant/sensor/companion_k1/outcome/config")
    assert json.loads(config)["availability_topic"] == "companion/k1/availability"


def test_killing_the_table_flips_its_availability_to_offline(mosquitto, demo_process, listen):
    watcher = listen(mosquitto.port, "companion/k1/availability")
    watcher.wait_for(lambda l: l.on("companion/k1/availability")[-1:] == [b"online"], timeout=30)
    os.kill(demo_process.pid, signal.SIGKILL)  # no goodbye: the broker sends the will
    watcher.wait_for(lambda l: l.on("companion/k1/availability")[-1:] == [b"offline"])
    assert mosquitto_sub(mosquitto.port, "companion/k1/availability") == ["offline"]


def test_a_bad_broker_url_is_refused_with_one_line():
    done = run_cli("demo", "--mqtt", "http://broker:1883")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "companion demo: --mqtt: 'http://broker:1883' is not a broker URL (mqtt://host:port or mqtts://host:port)"]


def test_run_refuses_an_unreadable_password_file_naming_the_key(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[mqtt]\nurl = "mqtt://127.0.0.1:1"\nusername = "t"\npassword_file = "/nonexistent/pw"\n')
    done = run_cli("run", "--mock", "--config", str(config))
    assert done.returncode == 2
    assert done.stderr.startswith("companion run: mqtt.password_file: cannot read /nonexistent/pw")
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("section, field", [
    ({"url": "mqtt://h", "colour": "red"}, "mqtt.colour"),
    ({"username": "u"}, "mqtt.url"),
    ({"url": 1883}, "mqtt.url"),
    ({"url": "mqtt://user:pw@h"}, "mqtt.url"),
    ({"url": "mqtt://h", "table": "a/b"}, "mqtt.table"),
    ({"url": "mqtt://h", "table": "#"}, "mqtt.table"),
    ({"url": "mqtt://h", "base": "x/+"}, "mqtt.base"),
    ({"url": "mqtt://h", "password_file": "/p"}, "mqtt.username"),
    ({"url": "mqtt://h", "ca_file": "/ca.pem"}, "mqtt.ca_file"),
    ({"url": "mqtt://h:99999"}, "mqtt.url"),
    ({"url": "mqtt://h/a/b"}, "mqtt.url"),
    ({"url": "mqtt://h/t1", "table": "t1"}, "mqtt.url"),
])
def test_the_mqtt_section_names_the_key_that_is_wrong(section, field):
    from companion.errors import BadInput

    with pytest.raises(BadInput) as raised:
        parse_config({"mqtt": section}, None)
    assert raised.value.field == field


def test_the_mqtt_section_is_read_into_the_config(tmp_path):
    config = parse_config({"mqtt": {"url": "mqtts://hall.example:8884", "table": "t7", "base": "cafe/tables",
                                    "username": "t7", "password_file": str(tmp_path / "pw"),
                                    "ca_file": str(tmp_path / "ca.pem")}}, None)
    s = config.mqtt
    assert (s.host, s.port, s.tls, s.table, s.base, s.username) == ("hall.example", 8884, True, "t7", "cafe/tables", "t7")
    (tmp_path / "pw").write_text("s3cret\n")
    assert s.password() == "s3cret"
    assert parse_config({}, None).mqtt is None


def hall_events(url: str):
    """Each `hall` event of a running hall's stream, as parsed JSON."""
    import urllib.request

    with urllib.request.urlopen(url + "api/hall/events", timeout=30) as stream:
        for raw in stream:
            if raw.startswith(b"data: "):
                yield json.loads(raw[6:])


def test_the_hall_command_shows_a_killed_table_go_offline(mosquitto, demo_process, tmp_path):
    port = free_port()
    hall = subprocess.Popen([sys.executable, "-m", "companion", "hall", "--mqtt", mosquitto.url, "--port", str(port),
                             "--db", str(tmp_path / "hall.sqlite3")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert hall.stdout.readline().startswith(f"The hall of {mosquitto.url} is on http://127.0.0.1:{port}/")
        online = {}
        for event in hall_events(f"http://127.0.0.1:{port}/"):
            online.update({card["table"]: card["online"] for card in event["cards"]})
            if online.get("k1") is True:
                os.kill(demo_process.pid, signal.SIGKILL)
            if online.get("k1") is False:
                break
        assert online == {"k1": False}
    finally:
        hall.terminate()
        assert hall.wait(timeout=10) == 0
        hall.stdout.close()
        hall.stderr.close()


def test_the_hall_refuses_a_bad_url_and_a_port_in_use(tmp_path):
    import socket

    done = run_cli("hall", "--mqtt", "mqtt://", "--db", str(tmp_path / "h.sqlite3"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("companion hall: --mqtt:")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = run_cli("hall", "--port", str(taken.getsockname()[1]), "--db", str(tmp_path / "h.sqlite3"))
    assert done.returncode == 1 and "cannot listen on 127.0.0.1:" in done.stderr
