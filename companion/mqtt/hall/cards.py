"""What the hall believes of each table: messages from the broker, checked field by field, as cards.

Anything on the broker can be wrong: garbage, a huge payload, a number where
text belongs. Each message is read strictly (companion.jsonin) and only the
fields a card shows are kept, each checked by the one field reader
(companion.fields); a bad one raises BadInput naming the field, and the
listener logs it and carries on.

>>> card_show({"outcome": "idle"}, "state")
{'outcome': 'idle'}
>>> card_show({"outcome": "won"}, "state")
Traceback (most recent call last):
...
companion.errors.BadInput: state.outcome: expected one of idle, running, win, loss, aborted, got 'won'
"""

import json
import threading
import time
from collections import OrderedDict

from companion.errors import BadInput
from companion.fields import at, choice, items, line, mapping, real, whole
from companion.jsonin import parse
from companion.mqtt.pacer import Pacer
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
NEVER_ONLINE_S = 600.0  # a card of a table never seen online (no retained `online`) goes after this
QUIET_S = 12 * 3600.0  # a card no message refreshed for a whole day's play goes (a real table shows again at its next)
FRAME_S = 0.010  # over any while, the live page is sent the hall's changes at most this often: coalesced, serialised once
# A lone change (after a quiet moment) goes out at once, and so do the next few: only a run of changes is paced.
FRAME_BURST = 3


def read_json(payload: bytes, where: str):
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise BadInput(where, f"{len(payload)} bytes is larger than {MAX_PAYLOAD_BYTES}", code="errors.too_large")
    return parse(payload, where)


def _text(value, where: str) -> str:
    return line(value, where, MAX_TEXT)


def _whole(value, where: str, high: int = MAX_FIGURE) -> int:
    return whole(value, where, 0, high)


def _seconds(value, where: str) -> float:
    return real(value, where, 0, MAX_DURATION_S * 24)


def card_show(state: object, where: str = "state") -> dict:
    """The part of a table's state (its `/api/show` object) that a hall card shows, checked."""
    state = mapping(state, where)
    outcome = choice(state.get("outcome"), at(where, "outcome"), OUTCOMES)
    if outcome == "idle":
        return {"outcome": outcome}
    event = mapping(state.get("event"), f"{where}.event")
    countdown = mapping(state.get("countdown"), f"{where}.countdown")
    timers = mapping(state.get("timers"), f"{where}.timers")
    glasses = {}
    for colour in COLOURS:
        if colour in timers:
            timer = mapping(timers[colour], f"{where}.timers.{colour}")
            glasses[colour] = {"state": choice(timer.get("state"), f"{where}.timers.{colour}.state", TIMER_STATES),
                               "top_s": _seconds(timer.get("top_s"), f"{where}.timers.{colour}.top_s")}
    return {
        "outcome": outcome,
        "event": {"id": _text(event.get("id"), f"{where}.event.id"),
                  "name": _text(event.get("name"), f"{where}.event.name")},
        "countdown": {"timer": choice(countdown.get("timer"), f"{where}.countdown.timer", COLOURS),
                      "position": _whole(countdown.get("position"), f"{where}.countdown.position")},
        "crowd_tokens_turned": _whole(state.get("crowd_tokens_turned"), f"{where}.crowd_tokens_turned", CROWD_TOKENS),
        "runouts": _runouts(state.get("runouts", []), f"{where}.runouts"),
        "stars": _whole(state.get("stars", 0), f"{where}.stars"),
        "speed": _seconds(state.get("speed", 1.0), f"{where}.speed") or 1.0,
        "timers": glasses,
    }


def _runouts(value, where: str) -> list[str]:
    """The glasses that ran out, in order (each run-out turns a crowd token, so there are at most that many)."""
    return [choice(mapping(r, at(where, i)).get("timer"), at(at(where, i), "timer"), COLOURS)
            for i, r in enumerate(items(value, where, 0, CROWD_TOKENS))]


