"""The shell blocks of the README, docs/ and hw/ (both languages), and a reader who runs them in order.

A block is run as written unless the line before it marks why it cannot be here:

    <!-- needs: pi: the service's own journal -->     it runs on the table's Raspberry Pi
    <!-- serves: "Ctrl-C stops" -->                   it runs until Ctrl-C; what it prints once it is ready

`needs:` takes one word of NEEDS and a reason. A `serves:` block is started as in a terminal of its own; the
blocks after it run once it has printed its words, the address it prints (if any) must answer, and it is
stopped with Ctrl-C when the document's blocks are done. A line whose comment says Ctrl-C stops it (a live
stream) is stopped once it has printed something.
"""

import re
from dataclasses import dataclass
from pathlib import Path

NEEDS = {
    "pi": "runs on the table's Raspberry Pi (its service, its journal, its pins, its /etc/companion)",
    "root": "changes the computer it runs on (installs packages, writes /etc, starts services)",
    "network": "reaches another computer (the Pi over ssh, a hall's broker by its name)",
    "suite": "is the test suite itself, which runs these blocks",
}
SHELLS = ("sh", "bash", "shell", "console")
COMMAND_WORDS = ("companion", "sudo", "python", "python3", ".venv/", "curl", "git", "openscad", "pip")

