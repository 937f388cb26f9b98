"""A command imports only what it uses: `companion replay` (and the parser every command goes through) never
loads the table, the web, the config or Flask, so a log replays as fast as the rules allow."""

import argparse
import json
import pkgutil
import socket
import subprocess
import sys

import pytest
from conftest import ROOT

import companion.cli

HEAVY = ("companion.table", "companion.web", "companion.config", "companion.hardware", "flask", "waitress",
         "gpiozero")

LOADED_BY_REPLAY = """
import contextlib, io, json, sys
from companion.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["replay", sys.argv[1]])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def test_replay_loads_neither_the_table_nor_the_web():
    log = ROOT / "tests" / "rules" / "scenarios" / "three_star_win.jsonl"
    done = subprocess.run([sys.executable, "-c", LOADED_BY_REPLAY, str(log)], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    assert loaded["status"] == 0
    heavy = [m for m in loaded["modules"] if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == []


LOADED_BY_RUN = """
import json, sys
import companion.web.server as server
made = server.make_server

def make_server(*args, **kwargs):
    serving = made(*args, **kwargs)
    def run():  # the table is open and started: what it loaded is what a start waits for
        print(json.dumps(sorted(sys.modules)), file=sys.stderr)
        raise KeyboardInterrupt  # as Ctrl-C: the daemon stops in order
    serving.run = run
    return serving

server.make_server = make_server
from companion.cli import main
sys.exit(main(["run", "--mock", "--no-mdns", "--config", sys.argv[1]]))
"""


@pytest.fixture(scope="module")
def loaded_by_run(tmp_path_factory) -> list[str]:
    """The modules `companion run` has loaded when its table is open and started, as a restart waits for them."""
    folder = tmp_path_factory.mktemp("run")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    config = folder / "config.toml"
    config.write_text(f'[table]\ndatabase = "{folder / "table.sqlite3"}"\nmock_pins = true\n'
                      f'[web]\nhost = "127.0.0.1"\nport = {port}\npin = "1234"\n')
    done = subprocess.run([sys.executable, "-c", LOADED_BY_RUN, str(config)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    modules = json.loads(next(line for line in done.stderr.splitlines() if line.startswith("[")))
    assert "companion.table" in modules  # the table did start
    return modules


def loaded(modules: list[str], *packages: str) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)]


def test_a_table_without_a_broker_starts_without_loading_the_mqtt_client(loaded_by_run):
    assert loaded(loaded_by_run, "paho") == []


def test_a_table_starts_without_what_only_a_page_or_another_command_uses(loaded_by_run):
    """The other commands, the QR code's library, the updater and the time zone are loaded when first used: a
    restart's first answer waits for none of them."""
    others = [m for m in loaded(loaded_by_run, "companion.cli") if m not in ("companion.cli", "companion.cli.common",
                                                                            "companion.cli.table")]
    assert others == []
    assert loaded(loaded_by_run, "segno", "zoneinfo", "companion.appliance.handover", "companion.appliance.update",
                  "companion.release") == []


def test_each_command_is_registered_by_the_module_named_for_it():
    """The table of owners a command loads by is the modules' own registration: a command added, moved or renamed
    without it would lose its parser, or load another module's."""
    registered = {}
    for info in pkgutil.iter_modules(companion.cli.__path__):
        parser = companion.cli.build_parser([info.name])
        commands = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        registered |= {command: info.name for command in commands.choices}
    assert registered == companion.cli.OWNERS


def test_a_named_command_builds_only_its_own_parser():
    parser = companion.cli.parser_for(["replay", "log.jsonl"])
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(commands.choices) == ["replay"]
    full = companion.cli.parser_for(["--help"])
    assert set(next(a for a in full._actions if isinstance(a, argparse._SubParsersAction)).choices) == \
        set(companion.cli.OWNERS)
