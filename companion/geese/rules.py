"""The rule parameters of 帰る雁 as one value, so a designer can try a draft by changing data.

Defaults are rules draft 6. A TOML file may override any of them:

>>> Rules.from_toml("threshold = 10\\nrainbow = false").threshold
10
>>> Rules.from_toml("thresold = 10")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
companion.errors.BadInput: thresold: unknown field (expected beyond_vp, ..., threshold)
"""

import tomllib
from dataclasses import dataclass, field, fields, replace

from companion.errors import BadInput
from companion.fields import digits, items, mapping, record, yes_no

SUITS = ("thrush", "crane", "gull", "eagle", "goose")
GOOSE = "goose"  # wild when suits are counted
PLAIN_SUITS = SUITS[:4]
MAX_CARD_NUMBER = 12  # a draft may add numbers; beyond this the table's pages would not fit a phone
MAX_COPIES = 12  # of one card in one suit


@dataclass(frozen=True)
class Rules:
    """Every number of the rules a designer might tune."""

    max_number: int = 6  # cards run 1..max_number
    copies_per_suit: int = 3  # of each number in each of the four plain suits
    geese: dict[int, int] = field(default_factory=lambda: {1: 4, 2: 2, 3: 1, 4: 1})  # goose cards by number
    deal: dict[int, int] = field(default_factory=lambda: {3: 20, 4: 18, 5: 15})  # hand size by player count
    removed: dict[int, tuple[int, ...]] = field(default_factory=lambda: {3: (6,)})  # numbers left out by player count
    threshold: int = 9  # a number reaching this top of its range scores w(n) for the card that made it
    beyond_vp: int = 1  # each card past the threshold scores this
    no_goose_bonus: bool = True  # a player with no goose in any migration gains (migrations) ** bonus_power
    bonus_power: int = 2
    rainbow: bool = True  # a migration of all different suits counts as one suit

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(sorted(self.deal))

    def removed_numbers(self, players: int) -> tuple[int, ...]:
        return self.removed.get(players, ())

    def deck_size(self, players: int) -> int:
        """How many cards the deck for `players` holds (companion.geese.cards.copies lists them)."""
        numbers = [n for n in range(1, self.max_number + 1) if n not in self.removed_numbers(players)]
        return sum(len(PLAIN_SUITS) * self.copies_per_suit + self.geese.get(n, 0) for n in numbers)

    def setup_size(self, players: int) -> int:
        """The cards the deal leaves over for the wintering ground at setup.

        >>> DEFAULT_RULES.setup_size(3), DEFAULT_RULES.setup_size(4), DEFAULT_RULES.setup_size(5)
        (8, 8, 5)
        """
        return self.deck_size(players) - players * self.hand_size(players)

    def hand_size(self, players: int) -> int:
        if players not in self.deal:
            raise BadInput("players", f"the game is for {_counts(self)} players, not {players}",
                           code="geese.new.count", params={"low": min(self.deal), "high": max(self.deal)})
        return self.deal[players]

    def to_json(self) -> dict:
        return {"max_number": self.max_number, "copies_per_suit": self.copies_per_suit,
                "geese": {str(n): c for n, c in self.geese.items()},
                "deal": {str(p): c for p, c in self.deal.items()},
                "removed": {str(p): list(ns) for p, ns in self.removed.items()},
                "threshold": self.threshold, "beyond_vp": self.beyond_vp, "no_goose_bonus": self.no_goose_bonus,
                "bonus_power": self.bonus_power, "rainbow": self.rainbow}

    @classmethod
    def from_toml(cls, text: str, where: str = "") -> "Rules":
        """Rules from a TOML document (unknown keys and impossible values refused)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise BadInput(where, f"not valid TOML ({e})", code="errors.file.not_toml") from None
        return cls.from_mapping(data, where)

    @classmethod
    def from_mapping(cls, data: dict, where: str = "") -> "Rules":
        known = sorted(f.name for f in fields(cls))
        prefix = f"{where}." if where else ""
        record(data, where, known)
        rules = cls()
        changes = {}
        for key in ("max_number", "copies_per_suit", "threshold", "beyond_vp", "bonus_power"):
            if key in data:
                changes[key] = _int(data[key], f"{prefix}{key}", 0, 100)
        for key in ("no_goose_bonus", "rainbow"):
            if key in data:
                changes[key] = yes_no(data[key], f"{prefix}{key}")
        if "max_number" in changes and not 1 <= changes["max_number"] <= MAX_CARD_NUMBER:
            raise BadInput(f"{prefix}max_number", f"expected 1–{MAX_CARD_NUMBER}",
                           code="errors.range", params={"low": 1, "high": MAX_CARD_NUMBER})
        if "copies_per_suit" in changes and not 1 <= changes["copies_per_suit"] <= MAX_COPIES:
            raise BadInput(f"{prefix}copies_per_suit", f"expected 1–{MAX_COPIES}",
                           code="errors.range", params={"low": 1, "high": MAX_COPIES})
        top = changes.get("max_number", rules.max_number)
        if "geese" in data:
            geese = {_int(k, f"{prefix}geese.{k}", 1, top): _int(v, f"{prefix}geese.{k}", 0, MAX_COPIES)
                     for k, v in _table(data["geese"], f"{prefix}geese").items()}
            changes["geese"] = {**rules.geese, **geese}
        if "deal" in data:
            deal = {**rules.deal, **{_int(k, f"{prefix}deal.{k}", 2, 8): _int(v, f"{prefix}deal.{k}", 0, 60)
                                     for k, v in _table(data["deal"], f"{prefix}deal").items()}}
            changes["deal"] = {p: hand for p, hand in deal.items() if hand}  # 0 takes a player count out
            if not changes["deal"]:
                raise BadInput(f"{prefix}deal", "needs at least one player count", code="errors.geese.deal_empty")
        if "removed" in data:
            removed = dict(rules.removed)
            for k, v in _table(data["removed"], f"{prefix}removed").items():
                items(v, f"{prefix}removed.{k}", 0, MAX_CARD_NUMBER)
                removed[_int(k, f"{prefix}removed.{k}", 2, 8)] = tuple(
                    _int(n, f"{prefix}removed.{k}[{i}]", 1, top) for i, n in enumerate(v))
            changes["removed"] = removed
        rules = replace(rules, **changes)
        _check_deck_suffices(rules, prefix)
        return rules


def _check_deck_suffices(rules: Rules, prefix: str) -> None:
    for players, hand in rules.deal.items():
        cards = rules.deck_size(players)
        if players * hand > cards:
            raise BadInput(f"{prefix}deal.{players}", f"{players} hands of {hand} need more than the {cards} cards",
                           code="errors.geese.deal_short", params={"players": players, "hand": hand, "cards": cards})


def _table(value, field: str) -> dict:
    return mapping(value, field)


def _int(value, field: str, low: int, high: int) -> int:
    return digits(value, field, low, high)  # TOML table keys are strings: their digits count


def _counts(rules: Rules) -> str:
    counts = rules.player_counts
    return f"{counts[0]}–{counts[-1]}" if len(counts) > 1 else str(counts[0])


DEFAULT_RULES = Rules()
