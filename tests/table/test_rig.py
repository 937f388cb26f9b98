"""The rig as the runtime sees it: raw items in, changes out, and when to look again."""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.config import parse_config
from companion.hardware.debounce import earliest
from companion.hardware.mock import mock_pin_factory
from companion.hardware.pins import RawEdge
from companion.table.rig import Rig

CONFIG = {"timers": {"green": {"source": "emulated"}, "blue": {"source": "emulated"}}}  # four tilt pairs, two buttons

edges = st.tuples(st.sampled_from(["red", "orange", "yellow", "purple", "green", "blue"]),
                  st.integers(0, 1), st.booleans())
steps = st.lists(st.tuples(st.floats(0, 0.2), st.none() | edges), max_size=60)  # after a pause: an edge, or a look


@settings(max_examples=40)  # a rig opens its pins: a few dozen shows of edges are plenty
@given(steps)
def test_the_rig_tells_what_its_sources_would_tell_however_often_it_is_asked(played):
    """The rig keeps its sources' next instant between items rather than asking six sources at every command;
    what it says must be what the sources themselves say, asked every time."""
    rig = Rig(parse_config(CONFIG, None), mock_pin_factory(), lambda item: None, lambda: 0.0)
    try:
        sources = {name: copy.deepcopy(source.logic) for name, source in rig.sources.items()}
        t = 0.0
        for pause, edge in played:
            t += pause
            if edge is None:
                expected = sorted((c for s in sources.values() for c in s.update(t)), key=lambda c: c.t)
                assert rig.update(t) == expected
            else:
                name, switch, closed = edge
                item = RawEdge(name, switch if name in rig.tilts else 0, closed, t)
                rig.take(item)
                sources[name].take(item)
            assert rig.next_due() == earliest(*(s.next_due() for s in sources.values()))
    finally:
        rig.close()
