"""The table's config file (TOML): one section per part of the table, checked key by key.

Every problem is reported as one line naming the file, the key and what is
wrong, e.g. ``config.toml: timers.red.pins: GPIO 40 does not exist (valid 2-27)``.
Pins default to the reference pin map in hw/pinout.toml; durations to the
nominal table, overridden by calibrated seconds (``companion calibrate``).
"""

import os
import tempfile
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from companion.errors import BadInput
from companion.fields import items, line, mapping, record, text, whole, yes_no
from companion.ports import LANGUAGES
from companion.hardware import sensors
from companion.hardware.buttons import ButtonConfig
from companion.hardware.buzzer import BuzzerConfig
from companion.hardware.hub import HubConfig
from companion.hardware.pins import load_pinout
from companion.hardware.strip import DEFAULT_PIN as STRIP_PWM_PIN, StripConfig
from companion.hardware.tilt import TiltConfig
from companion.calibration import check_calibrated
from companion.mqtt import settings as mqtt_settings
from companion.section import Section
from companion.skyrockets.colours import COLOURS, DIRECTIONS, MIN_GLASS_S, NOMINAL_S, check_colour, check_directions
from companion.skyrockets.show import MAX_TOLERANCE_S, MAX_WARN_LEAD_S, Setup

DEFAULT_PATH = Path("/etc/companion/config.toml")
DEFAULT_DATABASE = Path("/var/lib/companion/companion.sqlite3")
MAX_TABLE_NAME = 40  # characters: a phone's title bar and the kiosk show it whole
MAX_ALLOWED_HOSTS = 64  # names a table answers to besides its own: a typo'd list, not a real one, is longer

__all__ = ["ButtonConfig", "BuzzerConfig", "Config", "HubConfig", "StripConfig", "TiltConfig", "TimerConfig",
           "WebConfig", "demo_config", "load_config", "load_or_fresh", "mark_set_up", "parse_config", "set_duration",
           "write_settings"]


@dataclass(frozen=True)
class TimerConfig:
    source: str = "tilt"
    pins: tuple[int, ...] = ()
    duration: float | None = None  # calibrated seconds standing A up (and B up too, unless duration_b_up); None = nominal
    single_switch: bool = False
    duration_b_up: float | None = None  # calibrated seconds standing B up, when they differ

    @property
    def directions(self) -> tuple[float, float] | None:
        """The calibrated seconds (A up, B up), or None."""
        if self.duration is None:
            return None
        return self.duration, self.duration if self.duration_b_up is None else self.duration_b_up


@dataclass(frozen=True)
class WebConfig:
    host: str = "0.0.0.0"
    port: int = 8000
    pin: str | None = None  # None: a PIN drawn once and kept beside the database (table/door.py)
    allowed_hosts: tuple[str, ...] = ()  # more names the table answers to (its own are always allowed); "*": any
    mdns: bool = True  # the daemon announces itself on mDNS; false where the system's responder (Avahi) does


@dataclass(frozen=True)
class Config:
    path: Path | None = None
    database: Path = DEFAULT_DATABASE
    warn_lead_s: float = Setup.warn_lead_s
    runout_grace_s: float = 1.0  # physical glasses only: an emulated one is turned by the table, on time
    advance_tolerance_s: float = 1.5
    nominal: dict = field(default_factory=lambda: dict(NOMINAL_S))
    timers: dict = field(default_factory=dict)  # colour -> TimerConfig
    tilt: TiltConfig = TiltConfig()
    buttons: ButtonConfig = ButtonConfig()
    strip: StripConfig = StripConfig()
    buzzer: BuzzerConfig = BuzzerConfig()
    web: WebConfig = WebConfig()
    hub: HubConfig | None = None  # the serial sensor hub, if the table has one
    sensor_sections: dict = field(default_factory=dict)  # any other kind of source's section, by its name
    mqtt: mqtt_settings.BrokerSettings | None = None  # no [mqtt]: the table joins no broker
    mock_pins: bool = False  # no GPIO needed: glasses turned from the page (a service tried before the wiring)
    name: str = ""  # the table's name, for its pages and its screen ("" : none given)
    language: str | None = None  # the language of its screen and of phones that have not chosen one
    set_up: bool = False  # the setup page was finished: until then it opens for the setup code
    setup_code_file: Path | None = None  # a copy of the setup code while setup is open (an image's boot partition)

    def durations(self) -> dict[str, float | tuple[float, float]]:
        """Calibrated durations only, per colour seconds or (A up, B up) (the nominal table fills the rest).

        A and B are the ends of the glass's cradle: A is up when the first of its pins reads closed.
        """
        return {c: t.duration if t.duration_b_up is None else t.directions
                for c, t in self.timers.items() if t.duration is not None}