def finished_show(row: object, where: str = "shows") -> dict:
    """A finished show's row, checked: what the leaderboard keeps of it."""
    row = mapping(row, where)
    return {
        "id": _whole(row.get("id"), f"{where}.id", MAX_SHOW_ID),
        "event": _text(row.get("event"), f"{where}.event"),
        "event_name": _text(row.get("event_name", row.get("event")), f"{where}.event_name"),
        "outcome": choice(row.get("outcome"), f"{where}.outcome", OUTCOMES[2:]),
        "stars": _whole(row.get("stars"), f"{where}.stars"),
        "started": _text(row.get("started"), f"{where}.started"),
    }


class Hall:
    """Every table's card, and the leaderboard, with a sequence number for the live page.

    Each change bumps `seq`. The live page is sent frames (`frame`): the
    changes since the last frame coalesced into one message, rendered and
    serialised once for every viewer that is up to date, carrying only the
    cards that moved (and the board when it moved). Frames are paced as a
    bucket (`Pacer`): after a quiet moment a change goes out at once, as do
    the next FRAME_BURST - 1, and over any longer while never more than one
    frame every FRAME_S. A card of a table never
    seen online (a stray publisher's) expires after NEVER_ONLINE_S, and any
    card no message refreshed for QUIET_S (a stray's retained `online`)
    expires too. A new table is never refused for room: when the hall is
    full, a card never seen online gives its place, else the card heard from
    longest ago. A table the owner removed (`remove`) has no card and gets
    none. A card that goes is sent as `{"table": name, "gone": true}`.
    """

    def __init__(self, board: list | None = None, *, clock=time.monotonic, frame_s: float = FRAME_S,
                 never_online_s: float = NEVER_ONLINE_S, quiet_s: float = QUIET_S):
        self._changed = threading.Condition()
        self._clock, self._never_online_s, self._quiet_s = clock, never_online_s, quiet_s
        self._pacer = Pacer(frame_s, burst=FRAME_BURST) if frame_s > 0 else None  # None: every change a frame
        self._seq = 0
        self._cards: dict[str, dict] = {}
        self._gone: dict[str, int] = {}  # table -> seq it went at (bounded: MAX_TABLES, oldest forgotten)
        self._strays: OrderedDict[str, float] = OrderedDict()  # tables never seen online -> when first heard
        self._heard: OrderedDict[str, float] = OrderedDict()  # every card -> its last message, the quietest first
        self._removed: set[str] = set()  # tables the owner removed
        self._board, self._board_seq, self._board_source = board or [], 0, None
        self._published = 0
        self._frames: dict[int, str] = {}  # seq a viewer has -> the next frame's text, for the current frame only

    # ---- changes (the listener's thread) ----------------------------------------------------------

    def _bump(self) -> int:
        self._seq += 1
        if self._seq == self._published + 1:
            self._changed.notify_all()  # the first change after a frame wakes the viewers; later ones wait for it
        return self._seq

    def _card(self, table: str) -> dict | None:
        """`table`'s card, made if new (room made if the hall is full), or None for a removed table."""
        self._expire()
        if table in self._removed:
            return None
        now = self._clock()
        if table not in self._cards:
            if len(self._cards) >= MAX_TABLES:
                self._drop(next(iter(self._strays or self._heard)))
            self._strays[table] = now
            self._gone.pop(table, None)
        self._heard[table] = now
        self._heard.move_to_end(table)
        card = self._cards.setdefault(table, {"table": table, "online": None, "show": None})
        card["seq"] = self._bump()
        return card

    def _expire(self) -> None:
        now = self._clock()
        for kept, age in ((self._strays, self._never_online_s), (self._heard, self._quiet_s)):
            while kept:
                table, since = next(iter(kept.items()))
                if now - since <= age:
                    break
                self._drop(table)

    def _drop(self, table: str) -> None:
        self._strays.pop(table, None)
        self._heard.pop(table, None)
        if self._cards.pop(table, None) is not None:
            self._gone[table] = self._bump()
            if len(self._gone) > MAX_TABLES:
                del self._gone[next(iter(self._gone))]

    def knows(self, table: str) -> bool:
        """True when `table` has a card (so its finished shows may count)."""
        with self._changed:
            return table in self._cards

    def set_show(self, table: str, show: dict | None) -> None:
        with self._changed:
            card = self._card(table)
            if card is not None:
                card["show"] = show

    def set_online(self, table: str, online: bool) -> None:
        with self._changed:
            card = self._card(table)
            if card is not None:
                card["online"] = online
                if online:
                    self._strays.pop(table, None)

    def remove(self, table: str) -> None:
        """The owner removed `table`: its card goes, and its messages make none again."""
        with self._changed:
            self._removed.add(table)
            self._drop(table)

    def set_board(self, board) -> None:
        """The leaderboard changed: `board` is its rows, or a function giving them (called once per frame)."""
        with self._changed:
            self._board_seq = self._bump()
            if callable(board):
                self._board_source = board
            else:
                self._board, self._board_source = board, None

    # ---- what the viewers see ---------------------------------------------------------------------

    def _board_now(self) -> list:
        if self._board_source is not None:
            self._board, self._board_source = self._board_source(), None
        return self._board

    def _since(self, after: int) -> dict:
        cards = [dict(c) for c in sorted(self._cards.values(), key=lambda c: c["table"]) if c["seq"] > after]
        if after >= 0:
            cards += [{"table": t, "gone": True} for t, seq in self._gone.items() if seq > after]
        board = self._board_now() if self._board_seq > after or after < 0 else None
        return {"seq": self._seq, "cards": cards, "board": board}

    def changes(self, after: int, timeout: float) -> dict:
        """What changed after `after` (everything for -1), as soon as something did, or nothing after `timeout`."""
        with self._changed:
            self._changed.wait_for(lambda: self._seq > after, timeout)
            return self._since(after)

    def view(self) -> dict:
        with self._changed:
            self._expire()  # a hall nobody publishes to still lets its quiet cards go
        return self.changes(-1, 0)

    def published(self) -> int:
        """The seq of the last frame sent to viewers."""
        with self._changed:
            return self._published

    def frame(self, after: int, timeout: float) -> dict:
        """The next frame for a viewer that has `after`: {"seq", "text"} (compact JSON), or text None after `timeout`.

        A change goes out at once unless the frames before it spent the
        burst: then it waits for the pace, gathering whatever else changes
        meanwhile, so a hundred tables changing ten times a second make a
        viewer at most 1 / FRAME_S frames a second, not a thousand messages.
        """
        deadline = self._clock() + timeout
        with self._changed:
            while True:
                if after > self._published:
                    after = -1  # a number this hall never sent (an earlier run's): the whole view
                now = self._clock()
                if self._published > after and not (after < 0 and self._seq > self._published):
                    return {"seq": self._published, "text": self._text(after)}
                hold = self._pacer.wait_s(now) if self._pacer is not None else 0.0
                if self._seq > self._published and (after < 0 or hold == 0):
                    # due, or a new viewer (rare) whose whole view must be exactly the published one
                    self._published, self._frames = self._seq, {}
                    if self._pacer is not None:
                        self._pacer.sent(now)
                    self._changed.notify_all()  # the other viewers take the same frame
                    continue
                due = now + hold if self._seq > self._published else deadline
                if now >= deadline:
                    return {"seq": self._published, "text": None}
                self._changed.wait(max(0.0, min(due, deadline) - now))

    def _text(self, after: int) -> str:
        """The frame from `after` to the published seq, serialised once for every viewer at `after`."""
        text = self._frames.get(after)
        if text is None:
            changed = self._since(after)
            changed["seq"] = self._published
            text = self._frames[after] = json.dumps(changed, ensure_ascii=False, separators=(",", ":"))
        return text
