"""The releases' one recipe (companion.release), as install.sh and `companion update` both run it: a checkout's
digest agrees with sha256sum's over the files found with their links followed (the firmware and the pin map
are links), with and without such a link; the links and the pruning keep current and previous alone."""

import os
import subprocess
import sys

import pytest

from companion import release
from conftest import ROOT

# The digest as coreutils give it, a floor of the test's own sharing no code with the program.
COREUTILS = ("find -L pyproject.toml companion -type f ! -name '*.pyc' -exec sha256sum {} + | LC_ALL=C sort "
             "| sha256sum | cut -c1-12")


def checkout(tmp_path, *, link: bool):
    source = tmp_path / "checkout"
    (source / "companion" / "data").mkdir(parents=True)
    (source / "firmware").mkdir()
    (source / "pyproject.toml").write_text('[project]\nname = "companion"\nversion = "0.1.0"\n')
    (source / "companion" / "a.py").write_text("A = 1\n")
    (source / "companion" / "a.cpython-311.pyc").write_bytes(b"\0")
    (source / "firmware" / "code.py").write_text("print('board')\n")
    if link:
        (source / "companion" / "data" / "firmware").symlink_to("../../firmware")
    return source


def coreutils(source) -> str:
    return subprocess.run(["sh", "-c", COREUTILS], cwd=source, capture_output=True, text=True, timeout=60,
                          check=True).stdout.strip()


def as_install_sh_runs_it(source) -> str:
    return subprocess.run([sys.executable, str(ROOT / "companion" / "release.py"), "digest", str(source)],
                          capture_output=True, text=True, timeout=60, check=True).stdout.strip()


@pytest.mark.parametrize("link", [True, False], ids=["with the firmware link", "without it"])
def test_the_digest_is_one_for_install_sh_companion_update_and_coreutils(tmp_path, link):
    source = checkout(tmp_path, link=link)
    assert release.source_digest(source) == as_install_sh_runs_it(source) == coreutils(source)


def test_the_link_is_part_of_the_digest_and_so_is_the_real_checkout():
    assert release.source_digest(ROOT) == coreutils(ROOT)


def test_install_sh_asks_the_recipe_for_the_digest_the_links_and_the_pruning():
    script = (ROOT / "systemd" / "install.sh").read_text()
    for step in ("release_step digest", "release_step make", "release_step point", "release_step prune"):
        assert step in script
    assert "sha256sum" not in script and "ln -sfn" not in script  # no second recipe


def test_links_point_in_one_step_and_pruning_keeps_current_and_previous(tmp_path):
    for name in ("0.1.0-aaa", "0.2.0-bbb", "0.3.0-ccc"):
        (tmp_path / "releases" / name).mkdir(parents=True)
    release.point(tmp_path, "current", "0.3.0-ccc")
    release.point(tmp_path, "previous", "0.1.0-aaa")
    assert os.readlink(tmp_path / "current") == "releases/0.3.0-ccc"
    assert release.prune(tmp_path) == ["0.2.0-bbb"]
    assert sorted(p.name for p in (tmp_path / "releases").iterdir()) == ["0.1.0-aaa", "0.3.0-ccc"]
    assert not (tmp_path / "current.new").exists()


def test_a_step_that_hangs_is_stopped_at_its_time_limit():
    with pytest.raises(release.ReleaseError, match="took longer than 0.2 s"):
        release.run(sys.executable, "-c", "import time; time.sleep(30)", timeout=0.2)


def test_a_failed_step_says_pips_reason_in_one_line():
    with pytest.raises(release.ReleaseError) as caught:
        release.run(sys.executable, "-c", "import sys; print('ERROR: the hashes do not match', file=sys.stderr);"
                    " print('    Got abc', file=sys.stderr); sys.exit(1)", timeout=60)
    assert str(caught.value).endswith("failed: ERROR: the hashes do not match")