def default_timers(source: str = "tilt") -> dict[str, TimerConfig]:
    pinout = load_pinout()
    return {c: TimerConfig(source=source, pins=tuple(pinout["timers"][c]["pins"])) for c in COLOURS}


def demo_config(database: Path) -> Config:
    """The embedded default: six emulated timers on mock pins, a fake strip, a buzzer."""
    return Config(
        database=Path(database), runout_grace_s=0.0, advance_tolerance_s=0.0,
        timers=default_timers("emulated"),
        strip=StripConfig(enabled=True, driver="fake"),
        buzzer=BuzzerConfig(enabled=True, pin=load_pinout()["buzzer"]["pin"]),
        web=WebConfig(host="127.0.0.1"),
    )


def demo_config_file(path: Path, database: Path) -> Config:
    """The demo's own config file, not set up yet, so that a newcomer can walk the setup page on the demo:
    written once (the demo's settings as `demo_config` has them), then read as any table's config."""
    import tomlkit

    if not path.exists():
        demo = demo_config(database)
        document = tomlkit.document()
        document.add(tomlkit.comment("The demo's config: its setup page writes here; it goes with the demo's folder."))
        document["table"] = {"database": str(database), "mock_pins": True, "runout_grace_s": demo.runout_grace_s,
                             "advance_tolerance_s": demo.advance_tolerance_s}
        document["timers"] = {c: {"source": t.source, "pins": list(t.pins[:1])} for c, t in demo.timers.items()}
        document["strip"] = {"enabled": demo.strip.enabled, "driver": demo.strip.driver}
        document["buzzer"] = {"enabled": demo.buzzer.enabled, "pin": demo.buzzer.pin}
        document["web"] = {"host": demo.web.host}
        _write_atomically(path, tomlkit.dumps(document))
    return load_config(path)


def load_config(path: Path | str | None = None) -> Config:
    """Read and check a config file; with no path, the default file if it exists, else defaults."""
    if path is None:
        if not _there(DEFAULT_PATH):
            return parse_config({}, None)
        path = DEFAULT_PATH
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise BadInput(str(path), f"cannot read it ({e.strerror or e})", code="errors.file.unreadable") from None
    except UnicodeDecodeError:
        raise BadInput(str(path), "not UTF-8 text", code="errors.file.not_utf8") from None
    except tomllib.TOMLDecodeError as e:
        raise BadInput(str(path), f"not valid TOML ({e})", code="errors.file.not_toml") from None
    try:
        return parse_config(data, path)
    except BadInput as e:
        raise BadInput(f"{path}: {e.field}", e.problem, code=getattr(e, "error_code", None),
                       params=e.params) from None


def load_or_fresh(path: Path | str | None = None) -> Config:
    """The config at `path` (default: the default file); a file not written yet gives the defaults, to be
    written there (by the setup page or `companion calibrate`)."""
    path = Path(path) if path is not None else DEFAULT_PATH
    if _there(path):
        return load_config(path)
    return parse_config({}, path)


def _there(path: Path) -> bool:
    """Whether a config file is there: a folder the user may not look into (the default file's, for the Pi's
    own user) is refused in one line, not taken for a missing file nor left to a traceback."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as e:
        raise BadInput(str(path), f"cannot read it ({e.strerror or e}): run it as the table's user or with sudo",
                       code="errors.setup.file") from None
    return True


def parse_config(data: dict, path: Path | None) -> Config:
    sections = Section(data, "")
    table = sections.section("table")
    nominal_section = sections.section("nominal")
    nominal = dict(NOMINAL_S)
    for colour in nominal_section.keys():
        check_colour(colour, f"nominal.{colour}")
        nominal[colour] = nominal_section.seconds(colour, None, positive=True)
    timers = _timers(sections.section("timers"), nominal)
    d = Config()
    config = Config(
        path=path,
        database=Path(table.text("database", str(d.database))),
        warn_lead_s=table.seconds("warn_lead_s", d.warn_lead_s, limit=MAX_WARN_LEAD_S),
        runout_grace_s=table.seconds("runout_grace_s", d.runout_grace_s, limit=MAX_TOLERANCE_S),
        advance_tolerance_s=table.seconds("advance_tolerance_s", d.advance_tolerance_s, limit=MAX_TOLERANCE_S),
        mock_pins=table.boolean("mock_pins", d.mock_pins),
        name=check_table_name(table.text("name", d.name), "table.name"),
        language=table.choice("language", LANGUAGES, None) if "language" in table.keys() else None,
        set_up=table.boolean("set_up", d.set_up),
        setup_code_file=Path(table.text("setup_code_file", "")) if table.text("setup_code_file", "") else None,
        nominal=nominal,
        timers=timers,
        strip=sections.owned("strip", StripConfig.read),
        buzzer=sections.owned("buzzer", BuzzerConfig.read),
        web=sections.owned("web", _web),
        mqtt=sections.owned("mqtt", mqtt_settings.read),
        **_sensor_fields(sections),
    )
    for s in (sections, table, nominal_section):
        s.done()
    _check_pins_unique(config)
    for kind in sensors.kinds():
        kind.check_config(config, [c for c, t in timers.items() if t.source == kind.name])
    return config


def _sensor_fields(sections) -> dict:
    """Each kind of source's section, read by its own module: in a field of its own, or in `sensor_sections`."""
    read = sensors.sensor_settings(sections)
    own = {name: settings for name, settings in read.items() if name in Config.__dataclass_fields__}
    return {**own, "sensor_sections": {name: settings for name, settings in read.items() if name not in own}}


