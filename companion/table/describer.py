"""The table's snapshot at each change: the show's replay result, with what only the table knows.

A change touches a glass or two and the instant; the rest of the table (the
show's id and settings, what the sensors read, the glasses that did not
move) reads as it did. Those parts are handed out as the very objects of the
last snapshot, so the text every phone is sent (publisher.Spliced) takes
them at a glance instead of comparing them field by field. On the way from
a flip to the phones every object looked at again costs several times its
warm price: the milliseconds between two changes leave the caches cold.
Snapshots are only read, never changed, so sharing their parts is safe.
"""

from companion.hardware import sensors
from companion.hardware.source import fault_json
from companion.records.database import iso
from companion.table.cradles import NO_CRADLE


class Describer:
    """Builds the table's snapshots, keeping each part that reads as it did as the object it was."""

    def __init__(self):
        self._frame: tuple = (None, None)  # (the show's key, what every snapshot of it shares)
        self._sources: tuple = (None, None)  # (the config, each glass's (source, sensed) by colour)
        self._sensors: tuple = ((), None)  # (what the sensors read, their part)
        self._glasses: dict[str, tuple] = {}  # colour -> (what its part says, the part)

    def __call__(self, show, show_id, started_wall: float, cradles, config, extras: dict) -> dict:
        """The snapshot of a table: the show's replay result at its instant (or idle), then its frame, then
        `extras` and what the sensors read."""
        sources = self._sources_of(config)
        extras = {**extras, "sensors": self._sensors_of(cradles, sources)}
        if show is None:
            return {"outcome": "idle", "warn_lead_s": config.warn_lead_s, **extras}
        state = show.result()
        state.update(self._frame_of(show, show_id, started_wall), **extras)
        running, kept = show.outcome == "running", self._glasses
        timers = state["timers"]
        for colour, shown in timers.items():
            cradle, played = cradles.get(colour, NO_CRADLE), show.timers[colour]
            glass, fault = played.glass, cradle.fault
            # The seconds of the way it stands: glasses may run unlike both ways.
            duration = glass.duration_for(glass.pose) if glass else show.setup.duration(colour)
            turn, moved = running and played.spent, cradle.changed_while_down
            # A fault is kept by identity as well: its code and values go with it, and not with its words.
            says = (shown["pose"], shown["top_s"], shown["state"], duration, played.role, sources[colour], fault,
                    id(fault), turn, moved)  # its sensed follows its source
            last = kept.get(colour)
            if last is not None and last[0] == says:
                timers[colour] = last[1]
                continue
            source, sensed = sources[colour]
            # sensed goes last: a field added to the public state comes after those a script already reads
            shown.update(duration=duration, role=played.role, source=source, **fault_json(fault),
                         awaiting_turn=turn, changed_while_down=moved, sensed=sensed)
            kept[colour] = (says, shown)
        return state

    def _sources_of(self, config) -> dict[str, tuple[str, bool]]:
        """Each glass's source, and whether the table reads it by sensors (`sensed`): the pages ask that of the
        glass and never which kinds are read, so a new kind of source needs nothing of them."""
        if self._sources[0] is not config:
            self._sources = (config, {colour: (timer.source, sensors.physical(timer))
                                      for colour, timer in config.timers.items()})
        return self._sources[1]

    def _sensors_of(self, cradles, sources: dict[str, tuple[str, bool]]) -> dict:
        """What each glass's sensors read now, for the page's setup check (no pose for a glass read by none)."""
        read = tuple((colour, source, (cradle := cradles.get(colour, NO_CRADLE)).physical, cradle.fault,
                      id(cradle.fault)) for colour, source in sources.items())
        if read != self._sensors[0]:
            self._sensors = (read, {colour: {"source": source, "pose": pose.value if pose else None,
                                             **fault_json(fault), "sensed": sensed}
                                    for colour, (source, sensed), pose, fault, _ in read})
        return self._sensors[1]

    def _frame_of(self, show, show_id, started_wall: float) -> dict:
        """What every snapshot of a show shares (its id, event and settings): built once per show."""
        key = (id(show), show_id, started_wall)  # a show id is never reused, so neither is a key
        if self._frame[0] != key:
            setup = show.setup
            self._frame = (key, {"id": show_id, "event": setup.event.to_json(), "challenge": setup.challenge,
                                 "started": iso(started_wall), "warn_lead_s": setup.warn_lead_s,
                                 "runout_grace_s": setup.runout_grace_s,
                                 "advance_tolerance_s": setup.advance_tolerance_s})
        return self._frame[1]
