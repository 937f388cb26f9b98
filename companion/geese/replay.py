"""Reading a 帰る雁 record: the migrations alone, or a whole game replayed and checked action by action.

`score(data)` takes either form (the formats are in docs/geese.md) and
returns the final scores; anything unusable is a BadInput naming the field,
an illegal action naming `actions[i]` and why. It checks the rules of play,
not the deck, so a playtest of a draft with other cards scores too; with
`strict=True` (the table's own tracker) every card must also be in this
deck and no card may be in play more often than the deck holds it.

>>> card = lambda n, suit: {"n": n, "suit": suit}
>>> score({"players": ["ann", "ben", "cho"],
...        "migrations": {"ann": [[card(1, "gull")]]}})["players"]["ann"]["total"]
2
"""

from collections import Counter

from companion.errors import BadInput
from companion.geese.cards import Card, copies, parse_card
from companion.geese.ground import WinteringGround
from companion.geese.rules import DEFAULT_RULES, Rules
from companion.geese.scoring import final_scores
from companion.fields import SHOWN, at, items, record, whole
from companion.players import check_name

MAX_ACTIONS = 2000  # far more turns than a game of 80 cards can take
RECORD_FIELDS = frozenset({"players", "wintering", "actions", "hands"})
MIGRATION_FIELDS = frozenset({"players", "migrations", "wintering_vp"})
ACTION_KINDS = ("arrive", "migrate")
ACTION_FIELDS = ("player", "arrive", "take", "migrate")
MAX_VP = 10_000  # far beyond any game's score; keeps numbers from outside small


def score(data, rules: Rules = DEFAULT_RULES, *, strict: bool = False) -> dict:
    """The final scores of a record in either form (CONTRACTS-style output: players, ranking, winner)."""
    record(data, "", sorted(RECORD_FIELDS | MIGRATION_FIELDS))
    if "actions" in data or "wintering" in data:
        return Replay.of(data, rules, strict=strict).result()
    record(data, "", sorted(MIGRATION_FIELDS))
    players = read_players(data, rules)
    migrations = read_migrations(data.get("migrations"), players, rules, strict)
    vp = read_wintering_vp(data.get("wintering_vp", {}), players)
    return final_scores(players, migrations, vp, rules)


def read_players(data: dict, rules: Rules) -> list[str]:
    players = data.get("players")
    counts = rules.player_counts
    try:
        items(players, "players", counts[0], counts[-1])
        rules.hand_size(len(players))  # a count between two the rules deal for is not one either
    except BadInput as e:
        if e.field != "players" or getattr(e, "error_code", None) == "errors.shape":
            raise
        raise BadInput("players", f"the game is for {counts[0]}–{counts[-1]} players, not {len(players)}",
                       code="geese.new.count", params={"low": counts[0], "high": counts[-1]}) from None
    for i, name in enumerate(players):
        if check_name(name, f"players[{i}]") != name:  # the record's other fields name players as written
            raise BadInput(f"players[{i}]", "expected the name without spaces around it, in Unicode NFC",
                           code="geese.refused.name_form")
        if players.index(name) != i:
            raise BadInput(f"players[{i}]", f"{name} is named twice", code="players.twice", params={"name": name})
    return players


def read_migrations(value, players: list[str], rules: Rules, strict: bool = False) -> dict:
    deck = copies(rules, len(players))
    seen = Counter()
    result = {}
    for name, sets in _by_player(value, "migrations", players).items():
        result[name] = []
        for i, cards in enumerate(items(sets, f"migrations.{name}", 0, MAX_ACTIONS)):
            field = f"migrations.{name}[{i}]"
            items(cards, field, 1, sum(deck.values()))  # a migration: at least one card
            parsed = [parse_card(c, f"{field}[{j}]", rules, len(players) if strict else None)
                      for j, c in enumerate(cards)]
            for j, card in enumerate(parsed):
                if card.n > len(parsed):
                    raise BadInput(f"{field}[{j}]", f"a {card.n} cannot join a migration of {len(parsed)} cards "
                                                    "(a card counts as its own number or more)",
                                                    code="geese.refused.too_small",
                                                    params={"n": card.n, "cards": len(parsed)})
                seen[card] += 1
                if strict and seen[card] > deck[card]:
                    raise BadInput(f"{field}[{j}]", f"the deck has only {deck[card]} {_name(card, deck[card])}",
                                   code="geese.refused.deck_short",
                                   params={"n": card.n, "suit": card.suit, "count": deck[card]})
            result[name].append((len(parsed), parsed))
    return result


