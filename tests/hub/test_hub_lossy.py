"""The firmware's core and the Pi's hub source over lossy lines, on a simulated clock: no turn is lost.

Each run is ten simulated minutes of glasses turned about nine times a
second (some 5 300 turns), every frame spoilt (lost, cut short, a byte
changed) at the given rate in each direction; deterministic for its seed.
"""

import pytest

from companion.hardware.firmware import firmware_module
from companion.hardware.hub_fake import lossy_run

hubcore = firmware_module("hubcore")


@pytest.mark.parametrize("to_pi, to_hub", [(0.05, 0.05), (0.20, 0.0), (0.20, 0.20)],
                         ids=["5%-each-way", "20%-to-the-pi", "20%-each-way"])
def test_no_turn_is_lost_on_a_lossy_line(to_pi, to_hub):
    result = lossy_run(to_pi, to_hub, minutes=10, seed=1)
    assert result.flips > 5000
    assert (result.lost, result.wrong, result.counts["gone"], result.reconnects) == (0, 0, 0, 0)
    assert result.counts["gaps"] > 200 and result.counts["snapshots"] == 1  # the first one only


def test_a_window_too_short_for_the_line_loses_turns_and_says_so():
    """What can still be lost: the frames the hub no longer keeps. The Pi counts each such gap as "gone"."""
    result = lossy_run(0.2, 0.2, minutes=2, seed=3, core_class=lambda timers: hubcore.HubCore(timers, window=8))
    assert result.lost > 0 and result.wrong == 0
    assert result.counts["gone"] > 0 and result.counts["snapshots"] == 1 + result.counts["gone"]


def test_the_run_is_the_same_for_the_same_seed():
    assert lossy_run(0.1, 0.1, minutes=0.5, seed=5) == lossy_run(0.1, 0.1, minutes=0.5, seed=5)
