"""`companion replay LOG`: a show log replayed, its result printed as JSON.

The log is streamed: one line in memory at a time, so a journal of any length
replays in the same memory.
"""

import contextlib
import json
import sys

from companion.cli.common import Refusal

ORDER = 30  # place in `companion --help`


def stream_lines(path: str):
    r"""The lines of a file, or of stdin for '-', one at a time, split at `\n` only (other line breaks are text)."""
    try:
        source = contextlib.nullcontext(sys.stdin.buffer) if path == "-" else open(path, "rb")
    except OSError as e:
        raise Refusal(f"{path}: cannot read ({e.strerror or e})") from None
    offset = 0  # bytes before this line, to name where a file stops being UTF-8
    with source as lines:
        try:
            for raw in lines:  # a binary file's lines end at b"\n" only
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise Refusal(f"{path}: not UTF-8 text (byte {offset + e.start + 1})") from None
                offset += len(raw)
                yield text[:-1] if text.endswith("\n") else text
        except OSError as e:
            raise Refusal(f"{path}: cannot read ({e.strerror or e})") from None


def cmd_replay(args) -> int:
    from companion.skyrockets.log import LogError, replay

    try:
        show = replay(stream_lines(args.log), notices=False)
    except LogError as e:
        where = f"{e.field}: " if e.field else ""
        raise Refusal(f"{args.log}:{e.line}: {where}{e.problem}") from None
    print(json.dumps(show.result(), ensure_ascii=False))
    return 0


def register(sub) -> None:
    replay = sub.add_parser("replay", help="replay a Skyrockets show log and print the result as JSON")
    replay.add_argument("log", help="show log (JSON Lines), or - for stdin")
    replay.set_defaults(func=cmd_replay)
