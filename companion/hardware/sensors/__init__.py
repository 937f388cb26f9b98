"""The kinds of sensor source a glass can be read by, each one module of this folder that registers itself.

A kind is what `timers.<colour>.source` names: a tilt pair in a cradle, a
flip button under an LED glass, the serial hub. Its module says everything
the rest of the table needs of it, in one `SensorKind`: its own config
section and that section's reader, how its pins are checked and claimed,
how its sources open on a rig, and how its readings read on the wiring
check, and what the pages show of it (`for_page()`: catalogue codes, and the
settings of its own section the setup page offers, as `PageField`s), with its
words in every language (`words`: the pages' catalogues hold none of them). No
other module of the package, no script, template or catalogue of the pages,
names a kind: adding one is adding one module here, as a Klipper extra is one
file configured by its own section.

>>> [kind.name for kind in kinds()]
['tilt', 'hub', 'emulated']
>>> kind("emulated").physical, kind("hub").physical
(False, True)
"""

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable

from companion.fields import choice


def _nothing(*args) -> None:
    return None


@dataclass(frozen=True)
class PageField:
    """One setting of a kind's own section that the setup page offers: read here, and drawn from here, so its
    limits are written once.

    >>> PageField("gain", "setup.beam_gain", default=1, low=1, high=10).for_page()["max"]
    10
    """

    key: str  # its key in the kind's section
    label: str  # the catalogue code of its label
    default: object = None  # the value when the file has none (None: text, and none needed)
    low: int | None = None  # a whole number's limits (None: the field is text)
    high: int | None = None
    help: str | None = None  # the catalogue code of its help line
    placeholder: str = ""  # an example of a value, written as it is in every language

    @property
    def number(self) -> bool:
        return self.low is not None

    @property
    def sent_as(self) -> type:
        """What the page sends for it before the section's reader judges it."""
        return int if self.number else str

    def read(self, section):
        """Its value in the kind's `section` (a companion.section.Section), checked by the field reader."""
        if self.number:
            return int(section.number(self.key, self.default, self.low, self.high, whole=True))
        return section.text(self.key, self.default)

    def shown(self, settings) -> object:
        """Its value in a kind's settings as read (an object or a mapping; None: the section is absent)."""
        value = settings.get(self.key) if isinstance(settings, dict) else getattr(settings, self.key, None)
        return "" if value is None else value

    def for_page(self) -> dict:
        return {"key": self.key, "label": self.label, "help": self.help, "placeholder": self.placeholder,
                "number": self.number, "min": self.low, "max": self.high}


