"""A game kept move by move: set up from a seed, then every action checked against the rules and applied.

The record of a game is its setup (players, seed) and the log of actions;
replaying the log rebuilds the game exactly, so undo is the log without its
last action. Whose turn it is decides who acts; an action names only what
it does (`{"do": "fly_side", "from": [r, c], "to": [r, c]}`, `{"do": "pass"}`...).

>>> game = Game.replay({"players": ["crane", "kite"], "seed": 3, "log": [{"do": "pass"}]})
>>> game.cubes[game.start_player], game.turn != game.start_player
(8, True)
"""

import copy
import random

from companion.errors import BadInput
from companion.flock.birds import (COLUMN_LIMIT, DISPLAY, FACE_UP_BIRDS, HAND_LIMIT, STAGES, TILES_PER_PLAYER,
                                   NEUTRAL_TILES, read_bird)
from companion.flock.board import birds_of, count, land, refilled, shortfall, start_player, with_column, column
from companion.flock.cards import movement_points, read_movement, read_nest
from companion.flock.moves import FLIGHTS, REACH, flown, swap_allowed
from companion.flock.setup import DEFAULT_MOVEMENT_SET, setup
from companion.flock.stage import read_hands, scored, tie_break, winners
from companion.fields import items, record as fields_record, whole

STANDARD = ("fly_side", "fly_line", "add", "take")
TOP_PRICE = 4  # a standard action costs 1, 2, 3, 4 for its 1st-4th use in a stage (and 4 after)
PASS_CUBES = 2
CARD_COSTS = {"dodge": 2, "sharp_dodge": 2, "lead_change": 2, "standard": 2, "neutral": 2, "diagonal": 3,
              "score": 3, "free_flight": 4, "favourite": 4, "display": None}  # display: the chosen card's cost
PLACES = ("front", "back")
MAX_SEED = 2**53  # a seed a phone's script can hold exactly
MAX_LOG = 2000  # actions in one game: three stages of 16 cubes each need a few hundred at most
RECORD_FIELDS = ("mode", "players", "seed", "movement_set", "log", "names")  # a game kept move by move
# Every field an action may carry: what it does, then where, which bird or card, and a stage's landing.
ACTION_FIELDS = ("do", "from", "to", "bird", "col", "at", "card", "as", "action", "spaces", "nest", "movement_cards")


