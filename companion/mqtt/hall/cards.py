"""What the hall believes of each table: messages from the broker, checked field by field, as cards.

Anything on the broker can be wrong: garbage, a huge payload, a number where
text belongs. Each message is read strictly (companion.jsonin) and only the
fields a card shows are kept, each checked; a bad one raises BadInput naming
the field, and the listener logs it and carries on.

>>> card_show({"outcome": "idle"}, "state")
{'outcome': 'idle'}
>>> card_show({"outcome": "won"}, "state")
Traceback (most recent call last):
...
companion.errors.BadInput: state.outcome: 'won' is not one of idle, running, win, loss, aborted
"""

import threading

from companion.errors import BadInput
from companion.jsonin import parse
from companion.skyrockets.colours import COLOURS, MAX_DURATION_S
from companion.skyrockets.events import MAX_EVENT_NAME
from companion.skyrockets.show import CROWD_TOKENS

MAX_PAYLOAD_BYTES = 64 * 1024  # a table's state is a few kilobytes; anything far larger is refused unread
OUTCOMES = ("idle", "running", "win", "loss", "aborted")
TIMER_STATES = ("running", "empty", "lying", "out_of_play")
MAX_TEXT = MAX_EVENT_NAME  # the longest text a card shows is an event's name
MAX_FIGURE = 1000  # stars and spaces of a sane table are far below
MAX_SHOW_ID = 2**53  # a show's id, as exactly as a page's script can hold it
MAX_TABLES = 500  # cards the hall keeps: a convention's worth, and a bound on what a stray publisher can fill


def read_json(payload: bytes, where: str):
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise BadInput(where, f"{len(payload)} bytes is larger than {MAX_PAYLOAD_BYTES}")
    return parse(payload, where)


def _dict(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise BadInput(where, f"expected an object, got {type(value).__name__}")
    return value


def _text(value, where: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT or not value.isprintable():
        raise BadInput(where, f"expected printable text of 1 to {MAX_TEXT} characters")
    return value


def _whole(value, where: str, high: int = MAX_FIGURE) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise BadInput(where, f"expected a whole number from 0 to {high}, got {value!r}")
    return value


def _seconds(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_DURATION_S * 24:
        raise BadInput(where, f"expected seconds, got {value!r}")
    return float(value)


def _choice(value, options: tuple[str, ...], where: str) -> str:
    if value not in options:
        raise BadInput(where, f"{value!r} is not one of {', '.join(options)}")
    return value


def card_show(state: object, where: str = "state") -> dict:
    """The part of a table's state (its `/api/show` object) that a hall card shows, checked."""
    state = _dict(state, where)
    outcome = _choice(state.get("outcome"), OUTCOMES, f"{where}.outcome")
    if outcome == "idle":
        return {"outcome": outcome}
    event = _dict(state.get("event"), f"{where}.event")
    countdown = _dict(state.get("countdown"), f"{where}.countdown")
    timers = _dict(state.get("timers"), f"{where}.timers")
    glasses = {}
    for colour in COLOURS:
        if colour in timers:
            timer = _dict(timers[colour], f"{where}.timers.{colour}")
            glasses[colour] = {"state": _choice(timer.get("state"), TIMER_STATES, f"{where}.timers.{colour}.state"),
                               "top_s": _seconds(timer.get("top_s"), f"{where}.timers.{colour}.top_s")}
    return {
        "outcome": outcome,
        "event": {"id": _text(event.get("id"), f"{where}.event.id"),
                  "name": _text(event.get("name"), f"{where}.event.name")},
        "countdown": {"timer": _choice(countdown.get("timer"), COLOURS, f"{where}.countdown.timer"),
                      "position": _whole(countdown.get("position"), f"{where}.countdown.position")},
        "crowd_tokens_turned": _whole(state.get("crowd_tokens_turned"), f"{where}.crowd_tokens_turned", CROWD_TOKENS),
        "stars": _whole(state.get("stars", 0), f"{where}.stars"),
        "speed": _seconds(state.get("speed", 1.0), f"{where}.speed") or 1.0,
        "timers": glasses,
    }


def finished_show(row: object, where: str = "shows") -> dict:
    """A finished show's row, checked: what the leaderboard keeps of it."""
    row = _dict(row, where)
    return {
        "id": _whole(row.get("id"), f"{where}.id", MAX_SHOW_ID),
        "event": _text(row.get("event"), f"{where}.event"),
        "event_name": _text(row.get("event_name", row.get("event")), f"{where}.event_name"),
        "outcome": _choice(row.get("outcome"), OUTCOMES[2:], f"{where}.outcome"),
        "stars": _whole(row.get("stars"), f"{where}.stars"),
        "started": _text(row.get("started"), f"{where}.started"),
    }


class Hall:
    """Every table's card, and the leaderboard, with a sequence number for the live page.

    Each change bumps `seq` and wakes the streams; a stream asks for what
    changed after the seq it has (one message carries every card that moved).
    """

    def __init__(self, board: list | None = None):
        self._changed = threading.Condition()
        self._seq = 0
        self._cards: dict[str, dict] = {}
        self._board, self._board_seq = board or [], 0

    def _card(self, table: str) -> dict:
        if table not in self._cards and len(self._cards) >= MAX_TABLES:
            raise BadInput("topic", f"the hall already shows {MAX_TABLES} tables; {table!r} is one too many")
        self._seq += 1
        card = self._cards.setdefault(table, {"table": table, "online": None, "show": None})
        card["seq"] = self._seq
        self._changed.notify_all()
        return card

    def set_show(self, table: str, show: dict | None) -> None:
        with self._changed:
            self._card(table)["show"] = show

    def set_online(self, table: str, online: bool) -> None:
        with self._changed:
            self._card(table)["online"] = online

    def set_board(self, board: list) -> None:
        with self._changed:
            self._seq += 1
            self._board, self._board_seq = board, self._seq
            self._changed.notify_all()

    def changes(self, after: int, timeout: float) -> dict:
        """What changed after `after` (everything for -1), as soon as something did, or nothing after `timeout`."""
        with self._changed:
            self._changed.wait_for(lambda: self._seq > after, timeout)
            cards = [dict(c) for c in sorted(self._cards.values(), key=lambda c: c["table"]) if c["seq"] > after]
            board = self._board if self._board_seq > after or after < 0 else None
            return {"seq": self._seq, "cards": cards, "board": board}

    def view(self) -> dict:
        return self.changes(-1, 0)
