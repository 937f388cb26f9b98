"""The serial sensor hub: one board on a USB port reads the glasses wired to it and sends their poses."""

from companion.errors import BadInput
from companion.hardware.hub import PORT, HubSource, hub_config
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
    """The hub as last heard: its hello (None before it) and each of its channels, and the lines the setup page
    shows of it; None without a hub."""
    source = rig.sources.get(HubSource.device)
    if source is None:
        return None
    poses = source.poses()
    status = {"port": rig.config.hub.port, "hello": dict(source.hello) if source.hello else None,
              "channels": {colour: {"channel": ch, "pose": poses[colour].value if poses[colour] else None,
                                    "beam": source.beam[colour], **fault_json(source.fault[colour])}
                           for colour, ch in source.channels.items()}}
    return {**status, "lines": _lines(status)}


def _lines(status: dict) -> list[dict]:
    """The hub's hello, then each channel, as catalogue codes and their values (`words`: values that are codes)."""
    hello = status["hello"]
    first = ({"code": "setup.hub_hello", "params": {"firmware": hello["fw"], "protocol": hello["proto"],
                                                    "timers": hello["timers"]}}
             if hello else {"code": "setup.hub_silent", "params": {"port": status["port"]}})
    return [first, *({"code": "setup.hub_channel", "params": {"channel": ch["channel"], "timer": colour},
                      "words": {"pose": f"setup.pose.{ch['pose']}" if ch["pose"] else "setup.no_pose"},
                      **{k: ch[k] for k in ("fault", "fault_code", "fault_params")}}
                     for colour, ch in status["channels"].items())]


def _describe(rig, colour: str, glass: dict) -> None:
    status = _status(rig)
    if status is not None and colour in status["channels"]:
        channel = status["channels"][colour]
        glass.update({k: channel[k] for k in ("pose", "fault", "fault_code", "fault_params")})


def _readout(glass: dict) -> tuple[str, str]:
    return "(serial hub)", "-" if glass["pose"] is None else pose_words(glass)


WORDS = {
    "en": {"setup.source.hub": "Serial hub", "setup.hub": "Serial sensor hub", "setup.hub_port": "Hub port",
           "setup.hub_help": "Only for glasses on the hub: its /dev/serial/by-id/… path.",
           "setup.hub_hello": "Hub says hello: firmware {firmware}, protocol {protocol}, {timers} channels",
           "setup.hub_silent": "No hello from the hub on {port} yet",
           "setup.hub_channel": "channel {channel}: {timer} {pose}",
           "errors.setup.hub_port": "Give the serial hub's port.",
           "faults.hub.waiting": "waiting for the serial hub",
           "faults.hub.protocol": "hub protocol {hub}, table {ours} (update the hub's firmware)",
           "faults.hub.channels": "the hub has only {timers} channels",
           "faults.hub.sensor": "the hub cannot read this glass's sensor",
           "faults.hub.lost": "the serial hub is unplugged or silent"},
    "ja": {"setup.source.hub": "シリアルハブ", "setup.hub": "シリアルセンサーハブ", "setup.hub_port": "ハブのポート",
           "setup.hub_help": "ハブにつないだ砂時計があるときだけ：/dev/serial/by-id/… のパス。",
           "setup.hub_hello": "ハブの応答：ファームウェア{firmware}、プロトコル{protocol}、{timers}チャンネル",
           "setup.hub_silent": "{port}のハブからまだ応答がありません",
           "setup.hub_channel": "チャンネル{channel}：{timer} {pose}",
           "errors.setup.hub_port": "シリアルハブのポートを入力してください。",
           "faults.hub.waiting": "シリアルハブを待っています",
           "faults.hub.protocol": "ハブのプロトコル{hub}がテーブルの{ours}と違います（ハブのファームウェアを更新）",
           "faults.hub.channels": "ハブのチャンネルは{timers}個しかありません",
           "faults.hub.sensor": "ハブがこの砂時計のセンサーを読めません",
           "faults.hub.lost": "シリアルハブが抜けているか、応答しません"},
}

HUB = register(SensorKind("hub", rank=1, physical=True, section="hub", read=hub_config, open=_open,
                          describe=_describe, readout=_readout, on_gpio=False, check_config=_check_config,
                          status=_status, fields=(PORT,), title="setup.hub", words=WORDS))
