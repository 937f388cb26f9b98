"""What the table looks like, handed out: numbered snapshots for the web, and the strip's frames.

Each change of the table is published once as a whole snapshot (the
`GET /api/show` object) with a sequence number that rises across restarts
(boot × SEQ_PER_BOOT + n), so a phone's Last-Event-ID stays meaningful.
Readers on any thread wait for the next one; the runtime never waits for
them.
"""

import threading

from companion.records.database import iso

SEQ_PER_BOOT = 10**9


class Publisher:
    """The latest snapshot, and a condition that wakes everyone waiting for a newer one."""

    def __init__(self, boot: int):
        self._boot = boot
        self._published = 0
        self._snapshot: dict = {}
        self._changed = threading.Condition()
        self._listeners = []

    def listen(self, listener) -> None:
        """Call `listener(snapshot)` with every snapshot published (on the runtime thread: it must not wait)."""
        self._listeners.append(listener)

    def publish(self, snapshot: dict) -> dict:
        self._published += 1
        snapshot["seq"] = self._boot * SEQ_PER_BOOT + self._published
        with self._changed:
            self._snapshot = snapshot
            self._changed.notify_all()
        for listener in self._listeners:
            listener(snapshot)
        return snapshot

    def snapshot(self) -> dict:
        with self._changed:
            return self._snapshot

    def wait_for_change(self, after_seq: int, timeout: float) -> dict:
        """The snapshot as soon as its seq is past `after_seq`, or the current one after `timeout` s."""
        with self._changed:
            self._changed.wait_for(lambda: self._snapshot["seq"] > after_seq, timeout)
            return self._snapshot


def describe(show, show_id, started_wall: float, cradles, sources: dict[str, str], extras: dict,
             idle_warn_lead_s: float) -> dict:
    """The snapshot of a table: the show's replay result at its instant, with what only the table knows."""
    if show is None:
        return {"outcome": "idle", "warn_lead_s": idle_warn_lead_s, **extras}
    setup = show.setup
    state = show.result()
    state.update(id=show_id, event=setup.event.to_json(), challenge=setup.challenge, started=iso(started_wall),
                 warn_lead_s=setup.warn_lead_s, runout_grace_s=setup.runout_grace_s,
                 advance_tolerance_s=setup.advance_tolerance_s, **extras)
    for colour, timer in state["timers"].items():
        cradle = cradles.get(colour)
        glass = show.timers[colour].glass  # the seconds of the way it stands: glasses may run unlike both ways
        timer.update(duration=glass.duration_for(glass.pose) if glass else setup.duration(colour), role=show.timers[colour].role, source=sources[colour],
                     fault=cradle.fault if cradle else None,
                     awaiting_turn=show.outcome == "running" and show.timers[colour].spent,
                     changed_while_down=bool(cradle and cradle.changed_while_down))
    return state


class FrameTap:
    """Keeps the newest frame a fake strip showed, for the page that draws the strip on screen."""

    def __init__(self, strip, layout, *, after: int = 0):
        self._cond = threading.Condition()
        self._n, self._pixels = after, []  # `after`: a tap that follows another counts on from its frames
        self._layout = layout
        self.enabled = strip is not None and hasattr(strip, "subscribe")
        if self.enabled:
            strip.subscribe(self._frame)

    @property
    def count(self) -> int:
        """Frames seen so far."""
        return self._n

    def _frame(self, frame) -> None:
        with self._cond:
            self._n += 1
            self._pixels = frame
            self._cond.notify_all()

    def wait(self, after: int, timeout: float) -> dict | None:
        """The frame as soon as one newer than `after` exists (None: no strip to show)."""
        if not self.enabled:
            return None
        with self._cond:
            self._cond.wait_for(lambda: self._n > after, timeout)
            pixels = ["#%02x%02x%02x" % tuple(p[:3]) for p in self._pixels]
            layout = self._layout
            return {"n": self._n, "pixels": pixels,
                    "layout": {"segment_len": layout.segment_len, "colours": list(layout.colours),
                               "countdown_leds": layout.countdown_leds, "token_leds": layout.token_leds}}
