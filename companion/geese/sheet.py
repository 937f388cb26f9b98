"""What the pages show, worked out from a record: the ground by number, who earned which VP, the score sheet.

All pure: a page (or a script) hands in a saved game's record and gets
plain data back, with the arithmetic spelled out as numbers the page's
messages put into words.

>>> view = game_view({"players": ["a", "b", "c", "d"], "wintering": [{"n": 6, "suit": "gull"}], "actions": []})
>>> view["ground"][5]["high"], view["next_player"], view["hands"]["a"], view["over"]
(7, 'a', 18, False)
"""

from collections import Counter

from companion.geese.cards import GOOSE, PLAIN_SUITS, SUITS, Card
from companion.geese.replay import Replay
from companion.geese.rules import DEFAULT_RULES, Rules
from companion.geese.scoring import score_migration


def ground_view(replay: Replay) -> list[dict]:
    """Each number's cards in the ground, w(n) and the range a card of it may be used as; a number left out of
    the deck for this many players has no row (no card of it can arrive).

    >>> three = game_view({"players": ["a", "b", "c"], "wintering": [], "actions": []})
    >>> [row["n"] for row in three["ground"]]
    [1, 2, 3, 4, 5]
    """
    ground = replay.ground
    left_out = ground.rules.removed_numbers(len(replay.players))
    rows = []
    for n in (n for n in range(1, ground.rules.max_number + 1) if n not in left_out):
        cards = [{"n": c.n, "suit": c.suit, "count": ground.cards[c]} for c in sorted(ground.cards, key=_order)
                 if c.n == n]
        rows.append({"n": n, "w": ground.w[n], "low": n, "high": ground.top(n), "cards": cards})
    return rows


def game_view(record: dict, rules: Rules = DEFAULT_RULES) -> dict:
    """A tracked game as every phone shows it: the ground, the VP so far, each hand's size, whose turn, the end.

    `next_player` is None once the game is over; `ending` says a hand has run out and this round is the last.
    """
    replay = Replay.of(record, rules, strict=True)
    players = replay.players
    actions = record.get("actions", [])
    result = replay.result()
    return {"players": players, "wintering": record.get("wintering", []), "actions": actions,
            "ground": ground_view(replay), "log": replay.log, "wintering_vp": replay.wintering_vp,
            "migrations": {name: len(replay.migrations[name]) for name in players},
            "hands": dict(replay.hand_counts), "setup_size": rules.setup_size(len(players)),
            "next_player": replay.next_player, "ending": replay.ending, "over": replay.over,
            "ties": ties(result), "result": result, "bonus_lost": bonus_lost(replay, rules)}


def bonus_lost(replay: Replay, rules: Rules = DEFAULT_RULES) -> dict[str, bool]:
    """For each player, whether a goose in a migration has cost the no-goose bonus: why a score now can drop.

    >>> goose = {"n": 1, "suit": "goose"}
    >>> record = {"players": ["a", "b", "c"], "wintering": [],
    ...           "actions": [{"player": "a", "migrate": {"value": 1, "cards": [goose]}}]}
    >>> bonus_lost(Replay.of(record, strict=True))
    {'a': True, 'b': False, 'c': False}
    """
    return {name: rules.no_goose_bonus and any(card.suit == GOOSE for _, cards in replay.migrations[name]
                                               for card in cards)
            for name in replay.players}


def ties(result: dict) -> list[dict]:
    """Each pair of neighbours in the ranking with equal VP: the earlier in turn order ranks first."""
    totals = {name: p["total"] for name, p in result["players"].items()}
    found = []
    for place, name in enumerate(result["ranking"][1:], start=1):
        above = result["ranking"][place - 1]
        if totals[name] == totals[above]:
            found.append({"ahead": above, "behind": name, "total": totals[name]})
    return found


def explain(cards: list[Card], value: int, rules: Rules = DEFAULT_RULES) -> dict:
    """One migration's arithmetic: its largest suit and how many geese joined it, and the reading scored."""
    score = score_migration(cards, value, rules)
    plain = Counter(c.suit for c in cards if c.suit != GOOSE)
    suit = max(PLAIN_SUITS, key=lambda s: (plain[s], -PLAIN_SUITS.index(s))) if plain else GOOSE
    reading = "rainbow" if score.rainbow and len(cards) > score.largest_suit else "suit"
    return {**score.to_json(), "suit": suit, "of_suit": plain[suit] if plain else 0, "geese": score.geese,
            "reading": reading, "cards_list": [c.to_json() for c in sorted(cards, key=_order)]}


def score_sheet(record: dict, rules: Rules = DEFAULT_RULES) -> dict:
    """The score sheet: every migration's arithmetic, the bonus, wintering VP, totals, and ties explained.

    `final` only once the game is over (the table's own record knows each hand); before that it is the score so far.
    """
    replay = Replay.of(record, rules, strict=True)
    result = replay.result()
    rows = []
    for seat, name in enumerate(replay.players):
        mine = result["players"][name]
        rows.append({"name": name, "seat": seat + 1,
                     "migrations": [explain(cards, value, rules) for value, cards in replay.migrations[name]],
                     "count": len(replay.migrations[name]), "bonus": mine["no_goose_bonus"],
                     "bonus_power": rules.bonus_power, "wintering_vp": mine["wintering_vp"],
                     "arrivals": [entry for entry in replay.log if entry["player"] == name],
                     "total": mine["total"]})
    return {"rows": rows, "ranking": result["ranking"], "winner": result["winner"], "ties": ties(result),
            "wintering": result["wintering"], "final": replay.over}


def _order(card: Card):
    return card.n, SUITS.index(card.suit)
