"""The show desk a table hands out is the ShowDesk port and nothing more: the web and the broker's bridge reach
the show through it, and no one reaches through it into the runtime, the journal or the live show."""

from companion.ports import ShowDesk
from companion.table.desk import Desk


def public_names(desk_class, desk=None) -> set[str]:
    names = {name for name in dir(desk_class) if not name.startswith("_")}
    return names | {name for name in vars(desk) if not name.startswith("_")} if desk is not None else names


def port_names(port) -> set[str]:
    return {name for name in (*vars(port), *port.__annotations__) if not name.startswith("_")}


def test_the_show_desk_shows_only_its_port(table):
    assert public_names(Desk, table.desk) == port_names(ShowDesk)


def test_a_part_left_showing_is_found():
    class Showing(Desk):
        def __init__(self):
            self.runtime = None

        @property
        def show_id(self):
            return None

    assert public_names(Showing, Showing()) - port_names(ShowDesk) == {"runtime", "show_id"}
