"""Über den Wolken and 帰る雁 per player: games, wins, average and best, score over games, head to head.

A game's own figures (`game_summary`) are computed once from its saved state
by the game's rules, and kept by the records reader; `per_player` counts the
finished games of one kind, oldest first. A player is the person named for a
species (Über den Wolken, when names were given) or the name entered (帰る雁).

>>> games = [{"kind": "geese", "over": True, "wall": 1.0, "players": [
...     {"name": "ann", "score": 30, "winner": True, "values": [5, 3], "no_goose_bonus": 2},
...     {"name": "ben", "score": 21, "winner": False, "values": [4], "no_goose_bonus": 0}]}]
>>> shown = per_player(games, "geese")
>>> [(p["name"], p["games"], p["wins"], p["best"]) for p in shown["players"]]
[('ann', 1, 1, 30), ('ben', 1, 0, 21)]
>>> shown["head_to_head"]
[{'a': 'ann', 'b': 'ben', 'games': 1, 'a_ahead': 1, 'b_ahead': 0, 'level': 0}]
"""

import itertools
from fractions import Fraction

from companion.flock.kind import FLOCK
from companion.geese.kind import GEESE

SCORES_SHOWN = 30  # a player's newest scores drawn over games: a phone's width of points
GAME_KINDS = ("flock", "geese")


def game_summary(kind: str, state: dict) -> dict:
    """One saved game's figures: whether it is over, and each player's score, win and the kind's own parts
    (Über den Wolken: points by stage, from nests and from movement cards; 帰る雁: the values of the
    migrations made and the no-goose bonus)."""
    if kind == "flock":
        view = FLOCK.view(state)
        names, winners = view["names"], set(view.get("winners", ()))
        players = []
        for species in view["players"]:
            scored = [stage["scores"][species] for stage in view["stages"]]
            players.append({"name": names.get(species, species), "species": species,
                            "score": sum(s["stage"] for s in scored), "winner": species in winners,
                            "stages": [s["stage"] for s in scored], "nest": sum(s["nest"] for s in scored),
                            "movement": sum(s["movement"] for s in scored)})
        return {"kind": kind, "over": view["over"], "players": players}
    view = GEESE.view(state)
    result = view["result"]
    return {"kind": kind, "over": view["over"], "players": [
        {"name": name, "score": mine["total"], "winner": name == result["winner"],
         "values": [m["value"] for m in mine["migrations"]], "no_goose_bonus": mine["no_goose_bonus"]}
        for name, mine in ((n, result["players"][n]) for n in view["players"])]}


def per_player(games: list[dict], kind: str) -> dict:
    """Each player's games, wins, average, best and newest scores over the finished games of `kind`; the
    pairs who met, with who finished ahead how often; and the kind's own parts per player."""
    done = [g for g in games if g["kind"] == kind and g["over"]]
    found: dict[str, dict] = {}
    for game in done:
        for seat in game["players"]:
            mine = found.setdefault(seat["name"], {"name": seat["name"], "games": 0, "wins": 0, "scores": [],
                                                   **_parts_start(kind)})
            mine["games"] += 1
            mine["wins"] += seat["winner"]
            mine["scores"].append(seat["score"])
            _add_parts(kind, mine, seat)
    players = []
    for mine in found.values():
        scores = mine.pop("scores")
        players.append({**mine, "average": round(sum(scores) / len(scores), 1), "best": max(scores),
                        "scores": scores[-SCORES_SHOWN:], "earlier": max(0, len(scores) - SCORES_SHOWN)})
    players.sort(key=lambda p: (-p["wins"], -p["average"], p["name"]))
    pairs = head_to_head(done)
    top = players[0] if players else None
    sentence = ({"code": "progress.players.top", "params": {"name": top["name"], "wins": top["wins"],
                                                            "games": top["games"]}}
                if top else {"code": "progress.players.none", "params": {}})
    return {"kind": kind, "games": len(done), "players": players, "head_to_head": pairs,
            "ranking": ranking(pairs), "sentence": sentence, **_kind_sentence(kind, players)}


def head_to_head(games: list[dict]) -> list[dict]:
    """Every pair of players who met, in name order: their games together and who scored more how often."""
    met: dict[tuple[str, str], dict] = {}
    for game in games:
        for first, second in itertools.combinations(sorted(game["players"], key=lambda s: s["name"]), 2):
            pair = met.setdefault((first["name"], second["name"]), {"a": first["name"], "b": second["name"],
                                                                     "games": 0, "a_ahead": 0, "b_ahead": 0,
                                                                     "level": 0})
            pair["games"] += 1
            ahead = _ahead(first, second)
            pair["a_ahead" if ahead > 0 else "b_ahead" if ahead < 0 else "level"] += 1
    return [met[key] for key in sorted(met)]


