"""What the table looks like, handed out: numbered snapshots for the web.

Each change of the table is published once as a whole snapshot (the
`GET /api/show` object) with a sequence number that rises across restarts
(boot × SEQ_PER_BOOT + n), so a phone's Last-Event-ID stays meaningful.
Readers on any thread wait for the next one; the runtime never waits for
them. Every phone's live feed sends the same text of a snapshot: it is
serialised once, as it is published, not once per phone (`text`).
"""

import json
import threading

from companion.skyrockets.snapshot import carried

SEQ_PER_BOOT = 10**9
# A phone draws a running glass from the state's top_s and the moment it arrived, so a state sent a
# little after it was published shows the glass that much behind: within STALE_STEP_S of wall time (less
# than a frame) it is sent as published; a later reader gets it carried on, in steps of this size.
STALE_STEP_S = 0.01
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode  # one encoder, not one per text
BY_COLOUR = "timers"  # the part a change touches one piece of (a flip, one glass of six): kept glass by glass


def _part_encoder():
    """Compact JSON of one part, as `_compact` writes it. json's `encode` makes a new C encoder at every call,
    a few µs each time, three times a flip on its way to the phones: here it is made once, where this Python
    has one with the signature json itself uses and it writes a probe as `_compact` does; else `_compact`."""
    probe = {"a": [1, 2.5, None, True, "é\u2028\x01"], "b": {}}
    try:
        from json.encoder import c_make_encoder, encode_basestring
        made = c_make_encoder(None, json.JSONEncoder().default, encode_basestring, None, ":", ",", False, False, True)

        def encode(value, _made=made, _join="".join) -> str:
            return _join(_made(value, 0))
        if encode(probe) == _compact(probe):
            return encode
    except (ImportError, TypeError):
        pass
    return _compact


_encode_part = _part_encoder()


class Spliced:
    """Compact JSON of successive snapshots, each part that equals the last snapshot's keeping its text.

    A change of the table touches a few of a snapshot's parts (a glass, the
    countdown, the instant); the event, the settings, the sensors and the
    other glasses come out as they did, so their text is spliced in, not
    written again. (Writing a whole state's 2.5 KB took a third of the time
    from a flip to the phones' sockets; splicing takes about half as long.) The
    text is the same, character for character, as `_compact`'s of the whole
    snapshot: a part is reused only if equal and of the same type, and the
    snapshot's fields keep their types (a count is never a bool). Keys are
    text, as a snapshot's are. The loop is written out, not a call per part:
    it runs on every change, before any phone has it.
    """

    def __init__(self):
        self._parts: dict[str, tuple[object, str]] = {}  # key -> (its value, its text)
        self._glasses: dict[str, tuple[object, str]] = {}  # the same, under BY_COLOUR

    def __call__(self, snapshot: dict) -> str:
        return "{%s}" % ",".join(self._texts(snapshot, self._parts, nested=True))

    def _texts(self, part: dict, kept_parts: dict, nested: bool = False) -> list[str]:
        """The texts of `part`'s keys and values, each kept in `kept_parts` (`nested`: its glasses apart)."""
        texts = []
        for key, value in part.items():
            if nested and key == BY_COLOUR and type(value) is dict:
                texts.append(f'"{BY_COLOUR}":{{{",".join(self._texts(value, self._glasses))}}}')
                continue
            kept = kept_parts.get(key)
            if kept is not None and (kept[0] is value or (type(kept[0]) is type(value) and kept[0] == value)):
                texts.append(kept[1])
            else:
                text = f"{_encode_part(key)}:{_scalar(value) or _encode_part(value)}"
                kept_parts[key] = (value, text)
                texts.append(text)
        return texts


def _scalar(value) -> str:
    """The JSON of an int or a finite float as json writes them (its own repr), without the encoder's
    round trip: the instant and the number change at every publish. Anything else: ''."""
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and value - value == 0:  # finite: json writes NaN and Infinity its own way
        return float.__repr__(value)
    return ""


class Publisher:
    """The latest snapshot, and a condition that wakes everyone waiting for a newer one."""

    def __init__(self, boot: int):
        self._boot = boot
        self._published = 0
        self._snapshot: dict = {}
        self._changed = threading.Condition()
        self._listeners = []
        self._writers = []
        self._text_lock = threading.Lock()
        self._texts: dict[tuple[int, int], str] = {}  # the current snapshot's texts, by (seq, staleness step)
        self._spliced = Spliced()

    def listen(self, listener) -> None:
        """Call `listener(snapshot)` with every snapshot published, after the writers (on the runtime thread: it must
        not wait)."""
        self._listeners.append(listener)

    def write_to(self, writer) -> None:
        """Call `writer(seq, text)` with every snapshot's text as it is published, before any reader wakes
        (on the runtime thread: it must not wait)."""
        self._writers.append(writer)

    def publish(self, snapshot: dict) -> dict:
        """Make `snapshot` the latest: the writers first, then the listeners, and only then are waiting readers
        woken. A thread woken earlier (a reader, or the LED show a listener wakes to render, a millisecond of
        Python) would only compete for the interpreter with the writing to the phones; the strip, redrawn
        many milliseconds apart, loses nothing by waiting for the writes."""
        self._published += 1
        snapshot["seq"] = seq = self._boot * SEQ_PER_BOOT + self._published
        # Serialised here, before the streams wake: this thread has just built the snapshot's objects, so
        # it writes them out several times faster than a stream's thread on another core would.
        text = self.text(snapshot, snapshot.get("t", 0.0))
        with self._changed:
            self._snapshot = snapshot
        for writer in self._writers:
            writer(seq, text)
        for listener in self._listeners:
            listener(snapshot)
        with self._changed:
            self._changed.notify_all()
        return snapshot

    def snapshot(self) -> dict:
        with self._changed:
            return self._snapshot

    def text(self, snapshot: dict, show_now: float) -> str:
        """`snapshot` as compact JSON, as of show time `show_now`: one serialisation shared by every phone.

        A snapshot read within STALE_STEP_S (wall time) of its instant is
        sent as it is; later, it is carried on to the last whole step before
        `show_now`, so readers in the same step share that text too.
        """
        step = 0
        if snapshot.get("outcome") == "running":
            speed = snapshot.get("speed") or 1.0
            step = max(0, int((show_now - snapshot["t"]) / speed / STALE_STEP_S + 1e-9))
        key = (snapshot.get("seq", 0), step)
        with self._text_lock:
            text = self._texts.get(key)
            if text is None:
                if any(seq != key[0] for seq, _ in self._texts):
                    self._texts.clear()  # texts of an older snapshot: no reader asks for them again
                shown = snapshot if step == 0 else carried(snapshot, snapshot["t"] + step * STALE_STEP_S * speed)
                text = self._texts[key] = self._spliced(shown)
            return text

    def wait_for_change(self, after_seq: int, timeout: float) -> dict:
        """The snapshot as soon as its seq is past `after_seq`, or the current one after `timeout` s."""
        with self._changed:
            self._changed.wait_for(lambda: self._snapshot["seq"] > after_seq, timeout)
            return self._snapshot

