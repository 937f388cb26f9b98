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
