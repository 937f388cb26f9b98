"""Settings from the setup page: written through the config's checks, applied to a running table in place."""

import os
import stat
import tomllib


import pytest

from companion.clock import FakeClock
from companion.config import load_config, load_or_fresh, mark_set_up, write_settings
from companion.errors import BadInput, Conflict
from companion.hardware.mock import Hands, mock_pin_factory
from companion.records import Store
from companion.table import Table
from companion.table.firstrun import ALPHABET, CODE_LENGTH, FirstRun
from companion.table.fitted import FromRig


def test_a_missing_file_is_written_from_the_defaults(tmp_path):
    config = load_or_fresh(tmp_path / "config.toml")
    assert config.path == tmp_path / "config.toml" and not config.set_up
    written = write_settings(config, {"table": {"name": "Den"}, "timers": {"purple": {"source": "emulated"}}})
    assert tomllib.loads(config.path.read_text()) == {"table": {"name": "Den"}, "timers": {"purple": {"source": "emulated"}}}
    assert written.name == "Den" and written.timers["purple"].source == "emulated"


def test_keys_the_page_does_not_know_are_kept(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[tilt]\nsettle_ms = 120  # our switches are slow\n\n[mqtt]\nurl = "mqtt://a:1883"\n'
                    'username = "t3"\n\n[timers.red]\nsingle_switch = true\npins = [4]\n')
    os.chmod(path, 0o640)
    write_settings(load_config(path), {"mqtt": {"url": "mqtt://b:1883"}, "timers": {"red": {"pins": [5]}}})
    text = path.read_text()
    assert "settle_ms = 120  # our switches are slow" in text
    assert tomllib.loads(text)["mqtt"] == {"url": "mqtt://b:1883", "username": "t3"}
    assert tomllib.loads(text)["timers"]["red"] == {"single_switch": True, "pins": [5]}
    assert path.stat().st_mode & 0o777 == 0o640  # the daemon's file stays as readable as it was
    assert "mqtt" not in tomllib.loads(write_settings(load_config(path), {"mqtt": {"url": ""}}).path.read_text())


def test_a_dry_run_checks_and_writes_nothing(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("# mine\n")
    checked = write_settings(load_or_fresh(path), {"table": {"name": "Den"}}, dry_run=True)
    assert checked.name == "Den" and path.read_text() == "# mine\n"
    with pytest.raises(BadInput, match=r"^table.name: longer than 40 characters"):
        write_settings(load_or_fresh(path), {"table": {"name": "x" * 41}})


def test_set_up_is_recorded_and_opens_again(tmp_path):
    config = load_or_fresh(tmp_path / "config.toml")
    assert mark_set_up(config, True).set_up and not mark_set_up(config, False).set_up


def test_the_setup_code_is_long_from_a_large_alphabet_and_reopens_when_the_file_says_so(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[table]\nset_up = true\n")
    said = []
    door = FirstRun(True, path=path, say=said.append)
    assert door.code is None and not door.accepts("")
    path.write_text("[table]\nset_up = false\n")
    code = door.code
    assert len(code) == CODE_LENGTH >= 8 and set(code) <= set(ALPHABET) and len(ALPHABET) >= 30
    assert said and code[:5] in said[0]


def test_the_setup_code_outlives_a_restart_and_its_files_go_when_setup_is_done(tmp_path):
    """A table restarted (power cut, update) before setup is done keeps its code: the one on the card still works."""
    kept, shown = tmp_path / "setup-code", tmp_path / "boot" / "companion-setup-code.txt"
    shown.parent.mkdir()
    first = FirstRun(False, kept=kept, shown=shown, say=lambda line: None)
    again = FirstRun(False, kept=kept, shown=shown, say=lambda line: None)
    assert again.code == first.code and shown.read_text().strip() == first.code
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    again.close()
    assert not kept.exists() and not shown.exists()
    assert FirstRun(False, kept=kept, say=lambda line: None).code != first.code  # a new setup, a new code


def test_a_config_names_the_owners_copy_of_the_setup_code(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[table]\nsetup_code_file = "%s"\ndatabase = "%s"\n' % (tmp_path / "code.txt", tmp_path / "db"))
    table = Table(load_or_fresh(config), Store(tmp_path / "db"), mock_pin_factory(), clock=FakeClock())
    try:
        assert (tmp_path / "code.txt").read_text().strip() == table.first_run.code
        table.setup.change_settings({"web": {"pin": "97531"}})
        table.setup.finish_setup()
        assert not (tmp_path / "code.txt").exists()
    finally:
        table.stop()


@pytest.fixture
def table(tmp_path):
    config = load_or_fresh(tmp_path / "config.toml")
    table = Table(config, Store(tmp_path / "db.sqlite3"), mock_pin_factory(), clock=FakeClock())
    yield table
    table.stop()


def test_new_settings_rebuild_the_hardware_and_drop_the_old_rigs_items(table):
    old = table.rig
    table.setup.change_settings({"timers": {"red": {"source": "emulated", "pins": [4]}}})
    assert table.rig is not old and "red" in table.rig.buttons and "red" not in table.rig.tilts
    table.runtime.put(FromRig(table.fitted.generation - 1, object()))  # from a closed device: ignored, not a crash
    table.pump()
    Hands(table).set("orange", "a_up")
    assert table.rig.tilts["orange"].pose.value == "a_up"


def test_settings_wait_for_the_show_to_end(table):
    table.setup.change_settings({"timers": {c: {"source": "emulated"} for c in ("red", "orange", "yellow", "green", "blue")}})
    table.desk.start_show("training")
    with pytest.raises(Conflict, match="a show is running"):
        table.setup.change_settings({"table": {"name": "Den"}})
    assert "Den" not in table.configured.now.path.read_text()


def test_a_neck_beam_ends_each_run_of_a_timed_glass():
    from companion.hardware.source import BeamChange, PoseChange
    from companion.skyrockets import Pose
    from companion.table.wiring import Timing

    timing = Timing("red", runs=1, upright=Pose.A_UP)
    assert timing.see(PoseChange("red", Pose.B_UP, 0.0)) is None
    assert timing.see(BeamChange("red", False, 30.2)) == pytest.approx(30.2)  # the top ran dry: the run ends here
    assert timing.see(PoseChange("red", Pose.A_UP, 33.0)) is None  # the turn after it starts the next run
    assert timing.see(BeamChange("blue", False, 50.0)) is None
    assert timing.see(BeamChange("red", False, 64.0)) == pytest.approx(31.0)
    assert timing.done and timing.status()["median"] == {"a_up": 31.0, "b_up": 30.2}


def test_settings_saved_again_on_a_table_with_a_buzzer_keep_its_pin(tmp_path):
    """Refitting released every pin but the buzzer's: a second Save failed with 'GPIO19 is already in use'."""
    config = tmp_path / "config.toml"
    config.write_text(f'[table]\ndatabase = "{tmp_path / "db"}"\n[buzzer]\nenabled = true\n')
    table = Table(load_or_fresh(config), Store(tmp_path / "db"), mock_pin_factory(), clock=FakeClock())
    try:
        table.setup.change_settings({"table": {"name": "Once"}})
        table.setup.change_settings({"table": {"name": "Twice"}})
        assert table.configured.now.name == "Twice" and table.configured.now.buzzer.enabled
    finally:
        table.stop()
