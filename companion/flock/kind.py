"""An Über den Wolken game as the table saves it: what a saved state is, how it changes, and its whole check.

A state is either a game kept move by move (`{"mode": "moves", "players",
"seed", "movement_set", "log"}`, replayed by the rules on every read) or a
score sheet (`{"mode": "sheet", "players", "seed", "start_board", "stages"}`),
either with the people playing each species (`"names"`, optional). The
table's game shelf asks `FLOCK.check` of every state, whichever door it
comes by (the API, a history import), so a state the rules cannot replay is
never kept. Cards the players entered
once are kept under `nest/NAME` or `movement/NAME`.

>>> state = FLOCK.new("moves", ["crane", "kite"], 3)
>>> state = FLOCK.play(state, {"do": "pass"})
>>> FLOCK.check(state)["log"], FLOCK.view(state)["moves"]
([{'do': 'pass'}], 1)
>>> FLOCK.check({**state, "players": ["crane"]})
Traceback (most recent call last):
companion.errors.BadInput: state.players: 1 players: the game is for 2-4
"""

import random

from companion.errors import BadInput, Conflict, NothingToUndo
from companion.fields import at, choice, name, record, text, whole
from companion.flock.birds import COLUMNS, STAGES, read_players
from companion.flock.cards import MAX_CARD_NAME, read_movement, read_nest
from companion.flock.game import MAX_LOG, MAX_SEED, RECORD_FIELDS, Game
from companion.flock.setup import DEFAULT_MOVEMENT_SET, setup
from companion.flock.sheet import read_stage, sheet
from companion.flock.stage import scored
from companion.players import MAX_NAME

KIND = "flock"
MODES = ("moves", "sheet")
# What each mode's state holds; "names" (who plays each species) is the only field a state may leave out.
MOVES_FIELDS = RECORD_FIELDS
SHEET_FIELDS = ("mode", "players", "seed", "start_board", "stages", "names")
CARD_TYPES = ("nest", "movement")
MAX_CARDS = 200  # cards kept per table: every nest and movement card of the game, many times over
WIDEST = max(COLUMNS.values())  # a kept movement card serves every player count: it may mark any column


