"""Every subcommand answers bad input with one line naming what is wrong, exit 2 (1: the table cannot start),
never a traceback, and leaves nothing behind: no file or folder made by a mistyped path."""

import argparse
import json
import os
import subprocess
import sys

import pytest

from companion.cli import build_parser

from conftest import ROOT

LOG = '{"t": 0, "type": "setup", "event": "training"}\n{"t": 12.5, "type": "end"}\n'


def files_in(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def refused(cli, folder, *args, stdin=None, named=None, codes=(2,)):
    """Run `companion ARGS` in `folder`; it must refuse in one line that names `named`, making no file."""
    before = files_in(folder)
    done = cli(*args, stdin=stdin)
    assert done.returncode in codes, (args, done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    if named:
        assert named in lines[0], lines[0]
    assert files_in(folder) == before, "a refused command left files behind"
    return lines[0]


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "garbage.bin").write_bytes(b"\x00not a database\xff" * 64)
    (tmp_path / "history.jsonl").write_text("")
    (tmp_path / "show.jsonl").write_text(LOG)
    (tmp_path / "a-folder").mkdir()
    # The owner's config with its database mistyped: not a database, a folder, in a folder that is not there.
    for config, database in (("garbage.toml", "garbage.bin"), ("folder.toml", "a-folder"),
                             ("nowhere.toml", "no/such/dir/x.sqlite3")):
        (tmp_path / config).write_text(f'[table]\ndatabase = "{tmp_path / database}"\n')
    return tmp_path


# (arguments with {d} for the temp folder, what the line must name, the exit codes allowed)
CASES = [
    (["history", "export", "{d}/out.jsonl", "--db", "{d}/garbage.bin"], "garbage.bin", (1, 2)),
    (["history", "import", "{d}/history.jsonl", "--db", "{d}/garbage.bin"], "garbage.bin", (1, 2)),
    (["history", "export", "{d}/out.jsonl", "--db", "{d}/typo.sqlite3"], "typo.sqlite3", (2,)),
    (["history", "export", "{d}/out.jsonl", "--db", "{d}/no/such/dir/x.sqlite3"], "x.sqlite3", (2,)),
    (["history", "import", "{d}/history.jsonl", "--db", "{d}/no/such/dir/x.sqlite3"], "x.sqlite3", (2,)),
    (["history", "export", "{d}/out.jsonl", "--config", "{d}/nosuch.toml"], "nosuch.toml", (2,)),
    (["history", "export", "-", "--db", "{d}/a.sqlite3", "--config", "{d}/b.toml"], "--config", (2,)),
    (["hall", "--port", "-1"], "--port", (2,)),
    (["hall", "--port", "99999"], "--port", (2,)),
    (["hall", "--port", "x"], "--port", (2,)),
    (["hall", "--host", "999.1.1.1"], "--host", (2,)),
    (["demo", "--db", "{d}/no/such/dir/x.sqlite3"], "x.sqlite3", (2,)),
    (["demo", "--port", "99999"], "--port", (2,)),
    (["demo", "--speed", "x"], "--speed", (2,)),
    (["run", "--config", "{d}/nosuch.toml", "--mock"], "nosuch.toml", (2,)),
    (["run", "--port", "-1"], "--port", (2,)),
    (["check-hw", "--config", "{d}/nosuch.toml", "--mock", "--once"], "nosuch.toml", (2,)),
    (["calibrate", "red", "--config", "{d}/nosuch.toml", "--mock"], "nosuch.toml", (2,)),
    (["calibrate", "red", "--runs", "x"], "--runs", (2,)),
    (["setup", "--reopen", "--config", "{d}/typo.toml"], "typo.toml", (2,)),
    (["setup", "--config", "{d}/typo.toml"], "typo.toml", (2,)),
    (["replay", "{d}/nosuch.jsonl"], "nosuch.jsonl", (2,)),
    (["replay", "{d}/garbage.bin"], "garbage.bin", (2,)),
    (["score", "flock", "{d}/nosuch.json"], "nosuch.json", (2,)),
    (["score", "chess", "{d}/show.jsonl"], "chess", (2,)),
    (["geese", "simulate", "--jobs", "0"], "--jobs", (2,)),
    (["geese", "simulate", "--jobs", "x"], "--jobs", (2,)),
    (["geese", "simulate", "--games", "0"], "--games", (2,)),
    (["geese", "simulate", "--players", "x"], "--players", (2,)),
    (["geese", "simulate", "--rules", "{d}/nosuch.toml"], "nosuch.toml", (2,)),
    (["hub", "check", "{d}/nosuch-port", "--once"], "nosuch-port", (1, 2)),
    (["demo", "--host", "999.1.1.1"], "--host", (2,)),
    (["demo", "--pin", "12"], "--pin", (2,)),
    (["demo", "--mqtt", "ftp://example"], "--mqtt", (2,)),
    (["run", "--host", "999.1.1.1"], "--host", (2,)),
    (["history", "import", "{d}/history.jsonl", "--config", "{d}/nosuch.toml"], "nosuch.toml", (2,)),
    (["geese", "simulate", "--seed", "x"], "--seed", (2,)),
    (["geese", "simulate", "--compare", "{d}/nosuch.toml"], "nosuch.toml", (2,)),
    (["geese", "simulate", "--strategies", "nosuch"], "nosuch", (2,)),
    (["geese", "simulate", "--games", "1", "--plot", "{d}/no/such/dir/x.svg"], "x.svg", (2,)),
    (["hub", "fake", "--timers", "9"], "--timers", (2,)),
    (["hub", "fake", "--seed", "x"], "--seed", (2,)),
    (["hall", "--mqtt", "ftp://example"], "--mqtt", (2,)),
    (["hall", "--config", "{d}/nosuch.toml"], "nosuch.toml", (2,)),
    (["hall", "--base", "a/#"], "--base", (2,)),
    (["hall", "--db", "{d}/no/such/dir/x.sqlite3"], "x.sqlite3", (2,)),
    (["hall", "remove", "t1", "--db", "{d}/nosuch.sqlite3"], "--db", (2,)),
    (["backup", "{d}/no/such/dir/x.tar.gz", "--config", "{d}/nosuch.toml"], "nosuch.toml", (2,)),
    (["restore", "{d}/garbage.bin", "--config", "{d}/nosuch.toml"], "backup", (2,)),
    (["restore", "{d}/nosuch.tar.gz"], "nosuch.tar.gz", (2,)),
    (["update", "{d}/nosuch.whl"], "nosuch.whl", (2,)),
    (["update", "{d}/show.jsonl"], "show.jsonl", (2,)),
    (["update", "{d}", "--config", "{d}/nosuch.toml"], "nosuch.toml", (2,)),
    (["update", "{d}", "--timeout", "x"], "--timeout", (2,)),
    (["update", "{d}", "--timeout", "0"], "--timeout", (2,)),
    (["backup", "{d}/b.tar.gz", "--config", "{d}/garbage.toml"], "garbage.bin", (1,)),
    (["restore", "{d}", "--config", "{d}/garbage.toml"], "cannot read it", (2,)),
    (["restore", "{d}/show.jsonl", "--config", "{d}/garbage.toml"], "not a table backup", (2,)),
    (["setup", "--config", "{d}/garbage.toml"], "garbage.bin", (1,)),
    (["setup", "--reopen", "--config", "{d}/folder.toml"], "is a folder", (2,)),
    (["setup", "--reopen", "--config", "{d}/nowhere.toml"], "no such folder", (2,)),
    (["setup", "--new-pin", "--config", "{d}/nowhere.toml"], "no such folder", (2,)),
    (["setup", "--new-pin", "--config", "{d}/folder.toml"], "is a folder", (2,)),
    (["update", "{d}", "--wheels", "{d}/a-folder"], "--wheels", (2,)),
    (["nosuch-command"], "nosuch-command", (2,)),
    (["demo", "--nosuch-option"], "--nosuch-option", (2,)),
]


@pytest.mark.parametrize("args, named, codes", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_refused_in_one_line_leaving_nothing(cli, folder, args, named, codes):
    refused(cli, folder, *[a.format(d=folder) for a in args], named=named, codes=codes)


def valued_options(parser, words=()):
    """(command words, option) for every option of every subcommand that takes a value."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from valued_options(child, (*words, name))
            return
    for action in parser._actions:
        if action.option_strings and action.nargs != 0 and not isinstance(action, argparse._HelpAction):
            yield words, max(action.option_strings, key=len)


def test_every_option_that_takes_a_value_has_a_bad_value_above():
    tried = {(tuple(args[:len(words)]), option) for args, _, _ in CASES
             for words in [args] for option in args if option.startswith("--")}
    missing = [f"{' '.join(words)} {option}" for words, option in valued_options(build_parser())
               if not any(option == o and args[:len(words)] == words for args, o in tried)]
    assert missing == []


def test_a_failed_import_leaves_no_database(cli, folder):
    (folder / "bad.jsonl").write_text('{"not": "a history"}\n')
    refused(cli, folder, "history", "import", str(folder / "bad.jsonl"), "--db", str(folder / "new.sqlite3"))


def quiet_into_a_closed_pipe(*args):
    """`companion ARGS | head -0`: the reader is gone before the first byte; the command ends quietly."""
    read, write = os.pipe()
    os.close(read)  # before the command starts, so its first write meets a closed pipe every time
    try:
        done = subprocess.run([sys.executable, "-m", "companion", *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(write)
    assert done.stderr == "", done.stderr
    assert done.returncode == 141  # as a filter killed by SIGPIPE shows in a shell: 128 + 13


def test_a_closed_pipe_ends_replay_quietly(folder):
    quiet_into_a_closed_pipe("replay", str(folder / "show.jsonl"))


def test_a_closed_pipe_ends_score_quietly(folder):
    game = folder / "game.json"
    game.write_text(json.dumps({"players": ["a", "b", "c"],
                                "migrations": {"c": [[{"n": 2, "suit": "gull"}, {"n": 2, "suit": "goose"}]]}}))
    quiet_into_a_closed_pipe("score", "geese", str(game))


def test_a_closed_pipe_ends_geese_simulate_quietly():
    quiet_into_a_closed_pipe("geese", "simulate", "--games", "2", "--jobs", "1")
