"""`companion replay LOG`: a show log replayed, its result printed as JSON."""

import json

from companion.cli.common import Refusal, read_lines

ORDER = 30  # place in `companion --help`


def cmd_replay(args) -> int:
    from companion.skyrockets.log import LogError, replay

    try:
        show = replay(read_lines(args.log))
    except LogError as e:
        where = f"{e.field}: " if e.field else ""
        raise Refusal(f"{args.log}:{e.line}: {where}{e.problem}") from None
    print(json.dumps(show.result(), ensure_ascii=False))
    return 0


def register(sub) -> None:
    replay = sub.add_parser("replay", help="replay a Skyrockets show log and print the result as JSON")
    replay.add_argument("log", help="show log (JSON Lines), or - for stdin")
    replay.set_defaults(func=cmd_replay)