def ranking(pairs: list[dict]) -> dict:
    """The players who met, ranked head to head: by the share of their meetings (a game and one other player in
    it) they finished ahead in, then by how many; the same record shares a place, and each shared place is said.

    >>> pairs = [{"a": "ann", "b": "ben", "games": 2, "a_ahead": 1, "b_ahead": 1, "level": 0}]
    >>> [(r["place"], r["name"], r["share"]) for r in ranking(pairs)["rows"]]
    [(1, 'ann', 50), (1, 'ben', 50)]
    >>> ranking(pairs)["sentence"]["code"]
    'progress.h2h.top_shared'
    """
    record: dict[str, dict] = {}
    for pair in pairs:
        for me, ahead, behind in (("a", "a_ahead", "b_ahead"), ("b", "b_ahead", "a_ahead")):
            mine = record.setdefault(pair[me], {"name": pair[me], "meetings": 0, "ahead": 0, "behind": 0, "level": 0})
            mine["meetings"] += pair["games"]
            mine["ahead"] += pair[ahead]
            mine["behind"] += pair[behind]
            mine["level"] += pair["level"]

    def better(row: dict) -> tuple:
        return Fraction(row["ahead"], row["meetings"]), row["ahead"]

    rows = sorted(record.values(), key=lambda r: (-better(r)[0], -r["ahead"], r["name"]))
    ties, first = [], 1
    for mark, grouped in itertools.groupby(rows, key=better):
        group = list(grouped)
        for row in group:
            row.update(place=first, share=round(100 * mark[0]))
        if len(group) > 1:
            ties.append(_said("progress.h2h.tie", names=[r["name"] for r in group], place=first,
                              ahead=group[0]["ahead"], meetings=group[0]["meetings"]))
        first += len(group)
    if not rows:
        sentence = _said("progress.h2h.none")
    elif ties and ties[0]["params"]["place"] == 1:
        sentence = _said("progress.h2h.top_shared", **{k: v for k, v in ties[0]["params"].items() if k != "place"})
    else:
        sentence = _said("progress.h2h.top", name=rows[0]["name"], ahead=rows[0]["ahead"],
                         meetings=rows[0]["meetings"])
    return {"rows": rows, "ties": ties, "sentence": sentence}


def _said(code: str, **params) -> dict:
    return {"code": code, "params": params}


def _ahead(first: dict, second: dict) -> int:
    """Who finished ahead: the higher score, or on equal scores the winner (the rules' tie-break)."""
    return (first["score"] > second["score"]) - (first["score"] < second["score"]) or first["winner"] - second["winner"]


def _parts_start(kind: str) -> dict:
    return {"stages": [], "nest": 0, "movement": 0} if kind == "flock" else {"values": {}, "bonus_games": 0,
                                                                             "bonus_points": 0}


def _add_parts(kind: str, mine: dict, seat: dict) -> None:
    if kind == "flock":
        for i, points in enumerate(seat["stages"]):
            if i == len(mine["stages"]):
                mine["stages"].append(0)
            mine["stages"][i] += points
        mine["nest"] += seat["nest"]
        mine["movement"] += seat["movement"]
    else:
        for value in seat["values"]:
            mine["values"][str(value)] = mine["values"].get(str(value), 0) + 1
        mine["bonus_games"] += seat["no_goose_bonus"] > 0
        mine["bonus_points"] += seat["no_goose_bonus"]


def _kind_sentence(kind: str, players: list[dict]) -> dict:
    """The kind's own sentence: the share of points from movement cards, or the bonus won."""
    if kind == "flock":
        movement = sum(p["movement"] for p in players)
        total = movement + sum(p["nest"] for p in players)
        return {"parts_sentence": {"code": "progress.flock.movement",
                                   "params": {"movement": movement, "total": total,
                                              "share": round(100 * movement / total) if total else 0}}}
    values: dict[str, int] = {}
    for p in players:
        for value, n in p["values"].items():
            values[value] = values.get(value, 0) + n
    common = max(values.items(), key=lambda kv: (kv[1], int(kv[0])), default=None)
    return {"values": dict(sorted(values.items(), key=lambda kv: int(kv[0]))),
            "parts_sentence": {"code": "progress.geese.values", "params": {
                "value": common[0] if common else 0, "n": common[1] if common else 0,
                "migrations": sum(values.values()), "bonus": sum(p["bonus_games"] for p in players)}}}