@dataclass(frozen=True)
class SensorKind:
    """One kind of sensor source, as the config, the rig and the wiring check see it."""

    name: str  # the value of timers.<colour>.source
    rank: int  # where it stands among the choices a page and a refusal list
    physical: bool  # a glass the players turn by hand, read by sensors (else the table turns it on time)
    section: str  # its own config section, and the Config field its reader's value is kept in
    read: Callable  # the section's reader (a companion.section.Section in, its settings out)
    open: Callable  # (rig, colours, sink, clock): opens its sources for those colours into rig.sources
    describe: Callable  # (rig, colour, glass dict): what its sensors read now, for the wiring check
    readout: Callable  # (glass dict) -> (its switches, its state): the terminal's words for one glass
    on_gpio: bool = True  # its pins are the Pi's own, claimed by no one else
    pins_read: int | None = None  # how many of a glass's pins it reads, from the first (None: every one)
    switch_words: tuple[str, str] = ("setup.switch_open", "setup.switch_closed")  # a switch open, closed
    reads_word: str | None = None  # what the wiring check shows in place of a pose, for a kind that reads none
    words: dict = field(default_factory=dict)  # its own words, {language: {catalogue code: text}}
    fields: tuple[PageField, ...] = ()  # the settings of its section the setup page offers
    title: str | None = None  # the catalogue code of the heading of its settings and its status on the setup page
    check_pins: Callable = _nothing  # (colour, pins, single_switch): refuses pins it cannot use
    check_config: Callable = _nothing  # (config, colours): refuses a config its colours cannot run on
    status: Callable | None = None  # (rig) -> what the page's wiring check shows of it as a whole, or None

    @property
    def label(self) -> str:
        """The code of its name in the page's catalogue."""
        return f"setup.source.{self.name}"

    def shown_pins(self, timer) -> tuple[int, ...]:
        """The pins of `timer` that are wired, as a page shows them."""
        return tuple(timer.pins[:self.pins_read])

    def for_page(self) -> dict:
        """What a page shows of it: its name and words (catalogue codes), whether it is a glass turned by hand,
        its section, how many of a glass's pins it reads, the settings of its own the setup page offers.

        >>> kind("emulated").for_page()["reads_word"], kind("tilt").for_page()["pins_read"]
        ('setup.button', None)
        """
        return {"name": self.name, "label": self.label, "physical": self.physical, "section": self.section,
                "pins_read": self.pins_read, "switch_words": list(self.switch_words), "reads_word": self.reads_word,
                "title": self.title, "fields": [f.for_page() for f in self.fields],
                "status": self.status is not None}

    def page_words(self) -> tuple[str, ...]:
        """Every catalogue code that is this kind's own (its words, in English: every language has the same)."""
        return tuple(self.words.get("en", {}))

    def page_settings(self, config) -> dict:
        """Its section's settings the setup page offers, as they are in `config` ({} if it offers none)."""
        settings = settings_of(config, self)
        return {f.key: f.shown(settings) for f in self.fields}


_KINDS: dict[str, SensorKind] = {}
_all_found = False  # every module of this folder was imported


def register(kind: SensorKind) -> SensorKind:
    """Add a kind (each module of this folder calls it once, as it is imported)."""
    _KINDS[kind.name] = kind
    return kind


def kinds() -> list[SensorKind]:
    """Every kind, in the order a page offers them."""
    global _all_found
    if not _all_found:  # every module of this folder, once (one imported directly first registers only itself)
        for module in pkgutil.iter_modules(__path__, __name__ + "."):
            importlib.import_module(module.name)
        _all_found = True
    return sorted(_KINDS.values(), key=lambda k: k.rank)


def names() -> tuple[str, ...]:
    return tuple(k.name for k in kinds())


def kind(name: str) -> SensorKind:
    """The kind called `name` (a config's timers were checked against `names()`, so it is there)."""
    return _KINDS[choice(name, "source", names())]


def physical(timer) -> bool:
    """Whether a timer's glass is real and read by sensors (not turned by the table)."""
    return kind(timer.source).physical


def settings_of(config, kind: SensorKind):
    """A kind's settings as its section was read (a Config has the first kinds' as fields of their own)."""
    return getattr(config, kind.section) if hasattr(config, kind.section) else config.sensor_sections.get(kind.section)


def pose_words(glass: dict) -> str:
    """A settled glass as the terminal's wiring check says it: its pose, and its fault if it has one."""
    return f"pose {glass['pose']:<5}" + (f"  FAULT: {glass['fault']}" if glass["fault"] else "")


def words() -> dict[str, dict[str, str]]:
    """Every kind's words, {language: {catalogue code: text}}: what the pages' catalogues leave to the kinds."""
    found: dict[str, dict[str, str]] = {}
    for k in kinds():
        for lang, texts in k.words.items():
            found.setdefault(lang, {}).update(texts)
    return found


def page_keys() -> dict[str, dict[str, type]]:
    """The settings of their own sections the kinds let the setup page change: {section: {key: type}}."""
    return {k.section: {f.key: f.sent_as for f in k.fields} for k in kinds() if k.fields}


def sensor_settings(sections) -> dict:
    """Each kind's own section, read by its reader: {section: its settings} (a config.Sections in)."""
    return {k.section: sections.owned(k.section, k.read) for k in kinds()}