_FENCE = re.compile(r"^\s*```(\S*)\s*$")
_MARK = re.compile(r"^\s*<!--\s*(needs|serves):\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int  # of the opening fence, 1-based
    text: str
    needs: str | None = None  # a word of NEEDS
    reason: str = ""
    serves: str | None = None  # what it prints once it is ready
    inline: bool = False  # a command quoted in a sentence (inline_commands.py), not a fenced block

    @property
    def commands(self) -> str:
        """The block without comments or blank lines: the same in both languages."""
        lines = (re.sub(r"(^|\s)#.*", "", line).rstrip() for line in self.text.splitlines())
        return "\n".join(line for line in lines if line.strip())


def follows(block: Block) -> list[int]:
    """The lines of a block its comments say Ctrl-C stops (a live stream): they are stopped once they print."""
    lines = block.text.replace("\\\n", " ").splitlines()
    return [i for i, line in enumerate(lines) if "Ctrl-C" in line.partition(" #")[2]]


def documents(root: Path) -> list[Path]:
    return [root / "README.md", root / "README.ja.md", *sorted((root / "docs").rglob("*.md")),
            *sorted((root / "hw").rglob("*.md"))]


def fences(path: Path):
    """(language, line of the opening fence, the line before it, the body) of each fenced block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not _FENCE.match(lines[end]):
            end += 1
        indent = len(lines[i]) - len(lines[i].lstrip())
        body = "\n".join(line[indent:] for line in lines[i + 1:end])
        before = next((line for line in reversed(lines[:i]) if line.strip()), "")
        yield opening.group(1), i + 1, before, body
        i = end + 1


def blocks(path: Path) -> list[Block]:
    found = []
    for language, line, before, body in fences(path):
        if language not in SHELLS:
            continue
        mark = _MARK.match(before)
        if mark is None:
            found.append(Block(path, line, body))
        elif mark.group(1) == "needs":
            need, _, reason = mark.group(2).partition(":")
            found.append(Block(path, line, body, needs=need.strip(), reason=reason.strip()))
        else:
            found.append(Block(path, line, body, serves=mark.group(2).strip().strip('"')))
    return found


def unlabelled_commands(path: Path):
    """(line, first line) of each fence with no language whose first word is a command a reader would run."""
    for language, line, _, body in fences(path):
        first = body.lstrip().split("\n", 1)[0]
        if not language and first.startswith(COMMAND_WORDS) and not re.match(r"companion \w+: ", first):
            yield line, first


# What a reader runs on this computer differs from the page in one way only: addresses. The table and the hall
# listen on ports leased for the run (the pages' 8000 and 8100 may be taken), the broker is one started for the
# run, and the hall's computer ("hall.local") is this one.
def local_addresses(text: str, table: int, hall: int, broker: int) -> str:
    text = text.replace("127.0.0.1:8000", f"127.0.0.1:{table}").replace("--port 8100", f"--port {hall}")
    text = re.sub(r"(?:hall\.local|127\.0\.0\.1):1883", f"127.0.0.1:{broker}", text)
    text = text.replace("-h hall.local", f"-h 127.0.0.1 -p {broker}").replace("hall.local", "127.0.0.1")
    text = re.sub(r"\S*companion hall\b[^#\n&|;]*?(?=\s*(?:$|#|&&|\|\||;))",
                  lambda m: m[0] if re.search(r"--port| remove\b", m[0]) else f"{m[0]} --port {hall}", text,
                  flags=re.M)
    return re.sub(r"\S*companion (?:demo|run)\b[^#\n&|;]*?(?=\s*(?:$|#|&&|\|\||;))",
                  lambda m: m[0] if "--port" in m[0] else f"{m[0]} --port {table} --no-mdns", text, flags=re.M)


PRELUDE = r"""set -euo pipefail
set -m  # each command started in the background has its own process group, and Ctrl-C (SIGINT) reaches it
curl() { command curl --fail-with-body "$@"; }  # an answer that is not 2xx stops the run
_serving=()
_gone() {  # PID: wait until the process group PID has ended after Ctrl-C, up to half a minute; else say what is left
    local waited=0
    while kill -0 -- "-$1" 2>/dev/null; do
        if [ $((waited += 1)) -gt 600 ]; then
            echo "still running after Ctrl-C:" >&2; ps -o pid,stat,wchan:20,args -g "$1" >&2 || true
            kill -KILL -- "-$1" 2>/dev/null || true; return 1
        fi
        sleep 0.05
    done
}
_stop() {
    local status=$? pid
    for pid in "${_serving[@]}"; do kill -INT -- "-$pid" 2>/dev/null || true; done
    for pid in "${_serving[@]}"; do _gone "$pid" || status=1; done
    exit "$status"
}
trap _stop EXIT
_ready() {  # FILE WORDS PID: wait until FILE holds WORDS (any output when WORDS is empty), or fail showing it
    local waited=0
    until grep -qF -- "$2" "$1" 2>/dev/null && [ -s "$1" ]; do
        if ! kill -0 "$3" 2>/dev/null || [ $((waited += 1)) -gt 1200 ]; then
            echo "never printed '$2':"; cat "$1"; exit 1
        fi
        sleep 0.05  # polls for the words, up to a minute; a finished program fails at once
    done
}
_until() {  # COMMAND...: run it until it succeeds, up to a minute (what a page says comes about, seen to come)
    local waited=0
    until "$@" > /dev/null 2>&1; do
        if [ $((waited += 1)) -gt 1200 ]; then echo "never came about: $*"; exit 1; fi
        sleep 0.05
    done
}
_serve() {  # N WORDS: block N, as in a terminal of its own; its address (if it prints one) answers
    bash "serve-$1.sh" > "serve-$1.log" 2>&1 < /dev/null & _serving+=($!)
    _ready "serve-$1.log" "$2" $!
    local url; url=$(grep -o 'http://[^ ]*' "serve-$1.log" | head -n 1 || true)
    if [ -n "$url" ]; then curl -s -o /dev/null "$url"; fi
}
_briefly() {  # N WORDS: a server a sentence names: started as by _serve, then stopped with Ctrl-C at once
    _serve "$1" "$2"
    local pid=${_serving[-1]}
    unset '_serving[-1]'
    kill -INT -- "-$pid" 2>/dev/null || true; _gone "$pid" || exit 1
}
_follow() {  # a live stream: stopped with Ctrl-C once it has printed something
    local log="follow-$RANDOM.log"
    ( eval "$1" ) > "$log" 2>&1 < /dev/null & local pid=$!
    _ready "$log" "" $pid
    kill -INT -- "-$pid" 2>/dev/null || true; _gone "$pid" || exit 1
    cat "$log"
}
"""


def script(doc_blocks: list[Block], folder: Path, then: str = "", **ports: int) -> str:
    """One bash script that runs every block not marked `needs:`, in order, as a reader would, and `then` (what
    the page says comes about) while what they serve still serves; a `serves:` block is written beside it
    (serve-N.sh) in `folder`. A command quoted in a sentence (`inline`) that serves is stopped once it is seen
    to serve (the sentence does not leave it running), and listens on a port of its own, `aside`, beside what the
    page's blocks serve."""
    parts = [PRELUDE]
    aside = ports.pop("aside", 0) or ports["table"]
    for number, block in enumerate(doc_blocks):
        if block.needs:
            continue
        briefly = block.inline and block.serves is not None
        text = local_addresses(block.text, **({**ports, "table": aside, "hall": aside} if briefly else ports))
        parts.append(f"# {block.doc.name}:{block.line}")
        if block.serves is not None:
            (folder / f"serve-{number}.sh").write_text(text + "\n")
            parts.append(f"{'_briefly' if briefly else '_serve'} {number} {_quote(block.serves)}")
            continue
        stopped = follows(block)
        for i, line in enumerate(text.replace("\\\n", " ").splitlines()):
            parts.append(f"_follow {_quote(line.partition(' #')[0].strip())}" if i in stopped else line)
    return "\n".join([*parts, then]) + "\n"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
