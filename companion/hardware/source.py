"""The one interface every sensor source plugs into the rig through, and what sources report.

A source is whatever tells the table how its glasses stand: a tilt pair in
a cradle, a flip button under an LED hourglass, the serial hub. Each one
works the same way, so the rig dispatches them all alike and a new kind of
source is one new module, registered in companion.hardware.sensors:

- its devices (gpiozero callbacks, a serial reader thread) hand *raw items*
  to the rig's sink; every raw item carries `device`, the name of the source
  that must take it;
- the runtime thread gives each raw item back to its source with `take(item)`
  (the only place a source's state changes), asks `update(t)` for the
  changes that became true up to instant `t`, each stamped with its own
  instant, and sleeps until the earliest `next_due()`;
- `close()` releases the devices;
- a source that reads glasses (not a button) also offers `poses()`:
  {colour: Pose or None}, how each of its glasses stands as last settled.

>>> class Quiet:
...     device = "quiet"
...     def take(self, item): pass
...     def update(self, t): return []
...     def next_due(self): return None
...     def close(self): pass
>>> isinstance(Quiet(), Source)
True
"""

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from companion.skyrockets.hourglass import Pose


@dataclass(frozen=True)
class PoseChange:
    """The glass `name` settled into `pose` at time `t`.

    `resync` marks a pose learnt from a fresh reading after the source lost
    sight of the glass (a hub replugged): it may have moved unseen meanwhile.
    """

    name: str
    pose: Pose
    t: float
    resync: bool = False


class Fault(str):
    """Why a glass's sensors cannot be believed: the words for the terminal and the log, with the catalogue
    code and values a page says it by in its own language (it compares and prints as its words).

    >>> fault = Fault("the hub cannot read this glass's sensor", "faults.hub.sensor")
    >>> fault == "the hub cannot read this glass's sensor", fault_json(fault)["fault_code"]
    (True, 'faults.hub.sensor')
    """

    code: str
    params: dict

    def __new__(cls, text: str, code: str, **params):
        fault = super().__new__(cls, text)
        fault.code, fault.params = code, params
        return fault


def fault_json(fault: str | None) -> dict:
    """A glass's fault for the pages: its words (for scripts), and its code and values (for the catalogue)."""
    return {"fault": fault, "fault_code": getattr(fault, "code", None), "fault_params": getattr(fault, "params", {})}


@dataclass(frozen=True)
class FaultChange:
    """The sensors of glass `name` became faulty at `t` (`fault` says why), or well again (None)."""

    name: str
    fault: str | None
    t: float


@dataclass(frozen=True)
class ButtonAction:
    """The button of glass `name` asked at time `t` to "flip" it or to "lay" it down (or stand it up)."""

    name: str
    action: str
    t: float


@dataclass(frozen=True)
class BeamChange:
    """The light beam at the neck of glass `name` saw sand start (`flowing`) or stop at time `t`."""

    name: str
    flowing: bool
    t: float


Change = PoseChange | FaultChange | ButtonAction | BeamChange


@runtime_checkable
class Source(Protocol):
    """A sensor source as the rig sees it (see the module docstring)."""

    device: str

    def take(self, item) -> None: ...

    def update(self, t: float) -> list[Change]: ...

    def next_due(self) -> float | None: ...

    def close(self) -> None: ...
