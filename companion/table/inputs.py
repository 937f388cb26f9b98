"""What each change a sensor source reports means to the table.

Sensor-read glasses (tilt pairs, the hub) go to their cradles, which know
how each glass sits; a flip button acts on its LED glass directly. Every
change reaches the show through `live.input`, the one way in.
"""

from companion.hardware.source import BeamChange, ButtonAction, FaultChange, PoseChange
from companion.skyrockets import Pose


def take_change(change, live, cradles) -> None:
    """Apply one change from the rig to the show in progress (`live`) and the physical glasses."""
    show = live.show
    if isinstance(change, PoseChange) and change.name in cradles:
        cradles.on_pose(show, change, live.input)
    elif isinstance(change, FaultChange) and change.name in cradles:
        cradles.on_fault(show, change, live.input)
    elif isinstance(change, BeamChange) and change.name in cradles:
        cradles.on_beam(show, change, live.input)
    elif isinstance(change, ButtonAction):
        _on_button(change, live)


def _on_button(action: ButtonAction, live) -> None:
    """A short press flips the glass; a long one lays an upright glass down (or stands a lying one up)."""
    glass = live.show.timers[action.name].glass if live.running else None
    if glass is None:
        return
    if action.action == "lay" and glass.pose.upright:
        live.input(action.t, "pose", action.name, Pose.SIDE)
    else:
        live.input(action.t, "flip", action.name)