def _timers(section: "Section", nominal: dict[str, float]) -> dict[str, TimerConfig]:
    defaults = default_timers()
    for colour in section.keys():
        check_colour(colour, f"timers.{colour}")
    timers = {}
    for colour in COLOURS:
        s = section.section(colour)
        source = s.choice("source", sensors.names(), TimerConfig.source)
        single = s.boolean("single_switch", False)
        pins = s.pins("pins", defaults[colour].pins)
        sensors.kind(source).check_pins(colour, pins, single)
        a_up, b_up = _calibrated(s.value("duration", None), nominal[colour], f"timers.{colour}.duration")
        s.done()
        timers[colour] = TimerConfig(source=source, pins=pins, duration=a_up, single_switch=single,
                                     duration_b_up=None if b_up == a_up else b_up)
    section.done()
    return timers


def _web(s: "Section") -> WebConfig:
    d = WebConfig()
    pin = s.text("pin", None)
    if pin is not None:
        check_pin(pin, "web.pin")
    return WebConfig(host=check_host(s.text("host", d.host), "web.host"),
                     port=check_port(s.value("port", d.port), "web.port"), pin=pin,
                     allowed_hosts=_allowed_hosts(s.value("allowed_hosts", [])), mdns=s.boolean("mdns", d.mdns))


def _allowed_hosts(names) -> tuple[str, ...]:
    """web.allowed_hosts: host names (or addresses) the table also answers to, or "*" for any."""
    items(names, "web.allowed_hosts", 0, MAX_ALLOWED_HOSTS, expected='a list of host names, e.g. ["table.example.lan"]',
          code="errors.host_list")
    for i, name in enumerate(names):
        if text(name, f"web.allowed_hosts[{i}]", expected="a host name", code="errors.host") != "*":
            check_host(name, f"web.allowed_hosts[{i}]")
    return tuple(names)


def check_table_name(name: str, field: str) -> str:
    """A table's name: one line of at most MAX_TABLE_NAME characters (empty: none)."""
    return line(name, field, MAX_TABLE_NAME, empty=True).strip()


def check_pin(pin: str, field: str) -> str:
    """A table PIN: 4 to 8 ASCII digits (what a phone's keypad and an HTTP header both carry)."""
    if not (pin.isascii() and pin.isdigit() and 4 <= len(pin) <= 8):
        raise BadInput(field, "expected 4 to 8 digits (0-9)", code="errors.setup.pin_digits")
    return pin


def check_port(port: object, field: str) -> int:
    """A TCP port to listen on: 1 to 65535 (0 would silently pick another)."""
    return whole(port, field, 1, 65535)


def check_host(host: str, field: str) -> str:
    """An address to listen on: an IPv4 or IPv6 address, or a host name."""
    import ipaddress
    import re

    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    label = r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)"
    if re.fullmatch(rf"{label}(\.{label})*", host) and len(host) <= 253 and not re.fullmatch(r"[0-9.]+", host):
        return host
    raise BadInput(field, f"{host[:40]!r} is not an IP address or host name", code="errors.host")


