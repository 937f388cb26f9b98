"""A config the user may not look at (`/etc/companion/` for the Pi's own user) is refused in one line."""

from pathlib import Path

import pytest

from companion import config
from companion.errors import BadInput


class Locked(type(Path())):
    """A path whose folder the user may not enter: every look at it is refused, as the kernel refuses it."""

    def stat(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    def read_text(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))


@pytest.fixture
def locked(monkeypatch):
    path = Locked("/etc/companion/config.toml")
    monkeypatch.setattr(config, "DEFAULT_PATH", path)
    return path


@pytest.mark.parametrize("load", [config.load_config, config.load_or_fresh])
def test_an_unreadable_default_config_is_refused_naming_it(locked, load):
    with pytest.raises(BadInput) as e:
        load(None)
    assert str(e.value).startswith(f"{locked}: cannot read it (Permission denied)")


@pytest.mark.parametrize("args", [["setup"], ["setup", "--reopen"], ["check-hw", "--mock", "--once"],
                                  ["calibrate", "red", "--mock"], ["run", "--mock"]])
def test_commands_on_an_unreadable_default_config_say_so_in_one_line(locked, capsys, args):
    from companion.cli import main

    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"companion {args[0]}: {locked}: cannot read it (Permission denied): run it as the table's "
                   "user or with sudo"]
