"""The config loader under fuzz: every file is a Config or one BadInput naming the key, never a traceback."""

import tomllib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.config import load_config, parse_config
from companion.errors import BadInput, printable

CONFIG_EXAMPLES = 700  # values tried, each at every key
WHOLE_EXAMPLES = 150
FILE_EXAMPLES = 250  # two files each
FUZZ = dict(deadline=None, suppress_health_check=list(HealthCheck), database=None)

SECTIONS = {  # the keys a config may have, so the fuzz reaches past the first unknown key
    "table": ("database", "warn_lead_s", "runout_grace_s", "advance_tolerance_s"),
    "nominal": ("red", "purple", "pink"),
    "tilt": ("settle_ms", "both_closed_fault_s", "remind_every_s", "start_window_s"),
    "buttons": ("settle_ms", "hold_s"),
    "strip": ("enabled", "pixels", "pin", "brightness", "kind"),
    "buzzer": ("pin", "enabled"),
    "web": ("host", "port", "pin"),
}
TIMER_KEYS = ("source", "pins", "duration", "single_switch")
CONTROLS = st.sampled_from(["\x00", "\n", "\u2028", "\ud800", "\x1b"])
TEXT = st.text(st.one_of(st.characters(), CONTROLS), max_size=20) | st.sampled_from(
    ["tilt", "emulated", "hub", "999.1.1.1", "0.0.0.0", "::", "localhost", "١٢٣٤", "1234", "/tmp/x.sqlite3", ""])
NUMBERS = st.one_of(st.integers(), st.integers(-10**400, 10**400), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, -5, 1, 99999, 65535, 2**63, 0.01, 0.5, 3600.0001, 1e308]))
LEAVES = st.one_of(st.booleans(), NUMBERS, TEXT, st.dates())
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                      max_leaves=6)


@st.composite
def configs(draw) -> dict:
    data = {}
    for name in draw(st.lists(st.sampled_from(sorted(SECTIONS) + ["timers", "extra"]), unique=True, max_size=4)):
        if name == "timers":
            colours = draw(st.lists(st.sampled_from(["red", "orange", "blue", "pink"]), unique=True, max_size=2))
            data[name] = {c: draw(st.dictionaries(st.sampled_from(TIMER_KEYS), VALUES, max_size=3)) for c in colours}
        elif name == "extra":
            data[draw(TEXT)] = draw(VALUES)
        else:
            data[name] = draw(st.dictionaries(st.sampled_from(SECTIONS[name]), VALUES, max_size=3))
    return data


thrown = {"inputs": 0, "refused": 0, "accepted": 0}
PLACES = [(section, key) for section, keys in SECTIONS.items() for key in keys]
PLACES += [("timers", f"{colour}.{key}") for colour in ("red", "purple") for key in TIMER_KEYS]


def placed(section: str, key: str, value) -> dict:
    """A config with `value` at one key (a timer key is one level deeper)."""
    if section == "timers":
        colour, key = key.split(".")
        return {"timers": {colour: {key: value}}}
    return {section: {key: value}}


# A refusal that names another key than the bad value's, because the value makes that key needed.
NEEDED_BY = {"hub.port": ("timers.red.source", "timers.purple.source", "timers.orange.source", "timers.blue.source")}


def paths(data: dict, prefix: str = "") -> set[str]:
    """The dotted path of every key in `data`, at every depth."""
    found = set()
    for key, value in data.items():
        key = str(key) or '""'  # as the config names an empty key
        path = f"{prefix}.{key}" if prefix else key
        found.add(path)
        if isinstance(value, dict):
            found |= paths(value, path)
    return found


def names_its_field(field: str, data: dict) -> bool:
    """Whether a refusal's field is a key the config has (an entry or part of one), or one its values made needed."""
    keys = paths(data)
    if field in keys or any(field.startswith(k + "[") for k in keys):
        return True
    if any(field.startswith(k + ".") for k in keys if "." in k):  # a part missing from a key's own table
        return True
    return any(k in keys for k in NEEDED_BY.get(field, ()))


def throw_config(data: dict) -> None:
    thrown["inputs"] += 1
    try:
        parse_config(data, None)
    except BadInput as e:
        assert "\n" not in str(e)
        assert names_its_field(e.field, data), f"{e} does not name the bad key of {data!r}"
        assert str(e).startswith(printable(e.field) + ": ")
        thrown["refused"] += 1
    else:
        thrown["accepted"] += 1


def test_every_key_refuses_every_bad_value_by_name():
    """Each drawn value is tried at every key the config has."""
    @settings(max_examples=CONFIG_EXAMPLES // len(PLACES), **FUZZ)
    @given(VALUES)
    def throw(value):
        for section, key in PLACES:
            throw_config(placed(section, key, value))

    throw()
    print(f"\nconfig fuzz (every key): {thrown}")


def test_whole_configs_refuse_every_bad_value_by_name():
    @settings(max_examples=WHOLE_EXAMPLES, **FUZZ)
    @given(configs())
    def throw(data):
        throw_config(data)

    throw()
    print(f"\nconfig fuzz (whole configs): {thrown}")


LITERALS = st.one_of(
    st.sampled_from(["9" * 400, "-" + "9" * 30, "nan", "inf", "-inf", "1e999", "0x7fffffffffffffff", "0", "-5",
                     "99999", "0.01", "true", '"999.1.1.1"', '"\\ud800"', '"\\u0000"', '"١٢٣٤"', "1979-05-27",
                     "07:32:00", "[]", "[1, 2, 3]", "[[1]]", "{}", '{a = 1}', '"hub"', '"emulated"', "'tilt'"]),
    st.integers().map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=12).map(lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'),
)


def test_load_config_answers_any_file_with_a_config_or_one_line(tmp_path):
    numbers = iter(range(10**9))

    def throw_file(text: str) -> None:
        thrown["inputs"] += 1
        path = tmp_path / f"config-{next(numbers)}.toml"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            load_config(path)
        except BadInput as e:
            assert "\n" not in str(e) and str(path) in str(e)
            assert e.field.startswith(f"{path}"), e  # the file first, then the key (or the file alone)
            thrown["refused"] += 1
        else:
            thrown["accepted"] += 1

    @settings(max_examples=FILE_EXAMPLES, **FUZZ)
    @given(st.sampled_from(PLACES), LITERALS, st.binary(max_size=40))
    def throw(place, literal, noise):
        section, key = place
        if section == "timers":
            colour, key = key.split(".")
            section = f"timers.{colour}"
        text = f"[{section}]\n{key} = {literal}\n"
        throw_file(text)
        try:
            parse_config(tomllib.loads(text), None)
        except tomllib.TOMLDecodeError:
            pass
        except BadInput as e:  # a value read: refused under its own key (or one it made needed)
            assert names_its_field(e.field, tomllib.loads(text)), f"{e} does not name {section}.{key}"
        throw_file(noise.decode("latin-1"))

    throw()
    print(f"\nconfig fuzz (files): {thrown}")