def _check_pins_unique(config: Config) -> None:
    """No GPIO claimed twice; a refusal says who has the pin already (which glass, the buzzer, the strip)."""
    used: dict[int, tuple[str, str, dict]] = {}  # pin -> (key, the holder's words, its params)
    claims = [(f"timers.{c}.pins", kind.shown_pins(t), (f"the {c} glass", {"colour": c}))
              for c, t in config.timers.items() if (kind := sensors.kind(t.source)).on_gpio]
    if config.buzzer.enabled:
        claims.append(("buzzer.pin", (config.buzzer.pin,), ("the buzzer", {"holder": "buzzer"})))
    if config.strip.enabled and config.strip.driver == "pwm":
        claims.append(("strip.driver", (STRIP_PWM_PIN,), ("the LED strip", {"holder": "strip"})))
    bus = _strip_bus_pins(config)
    for key, pins, holder in claims:
        for pin in pins:
            if pin in bus:
                raise BadInput(key, f"GPIO {pin} is {bus[pin]}, which the LED strip's SPI driver takes "
                                    "(choose a spare pin, or strip.driver = \"pwm\")",
                                    code="errors.setup.pin_spi", params={"pin": pin})
            if pin in used:
                words, params = used[pin][1]
                by = "glass" if "colour" in params else params["holder"]
                raise BadInput(key, f"GPIO {pin} is already used by {words} ({used[pin][0]})",
                               code=f"errors.setup.pin_used_by_{by}", params={"pin": pin, **params})
            used[pin] = (key, holder)


def _strip_bus_pins(config: Config) -> dict[int, str]:
    """The pins a fitted strip's bus takes: SPI0 (the pin map's [reserved] spi and [strip] spi_mosi) for the spi driver."""
    if not (config.strip.enabled and config.strip.driver == "spi"):
        return {}
    pinout = load_pinout()
    bus = {pin: "on SPI0 (the pin map's [reserved] spi)" for pin in pinout["reserved"]["spi"]}
    bus[pinout["strip"]["spi_mosi"]] = "SPI0 MOSI, the strip's data line"
    return bus


def _calibrated(value, nominal: float, field: str) -> tuple[float | None, float | None]:
    """A calibration as read: None, seconds, or {"a_up": s, "b_up": s}; each way near the nominal seconds."""
    if value is None:
        return None, None
    pair = check_directions(value, field)
    if pair[0] < MIN_GLASS_S or pair[1] < MIN_GLASS_S:
        raise BadInput(field, f"{min(pair):g} s is too short for an hourglass (at least {MIN_GLASS_S:g} s)",
                       code="errors.setup.too_short", params={"limit": MIN_GLASS_S})
    for way, seconds in zip(DIRECTIONS, pair):
        check_calibrated(seconds, nominal, field if pair[0] == pair[1] else f"{field}.{way}")
    return pair


def set_duration(config: Config, colour: str, seconds) -> Config:
    """Store a calibrated duration: in the config file when there is one (comments kept), always in memory.

    `seconds` is one number (both ways alike), or (A up, B up), or {"a_up": s, "b_up": s}.
    """
    colour = check_colour(colour, "timer")
    if isinstance(seconds, (tuple, list)) and len(seconds) == 2:
        seconds = dict(zip(DIRECTIONS, seconds))
    if seconds is None:
        raise BadInput("seconds", "missing", code="errors.missing")
    a_up, b_up = (round(s, 2) for s in _calibrated(seconds, config.nominal[colour], "seconds"))
    if config.path is not None:
        import tomlkit

        def change(document) -> None:
            timers = document.setdefault("timers", tomlkit.table(is_super_table=True))
            kept = a_up if a_up == b_up else tomlkit.inline_table()
            if a_up != b_up:
                kept.update({"a_up": a_up, "b_up": b_up})
            timers.setdefault(colour, tomlkit.table())["duration"] = kept

        _edit(config, change, saving="the calibration")
    timers = dict(config.timers)
    timers[colour] = replace(timers[colour], duration=a_up, duration_b_up=None if b_up == a_up else b_up)
    return replace(config, timers=timers)


# What the setup page may change, per section: key -> what it must be before the config's own checks
# (which judge the values and give the same one-line messages as `companion run`). Each kind of sensor adds
# the settings of its own section it offers (sensors.page_keys()).
PAGE_KEYS = {
    "table": {"name": str, "language": str},
    "web": {"pin": str},
    "strip": {"enabled": bool, "driver": str},
    "buzzer": {"enabled": bool, "pin": int},
    "mqtt": {"url": str},
}
TIMER_KEYS = {"source": str, "pins": list}


