"""A stage's end scored: the landing against the nest card, then the movement cards on the board after it.

`score(data)` reads the public stage-scoring format (the one the
`companion score flock` command and the page's POST take) and answers in it.

>>> bird = lambda owner, sex: {"owner": owner, "sex": sex}
>>> board = [[bird("kite", "M"), None, None, None, None],
...          [bird("crane", "F"), bird("kite", "F"), None, None, None],
...          [bird("crane", "M"), bird("crane", "F"), bird("kite", "M"), None, {"owner": "neutral"}]]
>>> result = score({"players": ["crane", "kite"], "board": board, "nest": {"points": [3, 7, 11], "pair": 3}})
>>> result["landed"]["kite"], result["scores"]["crane"]["stage"]
({'M': 2, 'F': 1, 'count': 3, 'pairs': 1}, 0)
"""

from companion.errors import BadInput
from companion.flock.birds import read_players
from companion.flock.board import birds_of, land, read_board, width
from companion.flock.cards import MAX_CARDS_SCORED, movement_points, nest_points, read_movement, read_nest, tally
from companion.fields import items, record, whole, yes_no

FIELDS = ("players", "board", "nest", "movement_cards", "scores_before", "final")
MAX_TOTAL = 10_000  # far beyond any game's score; keeps numbers from outside small


def score(data) -> dict:
    """The stage scored from the public input format (bad input: BadInput naming the field)."""
    record(data, "", FIELDS, required=("players", "board", "nest"))
    players = read_players(data["players"])
    board = read_board(data["board"], players)
    nest = read_nest(data["nest"])
    cards = read_hands(data.get("movement_cards", {}), players, width(board))
    before = read_scores(data.get("scores_before", {}), players)
    final = yes_no(data.get("final", False), "final")
    return scored(players, board, nest, cards, before, final)


def read_hands(value, players: list[str], columns: int, field: str = "movement_cards") -> dict[str, list[dict]]:
    """Each player's movement cards scored this stage (players left out score none)."""
    hands = {p: [] for p in players}
    for player, cards in record(value, field, players).items():  # players left out score none
        try:
            items(cards, f"{field}.{player}", 0, MAX_CARDS_SCORED)
        except BadInput:
            raise BadInput(f"{field}.{player}", f"expected a list of at most {MAX_CARDS_SCORED} cards",
                           code="flock.refused.cards_scored", params={"limit": MAX_CARDS_SCORED}) from None
        hands[player] = [read_movement(card, columns, f"{field}.{player}[{i}]") for i, card in enumerate(cards)]
    return hands


def read_scores(value, players: list[str], field: str = "scores_before") -> dict[str, int]:
    record(value, field, players)
    return {p: whole(value.get(p, 0), f"{field}.{p}", -MAX_TOTAL, MAX_TOTAL) for p in players}


def scored(players, board, nest, cards, before, final) -> dict:
    """The stage's result from checked values (the public output format)."""
    birds, after = land(board)
    landed = {p: tally(birds, p) for p in players}
    scores = {}
    for p in players:
        from_nest = nest_points(nest, landed[p], p)
        from_cards = sum(movement_points(card, after, p) for card in cards[p])
        stage = from_nest + from_cards
        scores[p] = {"nest": from_nest, "movement": from_cards, "stage": stage, "total": before[p] + stage}
    result = {"landed": landed, "board_after_landing": after, "scores": scores,
              "birds_on_board": {p: birds_of(after, p) for p in players}}
    if final:
        result["winners"] = winners({p: s["total"] for p, s in scores.items()}, result["birds_on_board"])
    return result


def winners(totals: dict[str, int], birds_on_board: dict[str, int]) -> list[str]:
    """Most points wins; a tie goes to fewer birds on the board; still tied, the win is shared."""
    best = max(totals.values())
    tied = [p for p, t in totals.items() if t == best]
    fewest = min(birds_on_board[p] for p in tied)
    return [p for p in tied if birds_on_board[p] == fewest]


def tie_break(totals: dict[str, int], birds_on_board: dict[str, int]) -> str:
    """How the winners were found: "points", "fewer_birds" or "shared"."""
    best = max(totals.values())
    tied = [p for p, t in totals.items() if t == best]
    if len(tied) == 1:
        return "points"
    return "fewer_birds" if len(winners(totals, birds_on_board)) == 1 else "shared"
