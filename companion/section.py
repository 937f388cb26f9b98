"""One [table] of a TOML config file, read by the part of the table that owns it.

Typed getters name the key in every refusal, and `done()` refuses keys
nobody asked for, so a typo never passes silently. It sits below the config
and every section's owner (hardware, MQTT), which receive it and import
nothing back.

>>> section = Section({"port": 8000}, "web")
>>> section.number("port", 80, 1, 65535, whole=True)
8000
>>> Section({"prot": 1}, "web").done()
Traceback (most recent call last):
companion.errors.BadInput: web.prot: unknown key
"""

from companion import fields
from companion.errors import BadInput
from companion.hardware.pins import GPIO_NUMBERS, PIN_LIST
from companion.skyrockets.colours import check_seconds


class Section:
    """One [table] of the file: typed getters that name the key, and a check for unknown keys."""

    def __init__(self, data: object, name: str):
        self.data = fields.mapping(data, name, expected=f"a [{name}] table")
        self.name, self.used = name, set()

    def _key(self, key: str) -> str:
        key = key or '""'  # an empty key (TOML allows one) is still named
        return f"{self.name}.{key}" if self.name else key

    def keys(self):
        return list(self.data)

    def _get(self, key: str, default):
        self.used.add(key)
        return self.data.get(key, default)

    def section(self, key: str) -> "Section":
        return Section(self._get(key, {}), self._key(key))

    def owned(self, key: str, read):
        """The section `key`, read by its owner's `read(section)`; keys its owner did not ask for are refused."""
        section = self.section(key)
        value = read(section)
        section.done()
        return value

    def value(self, key: str, default):
        """The raw value of `key`, for an owner that checks it with its own rule."""
        return self._get(key, default)

    def text(self, key: str, default):
        value = self._get(key, default)
        return None if value is None else fields.text(value, self._key(key), expected="text in quotes")

    def boolean(self, key: str, default: bool) -> bool:
        return fields.yes_no(self._get(key, default), self._key(key))

    def choice(self, key: str, options: tuple[str, ...], default: str) -> str:
        value = self._get(key, default)
        if value not in options:
            raise BadInput(self._key(key), f"{value!r} is not one of {', '.join(options)}", code="errors.choice")
        return value

    def seconds(self, key: str, default, *, positive: bool = False, limit: float = 3600.0):
        value = self._get(key, default)
        return None if value is None else check_seconds(value, self._key(key), positive=positive, limit=limit)

    def number(self, key: str, default, low: float, high: float, *, whole: bool = False) -> float:
        value = self._get(key, default)
        if whole:
            return fields.whole(value, self._key(key), low, high)
        fields.real(value, self._key(key), low, high)
        return value  # as written: a whole number stays one

    def pins(self, key: str, default: tuple[int, ...], *, single: bool = False) -> tuple[int, ...]:
        value = self._get(key, list(default))
        values = [value] if single and not isinstance(value, list) else value
        fields.items(values, self._key(key), 1, 1 if single else 2, expected="a GPIO number" if single else PIN_LIST,
                     code="errors.setup.pins")
        for pin in values:
            fields.whole(pin, self._key(key), 0, max(GPIO_NUMBERS) * 2)  # a number first; then a GPIO there is
            if pin not in GPIO_NUMBERS:
                raise BadInput(self._key(key), f"GPIO {pin} does not exist (valid 2-27)",
                               code="errors.setup.no_gpio", params={"pin": pin})
        if len(set(values)) != len(values):
            raise BadInput(self._key(key), f"GPIO {values[0]} is listed twice",
                           code="errors.setup.pin_twice", params={"pin": values[0]})
        return tuple(values)

    def done(self) -> None:
        """Refuse keys nobody asked for: a typo must not pass silently."""
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise BadInput(self._key(unknown[0]), "unknown key", code="errors.unknown_field")