def write_settings(config: Config, settings: object, *, dry_run: bool = False) -> Config:
    """Put the setup page's settings into the config file and answer the config as read back.

    The file is edited, not rewritten: its comments and every key the page
    does not know stay as they were. The result is checked by `parse_config`
    before anything is written (a refusal names the key, as `companion run`
    would), then written atomically (`dry_run`: checked only). An empty `mqtt.url` removes [mqtt]
    (the table leaves its broker); an empty `web.pin` keeps the PIN there is; an empty
    `table.language` removes it (each phone shows its own).
    """
    import tomlkit

    if config.path is None:
        raise BadInput("config", "this table runs without a config file (the demo): there is nowhere to save",
                       code="errors.setup.demo")
    settings = _page_settings(settings)

    def change(document) -> None:
        for section, values in settings.items():
            if section == "timers":
                timers = document.setdefault("timers", tomlkit.table(is_super_table=True))
                for colour, keys in values.items():
                    _put_all(timers.setdefault(colour, tomlkit.table()), keys)
            elif section == "mqtt" and not values.get("url", "x"):
                document.pop("mqtt", None)
            else:
                if section == "web" and not values.get("pin", "x"):
                    values = {k: v for k, v in values.items() if k != "pin"}
                if section == "table" and not values.get("language", "x"):  # each phone's own language
                    values = {k: v for k, v in values.items() if k != "language"}
                    document.get("table", {}).pop("language", None)
                if values:
                    _put_all(document.setdefault(section, tomlkit.table()), values)

    return _edit(config, change, dry_run=dry_run)


def _put_all(table, values: dict) -> None:
    """Set keys of a TOML table: a key there keeps its place and comment, a new one goes after the last key
    (not after comments that close the table, which often belong to the section commented out below)."""
    for key, value in values.items():
        keys = list(table.keys())
        if key in keys or not keys:
            table[key] = value
        else:
            table.value._insert_after(keys[-1], key, value)


def _page_settings(settings: object) -> dict:
    """The page's settings, each key known and of the right kind (values are the config's to judge)."""
    page_keys = {**PAGE_KEYS, **sensors.page_keys()}
    # A section the setup page may not change is refused by name.
    record(mapping(settings, "settings", expected="an object of sections"), "", (*page_keys, "timers"))
    shaped: dict = {}
    for section, values in settings.items():
        known = page_keys.get(section)
        mapping(values, str(section), expected="a section")
        if section == "timers":
            shaped["timers"] = {}
            for colour, keys in values.items():
                check_colour(colour, f"timers.{colour}")
                shaped["timers"][colour] = _page_keys(keys, TIMER_KEYS, f"timers.{colour}")
        else:
            shaped[section] = _page_keys(values, known, section)
    return shaped


def _page_keys(values: object, known: dict, where: str) -> dict:
    record(values, where, tuple(known))
    for key, value in values.items():
        _READS[known[key]](value, f"{where}.{key}")  # of the right kind: the config's own checks judge its value
    return dict(values)


# How the page's value of each kind is read before the config judges it (a port's range, a pin's GPIO).
_READS = {str: text, bool: yes_no, int: lambda value, field: whole(value, field, -2**63, 2**63 - 1),
          list: lambda value, field: items(value, field, 0, 64)}


def mark_set_up(config: Config, done: bool) -> Config:
    """Record in the config file that the setup page was finished (True) or is to open again (False)."""
    import tomlkit

    def change(document) -> None:
        _put_all(document.setdefault("table", tomlkit.table()), {"set_up": done})

    return _edit(config, change)


def _edit(config: Config, change, *, dry_run: bool = False, saving: str = "the settings") -> Config:
    """Change the config file's document with `change`, check the result as `load_config` would, write it.

    The one writer of the config file: the setup page's settings, the set-up mark and a calibrated duration
    all come through here (`saving` says which, if the disk refuses)."""
    import tomlkit

    path = config.path
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except OSError as e:
        raise BadInput(str(path), f"cannot read it ({e.strerror or e})", code="errors.setup.file") from None
    try:
        document = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as e:
        raise BadInput(str(path), f"not valid TOML ({e})", code="errors.setup.file") from None
    change(document)
    written = tomlkit.dumps(document)
    checked = parse_config(tomllib.loads(written), path)  # a refusal names the key, as `companion run` does
    if dry_run:
        return checked
    try:
        _write_atomically(path, written)
    except OSError as e:
        raise BadInput(str(path), f"cannot save {saving} ({e.strerror or e})", code="errors.setup.file") from None
    return checked


def _write_atomically(path: Path, text: str) -> None:
    """Write next to the file, then rename over it: a power cut leaves the old or the new file.

    The new file keeps the old one's mode and owner (when allowed), so `sudo companion setup --reopen`
    leaves a file the daemon's own user can still read and write.
    """
    try:
        old = path.stat()
    except FileNotFoundError:
        old = None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if old is not None:
            os.chmod(tmp, old.st_mode & 0o7777)
            if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.chown(tmp, old.st_uid, old.st_gid)
                except PermissionError:
                    pass  # not root: the file stays ours, as it was ours to replace
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
