"""The serial sensor hub: one board on a USB port reads the glasses wired to it and sends their poses."""

from companion.errors import BadInput
from companion.hardware.hub import HubSource, hub_config
from companion.hardware.sensors import SensorKind, pose_words, register
from companion.hardware.source import fault_json


def _check_config(config, colours) -> None:
    if colours and config.hub is None:
        raise BadInput("hub.port", f"missing: timers.{colours[0]}.source is \"hub\", so the [hub] section needs the "
                                   "hub's port", code="errors.setup.hub_port")


def _open(rig, colours, sink, clock) -> None:
    if colours:  # one source for every glass on the hub
        rig.sources[HubSource.device] = HubSource.open(rig.config.hub, colours, sink, clock)


def _status(rig) -> dict | None:
    """The hub as last heard: its hello (None before it) and each of its channels; None without a hub."""
    source = rig.sources.get(HubSource.device)
    if source is None:
        return None
    poses = source.poses()
    return {"port": rig.config.hub.port, "hello": dict(source.hello) if source.hello else None,
            "channels": {colour: {"channel": ch, "pose": poses[colour].value if poses[colour] else None,
                                  "beam": source.beam[colour], **fault_json(source.fault[colour])}
                         for colour, ch in source.channels.items()}}


def _describe(rig, colour: str, glass: dict) -> None:
    status = _status(rig)
    if status is not None and colour in status["channels"]:
        channel = status["channels"][colour]
        glass.update({k: channel[k] for k in ("pose", "fault", "fault_code", "fault_params")})


def _readout(glass: dict) -> tuple[str, str]:
    return "(serial hub)", "-" if glass["pose"] is None else pose_words(glass)


HUB = register(SensorKind("hub", rank=1, physical=True, section="hub", read=hub_config, open=_open,
                          describe=_describe, readout=_readout, on_gpio=False, check_config=_check_config,
                          status=_status, words=("setup.hub", "setup.hub_port", "setup.hub_help", "setup.hub_hello",
                                                 "setup.hub_silent", "setup.hub_channel")))
