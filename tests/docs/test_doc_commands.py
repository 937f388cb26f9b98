"""Every shell block of the README, docs/ and hw/, and every command a sentence quotes, is run in order as a reader
would, or marked with why not.

A document's blocks run in one bash process, in a folder of their own that stands for the reader's: a fresh
HOME holding the project's docs/, hw/ and bench/, its venv as `.venv` (`companion` on PATH), a clone of the
checkout beside it as `companion` (the folder a laptop holds it in). Each command must succeed, each HTTP answer
be 2xx, each address a server prints answer, and the files the page makes be there. Blocks marked `needs:`
(shell_blocks.NEEDS) are the Pi's, root's or another computer's, and are not run here. The commands quoted in
sentences run in their place among the blocks, under the same marks (inline_commands.py). A Japanese page holds
the same commands as its English one (checked below), so the English page's run stands for both.
"""

import fcntl
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, _lock_file, free_port, need
from inline_commands import inline_commands
from shell_blocks import NEEDS, SHELLS, blocks, documents, fences, follows, script, unlabelled_commands

from companion.mqtt.mosquitto import Mosquitto, mosquitto_missing

# What each page leaves in the reader's folder once its blocks have run (besides every command succeeding).
MAKES = {
    "docs/web.md": ["show-1.jsonl"],
    "docs/geese.md": ["draft.svg", "compare.svg"],
    "docs/hall.md": [".local/state/companion/hall.sqlite3"],
    "docs/raspberry-pi.md": ["companion.tar.gz"],
    "hw/ASSEMBLY.md": ["cradle.stl", "ring.stl", "cradle-red.stl"],
}
# What a page says comes about, checked while its servers still serve (bash, the run's helpers at hand).
THEN = {
    "docs/hub.md": """red_on_the_hub() {  # the table reads the hub's red glass, as it stands (a_up) and with no fault
    curl -s "$(grep -o 'http://[^ ]*' serve-1.log)api/show" | grep -qF '"red":{"source":"hub","pose":"a_up","fault":null'
}
_until red_on_the_hub""",
}
# As from a terminal: Ctrl-C, and the other signals a terminal sends, reach the page's commands (a test runner's
# worker ignores them, and a shell cannot take back what it was started ignoring).
TERMINAL = ["env", "--default-signal=HUP,INT,QUIT", "bash"]
# Pages whose blocks take more than a few seconds run with the whole-system tests (`pytest -m system`).
SLOW = {
    "README.md": "makes a fresh venv and installs the project into it",
    "docs/geese.md": "plays 30 000 simulated games",
    "hw/ASSEMBLY.md": "renders the cradle with OpenSCAD four times and measures its meshes",
}


def steps(doc) -> list:
    """The page's blocks and the commands its sentences quote, in the page's order."""
    return sorted([*blocks(doc), *inline_commands(doc)[0]], key=lambda step: step.line)


def english(doc) -> str:
    return str(doc.relative_to(ROOT)).replace(".ja.md", ".md")


def pages(slow: bool):
    return [pytest.param(doc, id=str(doc.relative_to(ROOT))) for doc in documents(ROOT)
            if not doc.name.endswith(".ja.md") and any(not step.needs for step in steps(doc))
            and (english(doc) in SLOW) == slow]


def test_every_block_and_quoted_command_is_run_or_says_what_it_needs():
    wrong = []
    for doc in documents(ROOT):
        name = doc.relative_to(ROOT)
        for step in steps(doc):
            if step.needs is not None and (step.needs not in NEEDS or not step.reason):
                wrong.append(f"{name}:{step.line}: needs one of {', '.join(NEEDS)} and a reason: {step.needs!r}")
        wrong += [f"{doc.parent.relative_to(ROOT)}/{what}" for what in inline_commands(doc)[1]]
        for line, first in unlabelled_commands(doc):
            wrong.append(f"{name}:{line}: a command in a block with no language: ```sh, and run or marked: {first}")
    assert wrong == []


def test_the_japanese_pages_hold_the_same_commands_with_the_same_marks():
    """The blocks, and the commands the sentences quote, are the same commands in both languages, so the English
    page's run stands for both; a marked block may differ (a country code), and one sentence may quote its
    commands in the order its language puts them."""
    def said(page):
        by_paragraph = {}
        for step in steps(page):
            by_paragraph.setdefault(step.line, []).append((step.needs or step.commands, step.serves, follows(step)))
        return [entry for line in sorted(by_paragraph) for entry in sorted(by_paragraph[line], key=str)]

    differ = []
    for doc in documents(ROOT):
        if doc.name.endswith(".ja.md"):
            continue
        japanese = doc.with_name(doc.name.replace(".md", ".ja.md"))
        ours, theirs = said(doc), said(japanese)
        if ours != theirs:
            differ.append(f"{japanese.relative_to(ROOT)}: {[t for t in theirs if t not in ours]} "
                          f"where {doc.relative_to(ROOT)} has {[o for o in ours if o not in theirs]}")
    assert differ == []


def test_a_block_neither_run_nor_marked_is_found(tmp_path):
    """The check above, on a page of its own: a new unlabelled command and a mark with no reason are named."""
    page = tmp_path / "page.markdown"  # a page of its own, not one the repo names
    page.write_text("<!-- needs: pi -->\n```sh\ncompanion check-hw\n```\n\n```\nsudo companion backup x\n```\n")
    (marked,) = blocks(page)
    assert marked.needs == "pi" and marked.reason == ""
    assert list(unlabelled_commands(page)) == [(6, "sudo companion backup x")]


