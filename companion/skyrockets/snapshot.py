"""The published state of a show, between two publications: pure arithmetic on a snapshot."""


def carried(snapshot: dict, now: float) -> dict:
    """A snapshot carried forward to show time `now`.

    Between two snapshots only running glasses change (the table publishes at
    every instant where anything else happens: a glass running low, empty or
    out), so this is exact.
    """
    if snapshot.get("outcome") != "running" or now <= snapshot["t"]:
        return snapshot
    gone = now - snapshot["t"]
    timers = {colour: dict(timer, top_s=round(max(0.0, timer["top_s"] - gone), 3)) if timer["state"] == "running"
              else timer for colour, timer in snapshot["timers"].items()}
    return {**snapshot, "t": round(now, 3), "timers": timers}