def read_wintering_vp(value, players: list[str]) -> dict[str, int]:
    for name, vp in _by_player(value, "wintering_vp", players).items():
        whole(vp, f"wintering_vp.{name}", 0, MAX_VP)
    return dict(value)


class Replay:
    """A game record played back through the rules: the ground, each player's VP and migrations, whose turn.

    Turns go round in the order of `players` (from the start player). How many
    cards each hand holds is known when the record carries the deal (`hands`)
    or is the table's own (`strict`): each hand starts at the deal's size, and
    when one runs out the round is finished up to the player before the start
    player, and the game is over.
    """

    def __init__(self, players: list[str], setup: list[Card], rules: Rules = DEFAULT_RULES, *, strict: bool = False,
                 hands: dict[str, list[Card]] | None = None):
        self.players, self.rules, self.strict = players, rules, strict
        self.deck = copies(rules, len(players))
        self.ground = WinteringGround(setup, rules)
        self.migrated = Counter()
        self.wintering_vp = {name: 0 for name in players}
        self.migrations = {name: [] for name in players}
        self.log = []  # each arrival that scored: {"action", "player", "card", "vp"}
        self.hands = {name: Counter(cards) for name, cards in hands.items()} if hands is not None else None
        counted = hands is not None or strict
        self.hand_counts = {name: rules.hand_size(len(players)) for name in players} if counted else None
        self.seat = 0  # whose turn: seats count from the start player
        self.ending = False  # a hand has run out: this round is the last
        self.over = False
        for i, card in enumerate(setup):
            self._check_supply(card, f"wintering[{i}]")

    @property
    def next_player(self) -> str | None:
        """Whose turn it is, or None once the game is over."""
        return None if self.over else self.players[self.seat]

    @classmethod
    def of(cls, data: dict, rules: Rules = DEFAULT_RULES, *, strict: bool = False) -> "Replay":
        record(data, "", sorted(RECORD_FIELDS))
        players = read_players(data, rules)
        setup = items(data.get("wintering", []), "wintering", 0, rules.deck_size(len(players)))
        in_deck = len(players) if strict else None
        cards = [parse_card(c, f"wintering[{i}]", rules, in_deck) for i, c in enumerate(setup)]
        hands = read_hands(data["hands"], players, cards, rules) if "hands" in data else None
        replay = cls(players, cards, rules, strict=strict, hands=hands)
        actions = items(data.get("actions", []), "actions", 0, MAX_ACTIONS)
        for i, action in enumerate(actions):
            replay.play(action, i)
        return replay

    def _check_supply(self, card: Card, field: str) -> None:
        if not self.strict:
            return
        if self.ground.cards[card] + self.migrated[card] > self.deck[card]:
            raise BadInput(field, f"the deck has only {self.deck[card]} {_name(card, self.deck[card])}, all already "
                                  "in the wintering ground or migrated",
                                  code="geese.refused.deck_short",
                                  params={"n": card.n, "suit": card.suit, "count": self.deck[card]})

    def play(self, action, i: int) -> None:
        """Apply action number `i`, or raise BadInput("actions[i]...", why it is not allowed)."""
        where = f"actions[{i}]"
        record(action, where, ACTION_FIELDS)
        kinds = [k for k in ACTION_KINDS if k in action]
        if len(kinds) != 1:
            raise BadInput(where, "an action either arrives or migrates (exactly one of arrive, migrate)",
                           code="errors.shape")
        record(action, where, ("player", "arrive", "take") if kinds == ["arrive"] else ("player", "migrate"))
        player = action.get("player")
        if player not in self.players:
            raise _not_a_player(f"{where}.player", player)
        if self.over:
            raise BadInput(where, "the game is over: a hand ran out and the round is finished",
                           code="geese.refused.over")
        if player != self.players[self.seat]:
            turn = self.players[self.seat]
            raise BadInput(f"{where}.player", f"{player} plays out of turn: it is {turn}'s turn",
                           code="geese.refused.out_of_turn", params={"player": player, "turn": turn})
        if kinds == ["arrive"]:
            self._arrive(action, player, i, where)
        else:
            self._migrate(action["migrate"], player, where)
        self._next_turn(player)

    def _next_turn(self, player: str) -> None:
        if self.hand_counts is not None and self.hand_counts[player] == 0:
            self.ending = True
        if self.ending and self.seat == len(self.players) - 1:
            self.over = True  # the round is finished: up to the player before the start player
        else:
            self.seat = (self.seat + 1) % len(self.players)

    def _from_hand(self, player: str, cards: list[Card], where: str) -> None:
        """Take `cards` out of `player`'s hand (when the hands are known), or refuse naming the first missing."""
        if self.hand_counts is not None and self.hand_counts[player] < len(cards):
            held = self.hand_counts[player]
            raise BadInput(where, f"{player} holds only {held} card{'s' if held != 1 else ''}",
                           code="geese.refused.hand_short", params={"player": player, "held": held,
                                                                     "cards": len(cards)})
        if self.hands is not None:
            left = Counter(self.hands[player])
            for j, card in enumerate(cards):
                if not left[card]:
                    raise BadInput(f"{where}[{j}]", f"{player} holds no {_one(card)}", code="geese.refused.not_in_hand",
                                   params={"player": player, "n": card.n, "suit": card.suit})
                left[card] -= 1
            self.hands[player] = +left
        if self.hand_counts is not None:
            self.hand_counts[player] -= len(cards)

    def _to_hand(self, player: str, card: Card) -> None:
        if self.hands is not None:
            self.hands[player][card] += 1
        if self.hand_counts is not None:
            self.hand_counts[player] += 1

    def _arrive(self, action: dict, player: str, i: int, where: str) -> None:
        cards = action["arrive"]
        try:
            items(cards, f"{where}.arrive", 1, 2)
        except BadInput:
            raise BadInput(f"{where}.arrive", "birds arrive as 1 card, or 2 cards with 1 taken back",
                           code="geese.refused.arrive_count") from None
        parsed = [self._card(c, f"{where}.arrive[{j}]") for j, c in enumerate(cards)]
        if len(parsed) == 1 and "take" in action:
            raise BadInput(f"{where}.take", "a card is taken back only when 2 cards arrive",
                           code="geese.refused.take_one")
        if len(parsed) == 2 and "take" not in action:
            raise BadInput(f"{where}.take", "when 2 cards arrive, 1 card must be taken back from the wintering ground",
                           code="geese.refused.take_needed")
        self._from_hand(player, parsed, f"{where}.arrive")
        for j, card in enumerate(parsed):
            vp = self.ground.put(card)
            self._check_supply(card, f"{where}.arrive[{j}]")
            if vp:
                self.wintering_vp[player] += vp
                self.log.append({"action": i, "player": player, "card": card.to_json(), "vp": vp})
        if "take" in action:
            taken = self._card(action["take"], f"{where}.take")
            if not self.ground.holds(taken):
                raise BadInput(f"{where}.take", f"no {_one(taken)} lies in the wintering ground",
                               code="geese.refused.take_missing", params={"n": taken.n, "suit": taken.suit})
            self.ground.take(taken)
            self._to_hand(player, taken)

    def _migrate(self, move, player: str, where: str) -> None:
        record(move, f"{where}.migrate", ("value", "cards"))
        value = whole(move.get("value"), f"{where}.migrate.value", 1, sum(self.deck.values()))
        cards = move.get("cards")
        try:
            items(cards, f"{where}.migrate.cards", value, value)
        except BadInput as e:
            got = len(cards) if e.error_code == "errors.count" else 0  # a count of no list at all is none
            raise BadInput(f"{where}.migrate.cards", f"migrating as {value} takes exactly {value} cards, not {got}",
                           code="geese.refused.migrate_count", params={"value": value, "cards": got}) from None
        parsed = [self._card(c, f"{where}.migrate.cards[{j}]") for j, c in enumerate(cards)]
        for j, card in enumerate(parsed):
            if not self.ground.usable(card, value):
                span = _span(card.n, self.ground.top(card.n))
                raise BadInput(f"{where}.migrate.cards[{j}]", f"a {card.n} can be used only as {span} now, "
                                                              f"not as {value}",
                               code="geese.refused.not_usable", params={"n": card.n, "span": span, "value": value})
        self._from_hand(player, parsed, f"{where}.migrate.cards")
        for j, card in enumerate(parsed):
            self.migrated[card] += 1
            self._check_supply(card, f"{where}.migrate.cards[{j}]")
        self.migrations[player].append((value, parsed))

    def _card(self, value, field: str) -> Card:
        return parse_card(value, field, self.rules, len(self.players) if self.strict else None)

    def result(self) -> dict:
        scores = final_scores(self.players, self.migrations, self.wintering_vp, self.rules)
        return {"players": scores["players"], "wintering": self.ground.counts(), "ranking": scores["ranking"],
                "winner": scores["winner"]}