def test_a_command_in_a_sentence_runs_in_its_place_unless_marked(tmp_path):
    """A sentence's command runs where the page quotes it (after the block that makes its file, so it succeeds),
    its mark is read as a block's is (one with no reason is left for the check above to name), and a paragraph's
    mark that marks no command is named."""
    page = tmp_path / "page.markdown"
    page.write_text("```sh\necho made > made.txt\n```\n\nThen `tar -cf made.tar made.txt` packs it, and\n"
                    "`journalctl -u companion` <!-- needs: pi: the service's journal --> says why.\n\n"
                    "<!-- needs: pi -->\n`companion setup --reopen` reopens it.\n\n"
                    "<!-- needs: pi: the table's service -->\nThe table (`companion`) starts.\n")
    found, wrong = inline_commands(page)
    assert [(step.text, step.needs, step.reason) for step in found] == [
        ("tar -cf made.tar made.txt", None, ""), ("journalctl -u companion", "pi", "the service's journal"),
        ("companion setup --reopen", "pi", "")]
    assert wrong == ["page.markdown:12: a mark before a paragraph with no unmarked command in it"]
    (tmp_path / "run.sh").write_text(script(steps(page), tmp_path, table=0, hall=0, broker=0))
    done = subprocess.run([*TERMINAL, "run.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "made.tar").is_file()
    unmade = tmp_path / "unmade"  # the sentence alone, with no block before it to make its file: it fails
    unmade.mkdir()
    (unmade / "run.sh").write_text(script(found, unmade, table=0, hall=0, broker=0))
    assert subprocess.run([*TERMINAL, "run.sh"], cwd=unmade, capture_output=True, timeout=60).returncode != 0


def test_a_live_stream_stops_on_ctrl_c_even_under_a_runner_that_ignores_it(tmp_path):
    """A page's live stream is stopped with Ctrl-C; run from a process that ignores Ctrl-C (as a test runner's
    worker does), it would run on and the page would wait for it for ever."""
    import signal

    page = tmp_path / "stream.markdown"
    page.write_text("```sh\nwhile sleep 0.1; do echo tick; done   # ticks until Ctrl-C stops it\n```\n")
    (tmp_path / "run.sh").write_text(script(blocks(page), tmp_path, table=0, hall=0, broker=0))
    done = subprocess.run([*TERMINAL, "run.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert done.returncode == 0, done.stderr


def reader_folder(tmp_path, doc):
    """The reader's folder for `doc`: for the README a copy of the checkout (its first command makes the venv),
    else a HOME with the project's docs/, hw/ and bench/, its venv and a clone of the checkout beside them."""
    home = tmp_path / "home"
    if english(doc) == "README.md":
        files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        for name in filter(None, files.decode().split("\0")):
            if (ROOT / name).is_file():
                (home / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, home / name)
        return home
    for part in ("docs", "hw", "bench"):
        shutil.copytree(ROOT / part, home / part)
    (home / ".venv").symlink_to(sys.prefix)
    subprocess.run(["git", "clone", "-q", "--shared", ROOT, home / "companion"], check=True)  # not the checkout
    for language, _, _, body in fences(doc):  # a file the page shows under its name, the reader saves
        first = body.split("\n", 1)[0]
        if language not in SHELLS and first.startswith("# ") and "/" not in first and "." in first[2:]:
            (home / first[2:].split()[0]).write_text(body)
    return home


def run_the_page(tmp_path, doc):
    home = reader_folder(tmp_path, doc)
    env = {**os.environ, "HOME": str(home), "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}",
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("VIRTUAL_ENV", None)
    text = "\n".join(b.text for b in steps(doc) if not b.needs)
    broker = None
    if ":1883" in text:
        if mosquitto_missing():
            need("mosquitto")
        broker = Mosquitto(tmp_path / "broker").start()
    try:
        ports = {"table": free_port(), "hall": free_port(), "aside": free_port(),
                 "broker": broker.port if broker else 0}
        (home / "run.sh").write_text(script(steps(doc), home, THEN.get(english(doc), ""), **ports))
        with _lock_file(f"page-{english(doc).replace('/', '-')}") as lock:  # a page may name a fixed file
            fcntl.flock(lock, fcntl.LOCK_EX)  # (the hub's /tmp/companion-hub): one reader of a page at a time
            done = subprocess.run([*TERMINAL, "run.sh"], cwd=home, env=env, capture_output=True, text=True,
                                  timeout=900)
    finally:
        if broker:
            broker.stop()
    served = "".join(f"\n--- {log.name}:\n{log.read_text()[-600:]}" for log in sorted(home.glob("serve-*.log")))
    assert done.returncode == 0, f"{doc.name}: {done.stdout[-1500:]}\n{done.stderr[-1500:]}{served}"
    missing = [made for made in MAKES.get(english(doc), []) if not (home / made).is_file()]
    assert missing == [], f"{doc.name} did not make {missing}"
    return done


@pytest.mark.parametrize("doc", pages(slow=False))
def test_the_page_runs_as_written(tmp_path, doc):
    run_the_page(tmp_path, doc)


@pytest.mark.system
@pytest.mark.timeout(900)  # the page's own limit (run_the_page): ASSEMBLY renders and measures the cradle
@pytest.mark.parametrize("doc", pages(slow=True))
def test_the_slow_page_runs_as_written(tmp_path, doc):
    if english(doc) == "hw/ASSEMBLY.md":
        need("openscad", "xvfb-run")
    run_the_page(tmp_path, doc)