class Game:
    """One game of Über den Wolken as it stands, with the seeded draws it still has to make."""

    def __init__(self, players, seed: int, movement_set: int = DEFAULT_MOVEMENT_SET):
        seed = whole(seed, "seed", 0, MAX_SEED)
        self.rng = random.Random(seed)
        laid = setup(players, self.rng, movement_set)
        self.players, self.depths = laid["players"], laid["depths"]
        self.board, self.deck, self.face_up = laid["board"], laid["deck"], laid["face_up"]
        self.full_cubes = dict(laid["cubes"])
        self.cubes, self.hands = laid["cubes"], laid["hands"]
        self.display, self.movement_deck, self.movement_discards = (laid["display"], laid["movement_deck"],
                                                                    laid["movement_discards"])
        self.start_player, self.start_reason = laid["start_player"], laid["start_reason"]
        self.turn: str | None = self.start_player
        self.stage = 1
        self.uses = {a: 0 for a in STANDARD}
        self.spaces: dict[str, dict] = {}  # the cubes on each standard action's space: {"player", "cubes"}
        self.nest_cubes = 0  # the cubes in the central nest
        self.scores = {p: 0 for p in self.players}
        self.card_points = {p: 0 for p in self.players}  # movement points scored by a score card this stage
        self.stages: list[dict] = []
        self.moves = 0
        self.last_mover: str | None = None  # who made the last move (None: none yet, or a landing, everyone's)

    @classmethod
    def replay(cls, record: dict) -> "Game":
        """The game a record describes: its setup, then every action of its log in order."""
        fields_record(record, "game", RECORD_FIELDS)
        game = cls(record.get("players"), record.get("seed"), record.get("movement_set", DEFAULT_MOVEMENT_SET))
        log = items(record.get("log", []), "log", 0, MAX_LOG)
        for i, action in enumerate(log):
            try:
                game._checked(action)  # no copy to fall back on: a bad entry refuses the whole record
            except BadInput as e:
                raise e.within(f"log[{i}]") from None
        return game

    @property
    def over(self) -> bool:
        return len(self.stages) == STAGES

    def price(self, action: str) -> int:
        """What the standard action costs its next user in this stage."""
        return min(self.uses[action] + 1, TOP_PRICE)

    # ---- acting ---------------------------------------------------------------

    def apply(self, action) -> None:
        """Do `action` for the player whose turn it is, or refuse it (BadInput) and change nothing."""
        trial = copy.deepcopy(self)
        trial._checked(action)
        self.__dict__.update(trial.__dict__)

    def _checked(self, action) -> None:
        self._act(fields_record(action, "action", ACTION_FIELDS))

    def _act(self, action: dict) -> None:
        kind = action.get("do")
        mover = self.turn
        if self.over:
            raise BadInput("action.do", "the game is over", code="flock.refused.over")
        if kind == "land":
            self._land(action)
        elif self.turn is None:
            raise BadInput("action.do", "every cube is spent: the stage ends with the landing",
                           code="flock.refused.landing")
        elif kind == "pass":
            self._spend(min(PASS_CUBES, self.cubes[self.turn]))
        elif kind in STANDARD:
            cost = self.price(kind)
            self._afford(cost, kind)
            self._standard(kind, action)
            self.uses[kind] += 1
            previous = self.spaces.get(kind)
            self.nest_cubes += previous["cubes"] if previous else 0  # the previous user's cubes go to the nest
            self.spaces[kind] = {"player": self.turn, "cubes": cost}
            self._spend(cost, to_nest=False)
        elif kind == "card":
            self._card(action)
        else:
            raise BadInput("action.do", f"{str(kind)[:20]!r} is not an action "
                                        f"({', '.join((*STANDARD, 'card', 'pass', 'land'))})",
                                        code="errors.choice")
        self.moves += 1
        self.last_mover = mover

    def _afford(self, cost: int, what: str) -> None:
        if self.cubes[self.turn] < cost:
            raise BadInput("action.do", f"{what} costs {cost} cubes; {self.turn} has {self.cubes[self.turn]}",
                           code="flock.refused.cubes", params={"cost": cost, "player": self.turn,
                                                               "cubes": self.cubes[self.turn]})

    def _spend(self, cost: int, *, to_nest: bool = True) -> None:
        player = self.turn
        self.cubes[player] -= cost
        self.nest_cubes += cost if to_nest else 0
        seat = self.players.index(player)
        ahead = self.players[seat + 1:] + self.players[:seat + 1]
        self.turn = next((p for p in ahead if self.cubes[p] > 0), None)

    def _standard(self, kind: str, action: dict, field: str = "action") -> None:
        if kind in FLIGHTS:
            self.board = flown(self.board, kind, self.turn, action, field)
        elif kind == "add":
            self._add(self._bird_from_supply(action.get("bird"), f"{field}.bird"), action, field)
        else:
            if self.display == 0:
                raise BadInput(f"{field}.do", "the display has no movement card left",
                               code="flock.refused.display_empty")
            self.display -= 1
            if self.hands[self.turn] == HAND_LIMIT:
                self.movement_discards += 1  # over the limit: one card goes to the discards
            else:
                self.hands[self.turn] += 1

    def _bird_from_supply(self, which, field: str) -> dict:
        if which == "deck":
            if not self.deck:
                raise BadInput(field, "the bird deck is empty", code="flock.refused.deck_empty")
            return self.deck.pop(0)
        try:
            which = whole(which, field, 0, len(self.face_up) - 1)
        except BadInput:
            raise BadInput(field, f"expected \"deck\" or a face-up bird (0-{len(self.face_up) - 1})",
                           code="errors.choice") from None
        bird = self.face_up.pop(which)
        if self.deck:
            self.face_up.insert(which, self.deck.pop(0))  # the taken one is replaced from the deck
        return bird

    def _add(self, bird: dict, action: dict, field: str) -> None:
        try:
            col = whole(action.get("col"), f"{field}.col", 0, len(self.depths) - 1)
        except BadInput:  # said as people number the columns, from 1
            raise BadInput(f"{field}.col", f"expected a column 0-{len(self.depths) - 1}",
                           code="errors.range", params={"low": 1, "high": len(self.depths)}) from None
        if count(self.board, col) == COLUMN_LIMIT:
            raise BadInput(f"{field}.col", f"column {col} is full ({COLUMN_LIMIT} birds)",
                           code="flock.refused.column_full", params={"col": col + 1})
        place = action.get("at", "front")
        if place not in PLACES:
            raise BadInput(f"{field}.at", "expected front or back", code="errors.choice")
        birds = column(self.board, col)
        self.board = with_column(self.board, col, [bird, *birds] if place == "front" else [*birds, bird])

    def _card(self, action: dict) -> None:
        card = action.get("card")
        if card not in CARD_COSTS:
            raise BadInput("action.card", f"{str(card)[:20]!r} is not a movement card ({', '.join(CARD_COSTS)})",
                           code="errors.choice")
        if self.hands[self.turn] == 0:
            raise BadInput("action.card", f"{self.turn} holds no movement card",
                           code="flock.refused.no_card", params={"player": self.turn})
        used = card
        if card == "display":
            if self.display == 0:
                raise BadInput("action.card", "the display is empty", code="flock.refused.display_empty")
            used = action.get("as")
            if used not in CARD_COSTS or used == "display":
                raise BadInput("action.as", "expected the type of the display card whose action is used",
                               code="errors.choice")
        self._afford(CARD_COSTS[used], f"the {used} card")
        self.hands[self.turn] -= 1
        self.movement_discards += 1
        if used in FLIGHTS:
            self.board = flown(self.board, used, self.turn, action)
        elif used == "standard":
            inner = fields_record(action.get("action"), "action.action", ACTION_FIELDS)
            if inner.get("do") not in STANDARD:
                raise BadInput("action.action", f"expected a standard action ({', '.join(STANDARD)})",
                               code="errors.choice")
            self._standard(inner["do"], inner, "action.action")
        elif used == "score":
            if self.hands[self.turn] == 0:
                raise BadInput("action.card", "a score card needs another movement card in hand to score",
                               code="flock.refused.score_card")
            scored_card = read_movement({"spaces": action.get("spaces")}, len(self.depths), "action")
            self.hands[self.turn] -= 1
            self.movement_discards += 1
            points = movement_points(scored_card, self.board, self.turn)
            self.card_points[self.turn] += points
            self.scores[self.turn] += points
        else:  # favourite: any bird from the deck, added, and the deck shuffled
            wanted = read_bird(action.get("bird"), self.players, "action.bird")
            if wanted not in self.deck:
                raise BadInput("action.bird", "no such bird in the deck", code="flock.refused.not_in_deck")
            self.deck.remove(wanted)
            self._add(wanted, action, "action")
            self.rng.shuffle(self.deck)
        self._spend(CARD_COSTS[used])

    # ---- what the player whose turn it is may do ------------------------------------

    def legal_moves(self) -> list[dict]:
        """Every flight, addition, card taken and pass the player whose turn it is can pay for and that applies.

        Each is an action `apply()` accepts as it is (the display's card and the favourite-bird and score
        cards, which need more choices, are left to the page's own steps).
        """
        if self.over or self.turn is None:
            return []
        player, cubes, cards = self.turn, self.cubes[self.turn], self.hands[self.turn]
        kinds = [(k, {"do": k}) for k in ("fly_side", "fly_line") if self.price(k) <= cubes]
        kinds += [(k, {"do": "card", "card": k}) for k in FLIGHTS
                  if k not in ("fly_side", "fly_line") and cards and CARD_COSTS[k] <= cubes]
        moves = []
        rows, columns = len(self.board), len(self.board[0])
        for kind, action in kinds:
            mover = "neutral" if kind == "neutral" else player
            for r in range(rows):
                for c in range(columns):
                    bird = self.board[r][c]
                    if bird is None or bird["owner"] != mover:
                        continue
                    for tr in range(rows):
                        for tc in range(columns):
                            if self.board[tr][tc] is not None and swap_allowed(kind, (r, c), (tr, tc)):
                                moves.append({**action, "from": [r, c], "to": [tr, tc]})
        room = [c for c in range(columns) if count(self.board, c) < COLUMN_LIMIT]
        if self.deck or self.face_up:
            adds = [{"do": "add"}] if self.price("add") <= cubes else []
            if cards and CARD_COSTS["standard"] <= cubes:
                adds.append({"do": "card", "card": "standard"})
            for add in adds:
                for col in room:
                    for at in PLACES:
                        place = {"do": "add", "bird": "deck" if self.deck else 0, "col": col, "at": at}
                        moves.append({**place} if add["do"] == "add" else {**add, "action": place})
        if self.display and self.price("take") <= cubes:
            moves.append({"do": "take"})
        moves.append({"do": "pass"})
        return moves

    # ---- the stage's end ---------------------------------------------------------

    def _land(self, action: dict) -> None:
        if self.turn is not None:
            raise BadInput("action.do", "the stage goes on until every cube is spent", code="flock.refused.not_landing")
        nest = read_nest(action.get("nest"), "action.nest")
        hands = read_hands(action.get("movement_cards", {}), self.players, len(self.depths), "action.movement_cards")
        for p, cards in hands.items():
            if len(cards) > self.hands[p]:
                raise BadInput(f"action.movement_cards.{p}", f"{p} holds {self.hands[p]} movement cards",
                               code="flock.refused.hand", params={"player": p, "n": self.hands[p]})
        result = scored(self.players, self.board, nest, hands, self.scores, self.stage == STAGES)
        for p in self.players:
            result["scores"][p]["movement"] += self.card_points[p]
            result["scores"][p]["stage"] += self.card_points[p]
            self.hands[p] -= len(hands[p])
        self.movement_discards += sum(len(c) for c in hands.values())
        landed, self.board = land(self.board)
        self.rng.shuffle(landed)
        self.deck.extend(landed)
        self.scores = {p: s["total"] for p, s in result["scores"].items()}
        self.stages.append({"nest": nest, "movement_cards": hands, **result})
        if not self.over:
            self._next_stage()

    def _next_stage(self) -> None:
        self.stage += 1
        self.cubes = dict(self.full_cubes)
        self.uses = {a: 0 for a in STANDARD}
        self.spaces, self.nest_cubes = {}, 0  # every cube returns to its player
        self.card_points = {p: 0 for p in self.players}
        wanted = DISPLAY[len(self.players)] - self.display
        if wanted > self.movement_deck:
            self.movement_deck += self.movement_discards  # the discards shuffled into a new deck
            self.movement_discards = 0
        drawn = min(wanted, self.movement_deck)
        self.display += drawn
        self.movement_deck -= drawn
        need = min(shortfall(self.board, self.depths), len(self.deck))
        self.board = refilled(self.board, self.depths, self.deck[:need])
        self.deck = self.deck[need:]
        while len(self.face_up) < FACE_UP_BIRDS and self.deck:
            self.face_up.append(self.deck.pop(0))
        self.start_player, self.start_reason = start_player(self.board, self.players, self.rng)
        self.turn = self.start_player

    # ---- what the pages show ---------------------------------------------------------

    def deck_birds(self) -> list[dict]:
        """The different birds in the deck, once each, with how many (what a favourite-bird search sees)."""
        found: dict[tuple, dict] = {}
        for bird in self.deck:
            key = (bird["owner"], bird.get("sex", ""))
            found.setdefault(key, {"bird": bird, "count": 0})["count"] += 1
        return [found[key] for key in sorted(found)]

    def view(self) -> dict:
        """The game as the players see it (JSON): board, cubes, prices, turn, cards and scores."""
        view = {
            "players": self.players, "stage": self.stage, "over": self.over, "turn": self.turn,
            "start_player": self.start_player, "start_reason": self.start_reason,
            "board": self.board, "depths": self.depths, "cubes": self.cubes, "full_cubes": self.full_cubes,
            "prices": {a: self.price(a) for a in STANDARD}, "card_costs": CARD_COSTS,
            "action_spaces": self.spaces, "nest_cubes": self.nest_cubes,
            "hands": self.hands, "hand_limit": HAND_LIMIT, "display": self.display,
            "movement_deck": self.movement_deck, "movement_discards": self.movement_discards,
            "face_up": self.face_up, "deck": len(self.deck), "deck_birds": self.deck_birds(), "scores": self.scores,
            "birds_on_board": {p: birds_of(self.board, p) for p in self.players},
            "stages": self.stages, "moves": self.moves, "last_mover": self.last_mover,
            "tiles": {"player": TILES_PER_PLAYER, "neutral": NEUTRAL_TILES},
            "legal": self.legal_moves(),
        }
        if self.over:
            view["winners"] = winners(self.scores, view["birds_on_board"])
            view["tie_break"] = tie_break(self.scores, view["birds_on_board"])
        return view