class FlockKind:
    """The saved Über den Wolken game: new, changed a move or a stage at a time, undone, checked whole, shown."""

    name = KIND
    max_log = MAX_LOG
    max_cards = MAX_CARDS
    max_card_name = MAX_CARD_NAME
    max_state_bytes = 256 * 1024  # a whole three-stage game with its move log fits many times

    def __init__(self):
        # The state the last move made, with its game: that move replayed the log and tried the move on it, so the
        # shelf's check of the state and the answer's view use this game instead of replaying the log twice more
        # (once inside the write). One slot, swapped whole: a thread that misses it replays, as any other door.
        self._played: tuple[dict | None, Game | None] = (None, None)

    def _replayed(self, state: dict) -> Game:
        made, game = self._played
        return game if made is state else Game.replay(state)

    # ---- a state ------------------------------------------------------------------------

    def new(self, mode, players, seed, movement_set=DEFAULT_MOVEMENT_SET, names=None) -> dict:
        """A fresh state, checked by setting the game up; `names`: the people playing each species (optional)."""
        mode = choice(mode, "mode", MODES)
        seed = whole(seed, "seed", 0, MAX_SEED)
        laid = setup(players, random.Random(seed), movement_set)
        named = {"names": read_names(names, laid["players"])} if names else {}
        if mode == "moves":
            return {"mode": mode, "players": laid["players"], "seed": seed, "movement_set": movement_set,
                    "log": [], **named}
        return {"mode": mode, "players": laid["players"], "seed": seed, "start_board": laid["board"],
                "stages": [], **named}

    def check(self, state, field: str = "state") -> dict:
        """The whole state checked: its fields, every move replayed (or every stage scored); BadInput under `field`.

        Only a state the API could have kept passes: the start board the seed lays out, names as read.
        """
        record(state, field, tuple(dict.fromkeys(MOVES_FIELDS + SHEET_FIELDS)), required=("mode",))
        mode = choice(state["mode"], at(field, "mode"), MODES)
        held = MOVES_FIELDS if mode == "moves" else SHEET_FIELDS
        record(state, field, held, required=[f for f in held if f != "names"])
        try:
            players = read_players(state["players"])
            if mode == "moves":
                self._replayed(state)  # the setup from its seed, then every move by the rules
            else:
                seed = whole(state["seed"], "seed", 0, MAX_SEED)
                if state["start_board"] != setup(players, random.Random(seed))["board"]:
                    raise BadInput("start_board", "is not the flock the seed lays out",
                                   code="flock.refused.start_board")
                sheet(players, state["stages"], state["start_board"])  # every stage read and scored
            if "names" in state and (not state["names"] or read_names(state["names"], players) != state["names"]):
                raise BadInput("names", "expected each name trimmed and in NFC (or no names at all)",
                               code="flock.refused.name_form")  # as the game was started: names kept as read
        except BadInput as e:
            raise e.within(field) from None
        return state

    def play(self, state: dict, action) -> dict:
        """The state with `action` added to its log (refused, naming why, when the rules do not allow it)."""
        if state["mode"] != "moves":
            raise Conflict("mode", "this game is kept as a score sheet: enter stages, not moves",
                           code="flock.refused.sheet_mode")
        if len(state["log"]) >= MAX_LOG:
            raise BadInput("action", f"the game has {MAX_LOG} actions already",
                           code="errors.game_full", params={"limit": MAX_LOG})
        game = Game.replay(state)  # a fresh game: the move changes it
        game.apply(action)
        played = {**state, "log": [*state["log"], action]}
        self._played = (played, game)
        return played

    def enter_stage(self, state: dict, stage) -> dict:
        """The sheet with the next stage's end entered (read, and scored so that the sheet can always be shown)."""
        if state["mode"] != "sheet":
            raise Conflict("mode", "this game is kept move by move: the stage ends with the landing action",
                           code="flock.refused.moves_mode")
        if len(state["stages"]) >= STAGES:
            raise Conflict("stage", f"all {STAGES} stages are entered",
                           code="flock.refused.stages_done", params={"n": STAGES})
        players = state["players"]
        read = read_stage(stage, players, "stage")
        try:
            scored(players, read["board"], read["nest"], read["movement_cards"], {p: 0 for p in players}, False)
        except BadInput as e:
            raise e.within("stage") from None
        return {**state, "stages": [*state["stages"], stage]}

    def undo(self, state: dict) -> dict:
        """The state without its last move (or its last stage, for a sheet)."""
        entries = "log" if state["mode"] == "moves" else "stages"
        if not state[entries]:
            raise NothingToUndo(entries)
        return {**state, entries: state[entries][:-1]}

    # ---- what the pages show -------------------------------------------------------------

    def view(self, state: dict) -> dict:
        """What the pages show of a state: the game as it stands, and who plays each species (names, if given)."""
        if state["mode"] == "moves":
            shown = self._replayed(state).view()
            shown["last"] = state["log"][-1] if state["log"] else None
        else:
            shown = sheet(state["players"], state["stages"], state["start_board"])
        shown["names"] = dict(state.get("names", {}))
        return shown

    def summary(self, game: dict) -> dict:
        """A saved game as the list of games shows it: who played, who started, when, and the result once it is over."""
        state = game["state"]
        shown = self.view(state)
        totals = shown.get("scores", shown.get("totals", {}))
        laid = setup(state["players"], random.Random(state["seed"]), state.get("movement_set", DEFAULT_MOVEMENT_SET))
        return {"id": game["id"], "version": game["version"], "mode": state["mode"], "players": state["players"],
                "names": shown["names"],
                "updated": game["updated"], "over": shown["over"], "totals": totals,
                "winners": shown.get("winners", []), "stage": shown.get("stage"),
                "start": laid["start_player"]}  # who the setup named to start the game

    def export_rows(self, game: dict) -> list[list]:
        """A game's scores as CSV rows: a header, then one row a player, most points first."""
        shown = self.summary(game)
        rows = [["game", "place", "species", "name", "points", "winner", "over"]]
        ordered = sorted(shown["players"], key=lambda p: -shown["totals"].get(p, 0))
        for place, player in enumerate(ordered, start=1):
            rows.append([game["id"], place, player, shown["names"].get(player, ""),
                         shown["totals"].get(player, 0), "yes" if player in shown["winners"] else "no",
                         "yes" if shown["over"] else "no"])
        return rows

    # ---- cards entered once ----------------------------------------------------------------

    def read_card(self, card_type, card_name, card, columns: int = WIDEST) -> tuple[str, dict]:
        """A card the players entered, as it is kept: its key (`nest/NAME`, `movement/NAME`) and its values."""
        card_type = choice(card_type, "type", CARD_TYPES)
        card_name = name(card_name, "name", MAX_CARD_NAME)  # the one name rule of every game
        if card_type == "nest":
            return f"{card_type}/{card_name}", read_nest(card, "card")
        return f"{card_type}/{card_name}", {"spaces": read_movement(card, columns, "card")["spaces"]}

    def split_key(self, key: str) -> tuple[str, str]:
        """A kept card's type and name, from its key (`nest/NAME`)."""
        card_type, _, card_name = key.partition("/")
        return card_type, card_name

    def by_type(self, kept: dict[str, dict]) -> dict[str, dict[str, dict]]:
        """The kept cards (by key) as the pages list them: by type, then by name."""
        listed = {card_type: {} for card_type in CARD_TYPES}
        for key, card in kept.items():
            card_type, card_name = self.split_key(key)
            if card_type in listed:  # every card kept since the shelf checks cards is; an older row may not be
                listed[card_type][card_name] = card
        return listed

    def check_card(self, key, card) -> dict:
        """A kept card checked whole, by its key; answers the card as it is kept."""
        card_type, card_name = self.split_key(text(key, "name"))
        read_key, read = self.read_card(card_type, card_name, card)
        if read_key != key:
            raise BadInput("name", "expected the name trimmed and in NFC", code="flock.refused.card_name")
        return read

    def check_room(self, kept: int) -> None:
        """Refuse one more card when `kept` cards are kept already."""
        if kept >= MAX_CARDS:
            raise BadInput("name", f"the table keeps at most {MAX_CARDS} cards",
                           code="flock.refused.cards_full", params={"limit": MAX_CARDS})


def read_names(value, players: list[str]) -> dict[str, str]:
    """Who plays each species: {species: name}, every name by the one name rule, none twice."""
    record(value, "names", players)
    names = {}
    for species, person in value.items():
        person = name(person, f"names.{species}", MAX_NAME)
        if person in names.values():
            raise BadInput(f"names.{species}", f"{person} is named twice", code="players.twice",
                           params={"name": person})
        names[species] = person
    return names


FLOCK = FlockKind()
