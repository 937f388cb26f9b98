"""The documents' examples work as written."""

import re

from conftest import ROOT


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def sh_blocks(path):
    return re.findall(r"```sh\n(.*?)```", path.read_text(), re.S)


def test_the_web_apis_curl_block_runs_in_order_on_a_demo_table(tmp_path):
    """docs/web.md's curl lines, run as written one after the other (the live stream, which never ends, left
    out): each answers 2xx. The second start came before the abort, and was refused (409)."""
    import os
    import subprocess
    import sys

    from companion.table import demo_table
    from companion.web.server import ServerThread, make_server

    for doc in ("web.md", "web.ja.md"):
        (block,) = [b for b in sh_blocks(ROOT / "docs" / doc) if b.startswith("TABLE=")]
        script = "\n".join(line for line in block.splitlines() if "/events" not in line)
        table = demo_table(tmp_path / f"{doc}.sqlite3", pin="1234").start()
        server = ServerThread(make_server(table, "127.0.0.1", 0))
        try:
            script = script.replace("http://127.0.0.1:8000", server.url.rstrip("/"))
            done = subprocess.run(["bash", "-c", "set -e\ncurl() { command curl --fail-with-body \"$@\"; }\n" + script],
                                  cwd=tmp_path, capture_output=True, text=True, timeout=60,
                                  env={**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"})
        finally:
            server.close()
            table.stop()
        assert done.returncode == 0, f"{doc}: {done.stdout[-300:]} {done.stderr[-300:]}"


def test_the_scripting_example_plays_a_three_star_win(capsys):
    (code,) = python_blocks(ROOT / "docs" / "scripting.md")
    exec(compile(code, "docs/scripting.md", "exec"), {"__name__": "docs"})
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("win with 3 stars at ")
    assert printed in (ROOT / "docs" / "scripting.md").read_text()


def quoted_commands():
    """Every `companion …` command and `python FILE` quoted in a shell block of the README, docs/ and hw/ (both
    languages), as (document, the command's words)."""
    import shlex

    for path in [ROOT / "README.md", ROOT / "README.ja.md", *sorted((ROOT / "docs").glob("*.md")),
                 *sorted((ROOT / "hw").glob("*.md"))]:
        for block in sh_blocks(path):
            for line in block.replace("\\\n", " ").splitlines():
                for part in re.split(r"&&|\|\||;|\|", line.split(" #")[0]):
                    try:
                        words = shlex.split(part)
                    except ValueError:  # a quote that runs over into the next part: not a command of ours
                        continue
                    while words and (words[0] in ("sudo", "exec") or re.fullmatch(r"[A-Z_]+=\S*", words[0])):
                        words = words[1:]
                    if words and (words[0] == "companion" or words[0].endswith("/companion")
                                  or words[0] in ("python", "python3") and words[1:2] and words[1].endswith(".py")):
                        yield path.relative_to(ROOT), words


def test_every_command_the_docs_quote_is_one_the_program_takes():
    """A command a reader copies from the docs names a real subcommand with real options, and a script that is
    there: each is parsed by the program's own parser (nothing runs)."""
    from companion.cli import build_parser

    parser = build_parser()
    wrong = []
    for doc, words in quoted_commands():
        if words[0].startswith("python"):
            if not (ROOT / words[1]).exists():
                wrong.append(f"{doc}: {' '.join(words)}: no such file")
            continue
        try:
            parser.parse_args(words[1:])
        except SystemExit as e:
            if e.code:
                wrong.append(f"{doc}: {' '.join(words)}")
    assert wrong == []
