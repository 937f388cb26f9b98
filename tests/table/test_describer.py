"""The table's snapshots: the parts that read as they did are the very objects of the last snapshot. (That nothing
kept is ever stale: test_publisher.py plays shows and compares each state with the table described afresh.)"""

from companion.clock import FakeClock
from companion.hardware.source import Fault
from companion.skyrockets import COLOURS
from companion.table import demo_table
from companion.table.describer import Describer
from tabletop import tilt_table


def test_a_flip_hands_out_every_part_it_did_not_change_as_the_object_it_was(tmp_path):
    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock())  # time stands: only the flip changes a glass
    try:
        table.desk.start_show("training")
        before = table.desk.snapshot()
        after = table.desk.flip("red")
        assert after["timers"]["red"] is not before["timers"]["red"]
        for colour in COLOURS:
            if colour != "red":
                assert after["timers"][colour] is before["timers"][colour], colour
        for part in ("event", "sensors"):
            assert after[part] is before[part], part
    finally:
        table.stop()


def test_a_new_fault_with_the_same_words_is_not_taken_for_the_old_one(tmp_path):
    # A fault's words may repeat with another code (or values): the page reads the code, so it must change too.
    table = tilt_table(tmp_path)
    try:
        table.desk.start_show("training")
        cradle, describe = table.fitted.cradles["red"], Describer()

        def seen() -> dict:
            return describe(table.desk.show, table.desk.show_id, 0.0, table.fitted.cradles, table.configured.now, {})

        cradle.sensor_fault = Fault("the sensor is odd", "faults.one")
        first = seen()
        cradle.sensor_fault = Fault("the sensor is odd", "faults.two")
        second = seen()
        assert first["timers"]["red"]["fault_code"] == first["sensors"]["red"]["fault_code"] == "faults.one"
        assert second["timers"]["red"]["fault_code"] == second["sensors"]["red"]["fault_code"] == "faults.two"
    finally:
        table.stop()
