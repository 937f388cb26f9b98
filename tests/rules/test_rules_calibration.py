"""Calibration per direction: measured both ways, kept in the config, used the way the sand flows."""

import json

import pytest

from companion.calibration import CALIBRATION_BAND, Calibration, check_calibrated
from companion.clock import FakeClock
from companion.config import Config, TiltConfig, default_timers, load_config, set_duration
from companion.errors import BadInput
from companion.hardware.mock import Hands, mock_pin_factory
from companion.hardware.source import ButtonAction, PoseChange
from companion.skyrockets import Pose, TRAINING, replay
from companion.records import Store
from companion.table import Table, show_setup
from companion.web import create_app
from conftest import as_owner

PIN = {"X-Table-Pin": "1234"}


def test_runs_are_timed_in_the_direction_the_glass_stood():
    c = Calibration(runs=2)
    turns = [(0.0, "a_up"), (30.2, "b_up"), (31.0, "a_up"), (62.1, "a_up"), (92.5, "b_up"), (124.5, "a_up")]
    runs = [c.turned(t, pose) for t, pose in turns]
    assert runs == [None, 30.2, None, pytest.approx(31.9), pytest.approx(30.4), pytest.approx(32.0)]
    assert c.done and c.result() == (pytest.approx(30.3), pytest.approx(31.95))


def test_a_sensor_turn_names_its_pose_and_a_button_press_does_not():
    from companion.cli.wiring import turn_of

    assert turn_of(PoseChange("red", Pose.B_UP, 3.0), "red", Pose.A_UP) == ("b_up", Pose.B_UP)
    assert turn_of(PoseChange("red", Pose.A_UP, 3.0), "red", Pose.A_UP) == (None, Pose.A_UP)  # put back as it was
    assert turn_of(PoseChange("red", Pose.SIDE, 3.0), "red", Pose.A_UP) == (None, Pose.A_UP)
    assert turn_of(ButtonAction("red", "flip", 3.0), "red", None) == ("", None)
    assert turn_of(ButtonAction("blue", "flip", 3.0), "red", None) == (None, None)


def test_a_calibration_far_from_nominal_is_refused_with_the_reason():
    assert check_calibrated(30 * (1 + CALIBRATION_BAND), 30.0, "seconds") == 37.5
    with pytest.raises(BadInput, match=r"seconds: 100 s is not a 30 s glass \(a calibration lies within 22.5-37.5 s\)"):
        check_calibrated(100.0, 30.0, "seconds")
    config = Config(timers=default_timers("tilt"))
    with pytest.raises(BadInput, match="seconds.b_up: 50 s is not a 30 s glass"):
        set_duration(config, "red", {"a_up": 30.0, "b_up": 50.0})


def test_both_directions_are_kept_in_the_config_file_and_read_back(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("# my table\n[timers.red]\nsource = \"tilt\"\n", encoding="utf-8")
    config = set_duration(load_config(path), "red", (30.214, 31.5))
    assert config.durations() == {"red": (30.21, 31.5)}
    assert "# my table" in path.read_text(encoding="utf-8")
    again = load_config(path)
    assert again.timers["red"].directions == (30.21, 31.5) and again.durations() == {"red": (30.21, 31.5)}
    set_duration(again, "red", 30.4)  # one figure for both ways: the old form
    assert load_config(path).durations() == {"red": 30.4}


@pytest.mark.parametrize("toml, message", [
    ("[timers.red]\nduration = 95\n", "timers.red.duration: 95 s is not a 30 s glass"),
    ("[timers.red]\nduration = {a_up = 30, b_up = 60}\n", "timers.red.duration.b_up: 60 s is not a 30 s glass"),
    ("[timers.red]\nduration = {a_up = 30}\n", "timers.red.duration.b_up: missing"),
    ("[timers.red]\nduration = {a_up = 30, b_up = 31, c_up = 2}\n", "timers.red.duration.c_up: unknown field"),
    ("[nominal]\npurple = 90\n[timers.purple]\nduration = 60\n", "timers.purple.duration: 60 s is not a 90 s glass"),
])
def test_a_config_calibration_is_checked_where_it_is_read(tmp_path, toml, message):
    path = tmp_path / "config.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(BadInput, match=message.replace("(", r"\(")):
        load_config(path)


def test_the_model_maps_a_cradles_ends_onto_its_bulbs():
    config = Config(timers=default_timers("tilt"))
    config = set_duration(set_duration(config, "red", (30.0, 33.0)), "green", (58.0, 62.0))
    as_set = show_setup(config, TRAINING, False, {"red": True, "green": None})
    assert as_set.directions("red") == (33.0, 30.0)  # stood B end up at the start: the model's A is the cradle's B
    assert as_set.directions("green") == (60.0, 60.0)  # lying: which end will be up is not known yet
    assert show_setup(config, TRAINING, False, {"red": False}).directions("red") == (30.0, 33.0)


def test_a_physical_show_runs_each_way_at_its_own_rate_and_replays_the_same(tmp_path):
    config = Config(database=tmp_path / "t.sqlite3", timers=default_timers("tilt"),
                    tilt=TiltConfig(start_window_s=5.0))
    config = set_duration(config, "red", (30.0, 36.0))
    table = Table(config, Store(config.database), mock_pin_factory(), clock=FakeClock(), pin="1234")
    try:
        hands = Hands(table)
        for colour in ("red", "orange", "yellow", "purple"):
            hands.set(colour, "a_up")
        table.desk.start_show("training")
        setup = json.loads(table.ledger.show_log(table.live.show_id)[0])
        assert setup["durations"]["red"] == {"a_up": 30.0, "b_up": 36.0} and setup["durations"]["orange"] == 40.0
        hands.wait(15.0)
        hands.turn("red")  # the sand that ran A up, on top now, runs 36/30 times as long B up
        turned = json.loads(table.ledger.show_log(table.live.show_id)[-1])
        assert turned["type"] == "pose" and turned["pose"] == "b_up" and 15 < turned["t"] < 15.2
        t = table.desk.show_time()
        assert table.desk.current()["timers"]["red"]["top_s"] == pytest.approx(turned["t"] * 1.2 - (t - turned["t"]),
                                                                          abs=0.002)
        lines = table.ledger.show_log(table.live.show_id) + [json.dumps({"t": t, "type": "end"})]
        assert replay(lines).result()["timers"]["red"] == {k: table.desk.current()["timers"]["red"][k]
                                                          for k in ("pose", "top_s", "state")}
    finally:
        table.stop()


def test_the_api_stores_both_directions_and_refuses_a_wrong_glass(table):
    client = create_app(table, testing=True).test_client()
    as_owner(client, table)  # a glass's duration is kept in the config: the owner's
    both = client.post("/api/calibration", json={"timer": "red", "seconds": {"a_up": 30.5, "b_up": 31.25}},
                       headers=PIN)
    assert both.status_code == 200 and both.json == {"timer": "red", "duration": {"a_up": 30.5, "b_up": 31.25}}
    wrong = client.post("/api/calibration", json={"timer": "red", "seconds": 100}, headers=PIN)
    assert wrong.status_code == 400 and wrong.json["field"] == "seconds"
    assert "not a 30 s glass" in wrong.json["error"]
