"""`companion score flock|geese FILE`: a board-game record scored, the result printed as JSON.

Each game's package (`companion.flock`, `companion.geese`) offers
`score(data) -> dict` on the parsed JSON and raises BadInput naming the
field; this shell only reads the file and prints.
"""

import importlib
import json
import sys

from companion import jsonin
from companion.cli.common import Refusal
from companion.errors import BadInput

ORDER = 40  # place in `companion --help`


class GameNames:
    """The board games the table keeps (table.games.KINDS) as argparse's choices, looked up only when `score` is
    parsed: registering the command must not load the table for every other command.

    >>> "geese" in GameNames(), "chess" in GameNames()
    (True, False)
    """

    @staticmethod
    def _names() -> tuple[str, ...]:
        from companion.table.games import KINDS
        return tuple(KINDS)

    def __contains__(self, name) -> bool:
        return name in self._names()

    def __iter__(self):
        return iter(self._names())


def read_text(path: str) -> str:
    """The whole of a file, or of stdin for '-'."""
    if path == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape")
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", errors="surrogateescape")
    except OSError as e:
        raise Refusal(f"{path}: cannot read ({e.strerror})") from None


def cmd_score(args) -> int:
    game = importlib.import_module(f"companion.{args.game}")
    try:
        result = game.score(jsonin.parse(read_text(args.file), "input"))
    except BadInput as e:
        raise Refusal(f"{args.file}: {e}") from None
    print(json.dumps(result, ensure_ascii=False))
    return 0


def register(sub) -> None:
    score = sub.add_parser("score", help="score an Über den Wolken stage (flock) or a 帰る雁 game (geese)")
    score.add_argument("game", choices=GameNames(), metavar="GAME", help="the game: %(choices)s")
    score.add_argument("file", metavar="FILE", help="the JSON input, or - for stdin")
    score.set_defaults(func=cmd_score)
