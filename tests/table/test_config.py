"""The config file: defaults from the pin map, and one clear line for every mistake."""

import pytest

from companion.config import demo_config, load_config, parse_config, set_duration


def test_defaults_come_from_the_reference_pin_map():
    config = parse_config({}, None)
    assert config.timers["red"].pins == (4, 5) and config.timers["purple"].pins == (23, 24)
    assert all(t.source == "tilt" for t in config.timers.values())
    assert config.warn_lead_s == 10 and config.web.port == 8000


def test_a_full_config(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("""
[table]
database = "/tmp/x.sqlite3"
warn_lead_s = 8
runout_grace_s = 0.5
[nominal]
purple = 90
[timers.red]
source = "emulated"
duration = 31.2
[timers.blue]
single_switch = true
pins = [21]
[strip]
enabled = true
driver = "fake"
order = "RGB"
[buzzer]
enabled = true
[web]
port = 8080
pin = "2468"
""")
    config = load_config(path)
    assert config.nominal["purple"] == 90 and config.durations() == {"red": 31.2}
    assert config.timers["blue"].pins == (21,) and config.timers["blue"].single_switch
    assert config.strip.order == "RGB" and config.web.pin == "2468" and config.warn_lead_s == 8


@pytest.mark.parametrize("text, message", [
    ("[timers.red]\npins = [40, 5]\n", "timers.red.pins: GPIO 40 does not exist (valid 2-27)"),
    ("[timers.orange]\npins = [4, 7]\n", "timers.orange.pins: GPIO 4 is already used by the red glass (timers.red.pins)"),
    ("[timers.red]\npins = [4, 4]\n", "timers.red.pins: GPIO 4 is listed twice"),
    ("[timers.red]\npins = [4]\n", "timers.red.pins: a tilt pair needs two pins (or set single_switch = true)"),
    ("[timers.red]\nsource = \"laser\"\n", "timers.red.source: 'laser' is not one of tilt, hub, emulated"),
    ("[timers.pink]\n", "timers.pink: 'pink' is not a timer colour"),
    ("[timers.red]\nduration = -3\n", "timers.red.duration: must be above 0 s"),
    ("[timers.red]\ncolour = 1\n", "timers.red.colour: unknown key"),
    ("[table]\nwarn_lead_s = \"ten\"\n", "table.warn_lead_s: expected a number of seconds"),
    ("[tabel]\n", "tabel: unknown key"),
    # A mistyped key is named, not the key it seems to leave out.
    ("[hub]\nprot = \"/dev/ttyACM0\"\n", "hub.prot: unknown key"),
    ("[mqtt]\nuri = \"mqtt://broker.local\"\n", "mqtt.uri: unknown key"),
    ("[strip]\ndriver = \"usb\"\n", "strip.driver: 'usb' is not one of spi, pwm, pi5, fake"),
    ("[strip]\nbrightness = 2\n", "strip.brightness: 2 is out of range (0.01-1)"),
    ("[buzzer]\nenabled = true\npin = 4\n", "buzzer.pin: GPIO 4 is already used by the red glass (timers.red.pins)"),
    ("[web]\nport = 99999\n", "web.port: 99999 is out of range (1-65535)"),
    ("[web]\npin = \"12\"\n", "web.pin: expected 4 to 8 digits"),
    ("[nominal]\npurple = 0\n", "nominal.purple: must be above 0 s"),
    ("[timers.red\n", "not valid TOML"),
])
def test_bad_config_names_file_key_and_problem(tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(Exception) as e:
        load_config(path)
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value)


@pytest.mark.parametrize("text, message", [
    ("[timers.red]\npins = [40, 5]\n", "config.toml: timers.red.pins: GPIO 40 does not exist (valid 2-27)"),
    ("[timers.orange]\npins = [4, 7]\n", "timers.orange.pins: GPIO 4 is already used by the red glass (timers.red.pins)"),
    ("\xff", "not UTF-8"),
])
def test_run_with_a_bad_config_exits_2_with_one_line(cli, tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_bytes(text.encode("latin-1"))
    done = cli("run", "--config", str(path), "--mock")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr


def test_run_without_gpio_and_without_mock_refuses(cli, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(f'[table]\ndatabase = "{tmp_path / "t.sqlite3"}"\n')
    done = cli("run", "--config", str(path))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "no GPIO here" in done.stderr and "--mock" in done.stderr


def test_missing_config_file(cli, tmp_path):
    done = cli("run", "--config", str(tmp_path / "nope.toml"), "--mock")
    assert done.returncode == 2 and "cannot read it" in done.stderr


def test_calibration_is_stored_in_the_config_keeping_comments(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("# our table\n[timers.red]\nsource = \"tilt\"  # the cradle by the window\n")
    config = set_duration(load_config(path), "red", 31.234)
    assert config.timers["red"].duration == 31.23
    text = path.read_text()
    assert "# our table" in text and "# the cradle by the window" in text
    assert load_config(path).timers["red"].duration == 31.23


def test_a_calibration_goes_through_the_one_writer_and_its_checks(tmp_path):
    """A file broken since the table started is refused in one line naming it, as the setup page's settings are,
    and a duration is written only into a file that still reads as a config."""
    from companion.errors import BadInput

    path = tmp_path / "config.toml"
    path.write_text("[timers.red]\nsource = \"tilt\"\n")
    config = load_config(path)
    path.write_text("[timers.red\n")  # edited by hand meanwhile, and broken
    with pytest.raises(BadInput, match=r"config.toml: not valid TOML") as refused:
        set_duration(config, "red", 31.0)
    assert refused.value.error_code == "errors.setup.file" and path.read_text() == "[timers.red\n"
    path.write_text("[timers.red]\nsource = \"tilt\"\n[web]\nport = 0\n")  # TOML, but not a config
    with pytest.raises(BadInput, match=r"web.port"):
        set_duration(config, "red", 31.0)
    assert "duration" not in path.read_text()


def test_demo_config_is_all_emulated_with_a_fake_strip(tmp_path):
    config = demo_config(tmp_path / "d.sqlite3")
    assert {t.source for t in config.timers.values()} == {"emulated"}
    assert config.strip.driver == "fake" and config.runout_grace_s == 0


def test_the_example_config_in_the_docs_loads():
    from conftest import ROOT

    config = load_config(ROOT / "docs" / "config.example.toml")
    assert config.timers["purple"].source == "emulated" and config.timers["red"].pins == (4, 5)


@pytest.mark.parametrize("text, message", [
    ("[strip]\nenabled = true\n", "LED strip 'spi' unavailable"),
    ("[table]\ndatabase = \"/proc/none/t.sqlite3\"\n", "cannot use the database /proc/none/t.sqlite3"),
])
def test_run_with_hardware_or_storage_it_cannot_open_exits_1_with_one_line(cli, tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_text(text if "database" in text else text + f'[table]\ndatabase = "{tmp_path / "t.sqlite3"}"\n')
    done = cli("run", "--config", str(path), "--mock")
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_a_hub_timer_without_a_hub_section_is_refused_naming_the_port(cli, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(f'[table]\ndatabase = "{tmp_path / "t.sqlite3"}"\n[timers.green]\nsource = "hub"\n')
    done = cli("run", "--config", str(path), "--mock")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "hub.port: missing: timers.green.source is \"hub\"" in done.stderr


def test_the_daemons_own_mdns_responder_can_give_way_to_the_systems():
    """On the card Avahi announces the table: a second responder would bind UDP 5353 beside it."""
    assert parse_config({}, None).web.mdns is True
    assert parse_config({"web": {"mdns": False}}, None).web.mdns is False
    with pytest.raises(Exception, match="web.mdns"):
        parse_config({"web": {"mdns": "avahi"}}, None)


@pytest.mark.parametrize("text, args, announced, named", [
    ("", [], True, True),
    ("[web]\nmdns = false\n", [], False, True),  # the card: Avahi announces the name the startup lines give
    ("", ["--no-mdns"], False, False),
])
def test_run_leaves_mdns_to_the_system_when_the_config_says_so(tmp_path, monkeypatch, text, args, announced, named):
    import companion.cli.table as table_cli
    from companion.cli import main

    path = tmp_path / "config.toml"
    path.write_text(f'[table]\ndatabase = "{tmp_path / "t.sqlite3"}"\n{text}')
    served = {}
    monkeypatch.setattr(table_cli, "_serve", lambda table, *a, **kw: served.update(kw) or 0)
    assert main(["run", "--mock", "--config", str(path), *args]) == 0
    assert (served["mdns"], served["named"]) == (announced, named)
