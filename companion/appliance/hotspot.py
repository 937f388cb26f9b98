"""When the table opens its own access point, and when it leaves it (pure: what was seen and when, in; what to do, out).

The table never strands itself: with a home network known it leaves its access point now and then to try it,
and it leaves at once when a network is back or the page saved a new one.

>>> watch = Watch()
>>> watch, do = decide(watch, Seen(online=False, ap_on=False, known=True), now=0)
>>> do is None  # a home network can take a while to join at boot
True
>>> watch, do = decide(watch, Seen(online=False, ap_on=False, known=True), now=OFFLINE_GRACE_S)
>>> do
'start_ap'
>>> decide(watch, Seen(online=True, ap_on=True, known=True), now=OFFLINE_GRACE_S + 5)[1]
'stop_ap'
"""

from dataclasses import dataclass, replace

# Without a network this long (at boot, or after losing it) the table opens its access point: joining a known
# network at boot takes a few seconds to half a minute, and one lost beacon must not drive the phones away.
OFFLINE_GRACE_S = 60.0
# With a home network known, the access point gives way this often to let the table try it again (the home
# router restarted, the table was carried home): long enough to fill in the page, short enough to come home.
RETRY_S = 300.0
# How often the shell looks (the decisions above take no less than this long to notice a change).
LOOK_S = 5.0



@dataclass(frozen=True)
class Timing:
    """The watcher's three times (a test shortens them; the table uses TIMING)."""

    grace_s: float = OFFLINE_GRACE_S
    retry_s: float = RETRY_S
    look_s: float = LOOK_S


TIMING = Timing()
START_AP = "start_ap"
STOP_AP = "stop_ap"


@dataclass(frozen=True)
class Seen:
    """The network as the table found it: on a network other than its own access point, the access point up,
    and a home network saved to try."""

    online: bool
    ap_on: bool
    known: bool
    asked: bool = False  # the page saved a new home network just now: try it at once


@dataclass(frozen=True)
class Watch:
    """What the watcher remembers: since when the table has been without a network, since when its AP is up."""

    offline_since: float | None = None
    ap_since: float | None = None
    ap_refused_at: float | None = None  # the access point could not open then (no radio): wait before trying again


def refused(watch: Watch, now: float) -> Watch:
    """The state after the access point failed to open at `now`: it is not tried again for a retry's time, so a
    table without a Wi-Fi radio waits steadily for a network (a cable) instead of failing over and over.

    >>> watch, do = decide(refused(Watch(offline_since=0), 60), Seen(False, False, True), now=61)
    >>> do is None
    True
    >>> decide(watch, Seen(False, False, True), now=60 + RETRY_S)[1]
    'start_ap'
    """
    return replace(watch, ap_since=None, ap_refused_at=now)


def decide(watch: Watch, seen: Seen, now: float, timing: Timing = TIMING) -> tuple[Watch, str | None]:
    """The next state and what to do now: START_AP, STOP_AP or None."""
    if seen.online:
        return Watch(), STOP_AP if seen.ap_on else None
    if seen.ap_on:
        ap_since = watch.ap_since if watch.ap_since is not None else now
        if seen.asked or (seen.known and now - ap_since >= timing.retry_s):
            return Watch(offline_since=now), STOP_AP  # the grace starts again: the home network's turn
        return replace(watch, ap_since=ap_since), None
    offline_since = watch.offline_since if watch.offline_since is not None else now
    waiting = watch.ap_refused_at is not None and now - watch.ap_refused_at < timing.retry_s
    if now - offline_since >= timing.grace_s and not waiting:
        return Watch(offline_since=offline_since, ap_since=now), START_AP
    return Watch(offline_since=offline_since, ap_refused_at=watch.ap_refused_at), None
