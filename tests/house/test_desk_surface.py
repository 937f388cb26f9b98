"""Each desk a table hands out is its port and nothing more: the show desk the ShowDesk port (the web and the
broker's bridge reach the show through it, and no one reaches through it into the runtime, the journal or the
live show), the setup desk the SetupDesk port (no one reaches through it into the first-run door, the glass
being timed or the program's listeners)."""

import pytest

from companion.ports import SetupDesk, ShowDesk
from companion.table.desk import Desk
from companion.table.setting import TableSetup


def public_names(desk_class, desk=None) -> set[str]:
    names = {name for name in dir(desk_class) if not name.startswith("_")}
    return names | {name for name in vars(desk) if not name.startswith("_")} if desk is not None else names


def port_names(port) -> set[str]:
    return {name for name in (*vars(port), *port.__annotations__) if not name.startswith("_")}


@pytest.mark.parametrize(("part", "desk_class", "port"), [("desk", Desk, ShowDesk), ("setup", TableSetup, SetupDesk)],
                         ids=["show", "setup"])
def test_each_desk_shows_only_its_port(table, part, desk_class, port):
    assert public_names(desk_class, getattr(table, part)) == port_names(port)


def test_a_part_left_showing_is_found():
    class Showing(Desk):
        def __init__(self):
            self.runtime = None

        @property
        def show_id(self):
            return None

    assert public_names(Showing, Showing()) - port_names(ShowDesk) == {"runtime", "show_id"}
