"""`companion demo` without --db keeps its fresh database in a folder that goes when the demo stops."""

import os
import signal
import socket
import subprocess
import sys

from conftest import ROOT, free_port


def test_the_demo_leaves_no_temporary_folder_behind(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    port = str(free_port())  # a port free a moment ago (the demo takes ports from 1 up)
    demo = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--port", port, "--pin", "1234"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(scratch)})
    try:
        first = demo.stdout.readline()
        assert "database " + str(scratch) in first, first
        assert "Open http://" in demo.stdout.readline()
        assert [p.name.startswith("companion-demo-") for p in scratch.iterdir()] == [True]
    finally:
        demo.send_signal(signal.SIGTERM)  # what systemctl stop sends; Ctrl-C takes the same way out
        demo.wait(timeout=20)
    assert demo.returncode == 0, demo.stderr.read()
    assert list(scratch.iterdir()) == []


def test_a_demo_that_cannot_start_leaves_no_folder_either(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done = subprocess.run([sys.executable, "-m", "companion", "demo", "--port", port, "--host", "127.0.0.1"],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(scratch)})
    assert done.returncode == 1 and "cannot listen" in done.stderr
    assert list(scratch.iterdir()) == []
