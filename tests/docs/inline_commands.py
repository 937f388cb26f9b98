"""The commands the README, docs/ and hw/ quote inside a sentence (`companion replay show-1.jsonl`), and their marks.

A code span outside the fenced blocks is a command when its first word (after `sudo`) is one of PROGRAMS and
something follows it: `companion` alone names the program, `companion/web/` is a folder and `companion update: …`
a line it prints. Each command is one of three kinds:

- a form (`companion replay LOG`, `companion demo [--port P]`, `companion calibrate` named without its colour):
  it holds a placeholder (a word in capitals or in Japanese, `[…]`, `<…>`, `…`) or lacks the argument its
  command needs. It shows how a command is written, not one to copy; test_docs checks it names a real command
  and real options.
- marked, in the fenced blocks' words: right after it (`` `journalctl -u companion` <!-- needs: pi: … --> ``),
  or on the line just before its paragraph, which marks each command of the paragraph that has no mark of its
  own. `needs:` says why it cannot run here; `serves: "words"` names a command that runs until Ctrl-C, which is
  started, seen to print its words (and the address it prints, if any, to answer) and stopped with Ctrl-C
  before the page goes on.
- run: every other one, in its place among the page's blocks, by the page's run.
"""

import contextlib
import functools
import io
import re
from pathlib import Path

from shell_blocks import _FENCE, Block

PROGRAMS = ("companion", "sudo", "python", "python3", "pip", "curl", "git", "openscad", "systemctl", "journalctl",
            "mosquitto_sub", "mosquitto_pub", "ssh", "scp", "tar", "xvfb-run", "raspi-config", "nmcli", "apt",
            "apt-get", "reboot", "npm", "cd", "rpi-imager", "sha256sum", "circup", "ls", "hostname", "systemd-analyze",
            "qemu-system-aarch64", "mkfs.ext4", "dpkg", "mmdebstrap")
_SPAN = re.compile(r"(`+)(.+?)\1(\s*<!--\s*(needs|serves):\s*(.*?)\s*-->)?")
_MARK_LINE = re.compile(r"^\s*<!--\s*(needs|serves):\s*(.*?)\s*-->\s*$")
# A word the reader fills in: in capitals (FILE), bracketed, elided, or in the page's own language (URL の…).
_PLACEHOLDER = re.compile(r"(?<!\S)[\[<]|…|\.\.\.|(?<![$\w])[A-Z]{2,}(?!\w)|[\u3040-\u30ff\u4e00-\u9fff]")


def paragraphs(path: Path):
    """(line of its first line, the mark on the line before it or None, its text as one line) of each paragraph
    outside the fenced blocks; a list or a table with no blank line in it is one paragraph."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start, mark, text, fenced = 0, None, [], False

    def close(before_a_fence: bool):  # a mark just before a fence is the block's
        return [(start, mark, " ".join(text))] if text or (mark and not before_a_fence) else []

    for number, line in enumerate(lines, 1):
        if not line.strip() and not text and not fenced:
            continue  # a mark may stand a blank line above what it marks, as a block's may
        if _FENCE.match(line) or not line.strip() or fenced:
            if _FENCE.match(line):
                fenced = not fenced
            yield from close(bool(_FENCE.match(line)))
            start, mark, text = number + 1, None, []
        elif not text and mark is None and _MARK_LINE.match(line):
            mark = _MARK_LINE.match(line)
        else:
            if not text:
                start = number
            text.append(line.strip())
    yield from close(False)


def is_command(words: list[str]) -> bool:
    if len(words) < 2 or words[0].endswith(":") or words[1].endswith(":"):
        return False
    return words[0] in PROGRAMS or words[0].startswith(".venv/bin/")


def is_form(text: str) -> bool:
    """A command's form: a placeholder, or a companion subcommand named without the argument it needs."""
    if _PLACEHOLDER.search(text):
        return True
    words = text.split()
    words = words[1:] if words[0] == "sudo" else words
    if words[0] != "companion":
        return False
    said = io.StringIO()
    with contextlib.redirect_stderr(said), contextlib.suppress(SystemExit):
        cli_parser().parse_args(words[1:])
    return "required" in said.getvalue()


@functools.cache
def cli_parser():
    from companion.cli import build_parser

    return build_parser()


def _mark(kind: str, said: str) -> dict:
    if kind == "needs":
        need, _, reason = said.partition(":")
        return {"needs": need.strip(), "reason": reason.strip()}
    return {"serves": said.strip().strip('"')}


def quoted(path: Path):
    """(line of its paragraph, its mark or None, [(span, its own mark or None)]) of each paragraph, a span being
    each command it quotes (forms included) and each code span that carries a mark."""
    for line, mark, text in paragraphs(path):
        spans = []
        for span in _SPAN.finditer(text):
            command = span.group(2).strip().replace("\\|", "|")
            own = _mark(span.group(4), span.group(5)) if span.group(3) else None
            if own or is_command(command.split()):
                spans.append((command, own))
        yield line, mark and _mark(mark.group(1), mark.group(2)), spans


def inline_commands(path: Path) -> tuple[list[Block], list[str]]:
    """The page's commands that run or are marked (not forms), as blocks (`inline`), and what is wrong with its
    marks: a mark on what is never run (a form, a word that is no command), a paragraph's mark that marks none."""
    found, wrong = [], []
    for line, mark, spans in quoted(path):
        unmarked = False
        for command, own in spans:
            if not is_command(command.split()) or is_form(command):
                if own:
                    wrong.append(f"{path.name}:{line}: a mark after `{command}`, which is never run")
                continue
            unmarked |= own is None
            found.append(Block(path, line, command, inline=True, **(own or mark or {})))
        if mark and not unmarked:
            wrong.append(f"{path.name}:{line}: a mark before a paragraph with no unmarked command in it")
    return found, wrong
