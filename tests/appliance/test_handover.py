"""The hand-over between the daemon and the root side that installs a release: root takes the file out of the
daemon's folder first, never through a link and never a pipe or a device (the daemon's user could plant either),
and writes its status without following a link planted where it writes. The two units that do it pass
systemd's own check."""

import os
import shutil
import subprocess
import sys

import pytest

from companion.appliance import handover
from companion.appliance.handover import DROP, STATUS, WAITING, ReleaseUpload, hand_over, take, tell, told, versions
from companion.errors import Conflict
from conftest import ROOT

LIMIT = 1000


@pytest.fixture
def state(tmp_path):
    folder = tmp_path / "state"
    (folder / DROP).mkdir(parents=True)
    return folder


def test_a_release_handed_over_is_taken_whole_and_only_once(state, tmp_path):
    whole = state / ".release-upload.whole"
    whole.write_bytes(b"release")
    hand_over(whole, state, "0.2.0-abc")
    assert told(state)["state"] == "waiting" and not whole.exists()
    (tmp_path / "root").mkdir()
    taken = take(state, tmp_path / "root", LIMIT)
    assert taken.read_bytes() == b"release" and not (state / DROP / WAITING).exists()
    assert take(state, tmp_path / "root", LIMIT) is None  # the path unit's next start finds nothing


def test_a_release_handed_over_while_root_takes_the_first_waits_for_the_next_start(state, tmp_path, monkeypatch):
    first = state / ".release-upload.whole"
    first.write_bytes(b"first")
    hand_over(first, state, "0.2.0-abc")
    real_open, landed = os.open, []

    def open_then_land(path, flags, *args, **kw):  # the second upload lands just as root has the first open
        fd = real_open(path, flags, *args, **kw)
        if kw.get("dir_fd") is not None and not landed:
            landed.append(path)
            second = state / ".release-upload.whole"
            second.write_bytes(b"second")
            hand_over(second, state, "0.3.0-def")
        return fd

    monkeypatch.setattr(handover.os, "open", open_then_land)
    (tmp_path / "root").mkdir()
    assert take(state, tmp_path / "root", LIMIT).read_bytes() == b"first" and landed
    monkeypatch.undo()
    assert (state / DROP / WAITING).read_bytes() == b"second"  # the path unit starts the service again for it
    tell(state, "installing", "0.2.0-abc", "switched")  # root's next line, over the second's "waiting"
    assert versions(state, "0.2.0-abc", None)["queued"] is True
    (tmp_path / "root2").mkdir()
    assert take(state, tmp_path / "root2", LIMIT).read_bytes() == b"second"
    assert versions(state, "0.3.0-def", None)["queued"] is False


def test_without_the_update_service_a_release_is_refused_before_a_byte_is_kept(state, tmp_path):
    receiver = ReleaseUpload(state, watch=tmp_path / "companion-update.path")  # not enabled: nothing would take it
    with pytest.raises(Conflict) as refused:
        receiver.receive(b"x" * 10, 1, 3, 30, None)
    assert refused.value.error_code == "errors.update.no_service" and "sudo companion update" in str(refused.value)
    assert list((state / DROP).iterdir()) == [] and not list(state.glob(".release-upload*"))
    assert versions(state, None, None, watch=tmp_path / "companion-update.path")["service"] is False


@pytest.mark.parametrize("planted", ["link", "fifo", "too big", "folder link"])
def test_root_takes_nothing_the_daemons_user_could_plant(state, tmp_path, planted):
    secret = tmp_path / "shadow"
    secret.write_bytes(b"root's own")
    waiting = state / DROP / WAITING
    if planted == "link":
        waiting.symlink_to(secret)
    elif planted == "fifo":
        os.mkfifo(waiting)
    elif planted == "too big":
        waiting.write_bytes(bytes(LIMIT + 1))
    else:
        shutil.rmtree(state / DROP)
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere" / WAITING).write_bytes(b"not through a link")
        (state / DROP).symlink_to(tmp_path / "elsewhere")
    (tmp_path / "root").mkdir()
    if planted == "folder link":
        assert take(state, tmp_path / "root", LIMIT) is None
    else:
        with pytest.raises(ValueError, match="taken away unread"):
            take(state, tmp_path / "root", LIMIT)
        assert not os.path.lexists(waiting)
    assert list((tmp_path / "root").iterdir()) == [] and secret.read_bytes() == b"root's own"


def test_the_status_is_never_written_through_a_planted_link(state, tmp_path):
    target = tmp_path / "passwd"
    target.write_text("root:x:0:0\n")
    (state / DROP / f".{STATUS}.{os.getpid()}").symlink_to(target)  # the scratch name root will use
    (state / DROP / STATUS).symlink_to(target)
    tell(state, "done", "0.2.0-abc", "the update is done")
    assert target.read_text() == "root:x:0:0\n"
    assert not (state / DROP / STATUS).is_symlink() and told(state)["release"] == "0.2.0-abc"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_update_units_pass_systemds_check(tmp_path):
    for name in ("companion-update.path", "companion-update.service"):
        text = (ROOT / "systemd" / name).read_text().replace("/opt/companion/current/bin/companion", sys.executable)
        (tmp_path / name).write_text(text)
    done = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "companion-update.path")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr
