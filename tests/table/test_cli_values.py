"""Config and command-line values are refused with one line naming the key or option, never a traceback."""

import pytest

from companion.config import load_config


@pytest.mark.parametrize("args, message", [
    (["--port", "-5"], "argument --port: -5 is out of range (1-65535)"),
    (["--port", "99999"], "argument --port: 99999 is out of range (1-65535)"),
    (["--host", "999.1.1.1"], "argument --host: '999.1.1.1' is not an IP address or host name"),
    (["--pin", "\u0661\u0662\u0663\u0664"], "argument --pin: expected 4 to 8 digits (0-9)"),
    (["--speed", "nan"], "argument --speed: expected a number, got nan"),
    (["--speed", "-1"], "argument --speed: -1 is out of range (0.1-100)"),
    (["--speed", "0"], "argument --speed: 0 is out of range (0.1-100)"),
    (["--speed", "fast"], "argument --speed: expected a number, got 'fast'"),
])
def test_bad_demo_options_are_refused_in_one_line(cli, args, message, tmp_path):
    """Refused before anything is made: no database, no config file beside it (and none named)."""
    done = cli("demo", "--db", str(tmp_path / "d.sqlite3"), *args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and ".toml" not in done.stderr
    assert message in done.stderr.strip().splitlines()[-1]  # after argparse's usage, the one reason
    assert list(tmp_path.iterdir()) == []


def test_a_demo_refused_its_database_leaves_no_file_it_made(cli, tmp_path):
    folder = tmp_path / "shows"
    folder.mkdir()
    done = cli("demo", "--db", str(folder), "--port", "0")
    assert (done.returncode, done.stderr.strip()) == (1, f"companion demo: {folder}: a folder, not a database file (--db)")
    assert list(tmp_path.iterdir()) == [folder] and list(folder.iterdir()) == []


def test_help_names_what_every_option_of_the_demo_and_the_hardware_checks_does(cli):
    for command in (["demo"], ["check-hw"], ["calibrate"]):
        text = cli(*command, "--help").stdout
        options = {line.split()[0] for line in text.splitlines() if line.startswith("  --")}
        bare = [line for line in text.splitlines() if line.startswith("  --") and len(line.split()) <= 2]
        assert options and bare == [], (command, bare)


@pytest.mark.parametrize("text, message", [
    ('[web]\nhost = "999.1.1.1"\n', "web.host: '999.1.1.1' is not an IP address or host name"),
    ('[web]\nport = -5\n', "web.port: -5 is out of range (1-65535)"),
    ('[web]\npin = "\u0661\u0662\u0663\u0664"\n', "web.pin: expected 4 to 8 digits (0-9)"),
    ('[strip]\nsegment_leds = 3\n', "strip.segment_leds: 3 is out of range (4-64)"),
    ('[strip]\norder = "BGR"\n', "strip.order: 'BGR' is not a pixel order"),
    ('[strip]\nmarkers = "no"\n', "strip.markers: "),
])
def test_bad_config_values_name_the_file_and_key(tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(Exception) as e:
        load_config(path)
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value)


def test_a_source_the_rig_refuses_names_the_config_file(cli, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'[table]\ndatabase = "{tmp_path / "t.sqlite3"}"\n[timers.red]\nsource = "hub"\n')
    done = cli("run", "--mock", "--config", str(config))
    assert done.returncode == 2
    assert done.stderr.strip().startswith(f"companion run: {config}: hub.port")  # a hub glass needs [hub]


def test_a_backup_of_a_table_without_a_database_yet_says_it_holds_the_config_alone(cli, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'[table]\nname = "Kitchen"\ndatabase = "{tmp_path / "t.sqlite3"}"\n', encoding="utf-8")
    done = cli("backup", str(tmp_path / "b.tar.gz"), "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert "database" not in done.stdout.split(";")[0] and "no database yet" in done.stdout