def read_hands(value, players: list[str], setup: list[Card], rules: Rules) -> dict[str, list[Card]]:
    """The deal of a record: each player's hand, the size the player count gives; the ground holds the rest."""
    size = rules.hand_size(len(players))
    value = _by_player(value, "hands", players)
    hands = {}
    for name in players:
        if name not in value:
            raise BadInput(f"hands.{name}", "missing: the deal names every player's hand",
                           code="geese.refused.hand_missing", params={"name": name})
    for name, cards in value.items():
        try:
            items(cards, f"hands.{name}", size, size)
        except BadInput as e:
            got = len(cards) if e.error_code == "errors.count" else "no"
            raise BadInput(f"hands.{name}", f"a hand of {len(players)} players is dealt {size} cards, not {got}",
                           code="geese.refused.hand_size", params={"players": len(players), "n": size}) from None
        hands[name] = [parse_card(c, f"hands.{name}[{j}]", rules, len(players)) for j, c in enumerate(cards)]
    dealt = Counter(setup)
    for cards in hands.values():
        dealt.update(cards)
    deck = copies(rules, len(players))
    if dealt != deck:
        extra = sorted((dealt - deck).elements())
        missing = sorted((deck - dealt).elements())
        why = (f"the deck has no more {_name(extra[0], 2)}" if extra
               else f"{_one(missing[0])} is in no hand and not in the wintering ground")
        raise BadInput("hands", f"the hands and the wintering ground are not the deck: {why}",
                       code="geese.refused.not_the_deck")
    return hands


def _by_player(value, field: str, players: list[str]) -> dict:
    """`value` if it is an object keyed by players' names; a name not playing is refused as such."""
    try:
        return record(value, field, players)
    except BadInput as e:
        if getattr(e, "error_code", None) != "errors.unknown_field":
            raise
        name = next(key for key in value if at(field, key[:SHOWN]) == e.field)
        raise _not_a_player(at(field, name), name) from None


def _not_a_player(field: str, name) -> BadInput:
    return BadInput(field, "not one of the players", code="geese.refused.not_player", params={"name": name})


def _span(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}–{high}"


def _name(card: Card, count: int) -> str:
    return f"{card.suit} {card.n}" + ("" if count == 1 else "s")


def _one(card: Card) -> str:
    return f"{card.suit} {card.n}"
