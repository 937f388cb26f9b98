"""Config and command-line values are refused with one line naming the key or option, never a traceback."""

import pytest

from companion.config import load_config


@pytest.mark.parametrize("args, message", [
    (["--port", "-5"], "argument --port: -5 is out of range (1-65535)"),
    (["--port", "99999"], "argument --port: 99999 is out of range (1-65535)"),
    (["--host", "999.1.1.1"], "argument --host: '999.1.1.1' is not an IP address or host name"),
    (["--pin", "\u0661\u0662\u0663\u0664"], "argument --pin: expected 4 to 8 digits (0-9)"),
    (["--speed", "nan"], "speed: nan is out of range"),
])
def test_bad_demo_options_are_refused_in_one_line(cli, args, message, tmp_path):
    done = cli("demo", "--db", str(tmp_path / "d.sqlite3"), *args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert message in done.stderr.strip().splitlines()[-1]  # after argparse's usage, the one reason


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


def owner_table(tmp_path, database: str) -> str:
    """A config whose database is `database` (under tmp_path); its path."""
    config = tmp_path / "config.toml"
    config.write_text(f'[table]\nname = "Kitchen"\ndatabase = "{tmp_path / database}"\n', encoding="utf-8")
    return str(config)


def not_a_database(tmp_path) -> str:
    (tmp_path / "t.sqlite3").write_bytes(b"not a database, only text" * 100)
    return owner_table(tmp_path, "t.sqlite3")


def database_a_folder(tmp_path) -> str:
    (tmp_path / "t.sqlite3").mkdir()
    return owner_table(tmp_path, "t.sqlite3")


# The owner's commands, tried as a new owner would get them wrong: each refused in one line, exit non-zero,
# and nothing made for the mistyped path. Each case: the arguments (given tmp_path), the exit status, a piece
# of the line.
OWNER_MISTAKES = {
    "backup: the database is not one": (
        lambda p: ["backup", str(p / "b.tar.gz"), "--config", not_a_database(p)], 1, "not a database"),
    "backup: into a folder that is not there": (
        lambda p: ["backup", str(p / "no" / "b.tar.gz"), "--config", owner_table(p, "t.sqlite3")], 2, "no such folder"),
    "backup: a config that is not there": (
        lambda p: ["backup", str(p / "b.tar.gz"), "--config", str(p / "nope.toml")], 2, "nope.toml"),
    "restore: a file that is not there": (
        lambda p: ["restore", str(p / "none.tar.gz"), "--config", owner_table(p, "t.sqlite3")], 2, "cannot read it"),
    "restore: a folder, not a file": (
        lambda p: ["restore", str(p), "--config", owner_table(p, "t.sqlite3")], 2, "cannot read it"),
    "restore: a file that is not a backup": (
        lambda p: ["restore", owner_table(p, "t.sqlite3"), "--config", owner_table(p, "t.sqlite3")], 2,
        "not a table backup"),
    "setup: a database that is not one": (
        lambda p: ["setup", "--config", not_a_database(p)], 1, "not a database"),
    "setup --reopen: the database path is a folder": (
        lambda p: ["setup", "--reopen", "--config", database_a_folder(p)], 2, "is a folder"),
    "setup --new-pin: the database's folder is not there": (
        lambda p: ["setup", "--new-pin", "--config", owner_table(p, "no/t.sqlite3")], 2, "no such folder"),
    "setup --reopen: the database's folder is not there": (
        lambda p: ["setup", "--reopen", "--config", owner_table(p, "no/t.sqlite3")], 2, "no such folder"),
    "update: a source that is not there": (
        lambda p: ["update", str(p / "none.whl"), "--config", owner_table(p, "t.sqlite3")], 2, "no such file"),
    "update: not a release": (
        lambda p: ["update", owner_table(p, "t.sqlite3"), "--config", owner_table(p, "t.sqlite3")], 2,
        "not a release file"),
    "update: a timeout that is not seconds": (
        lambda p: ["update", str(p), "--timeout", "-1"], 2, "expected seconds"),
}


@pytest.mark.parametrize("case", OWNER_MISTAKES.values(), ids=OWNER_MISTAKES.keys())
def test_the_owners_commands_refuse_a_mistake_in_one_line_and_make_nothing(cli, tmp_path, case):
    arguments, status, said = case
    args = arguments(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    done = cli(*args)
    assert done.returncode == status, done.stdout + done.stderr
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith(("usage:", " "))]
    assert len(lines) == 1 and "Traceback" not in done.stderr and said in lines[0], done.stderr
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing made, nothing left


def test_a_backup_of_a_table_without_a_database_yet_says_it_holds_the_config_alone(cli, tmp_path):
    done = cli("backup", str(tmp_path / "b.tar.gz"), "--config", owner_table(tmp_path, "t.sqlite3"))
    assert done.returncode == 0, done.stderr
    assert "database" not in done.stdout.split(";")[0] and "no database yet" in done.stdout
