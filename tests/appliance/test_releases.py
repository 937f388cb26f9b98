"""install.sh's releases, run into a temporary root: each version a complete environment of its own beside the
others, `current` and `previous` links, a module deleted from the checkout gone after the next install, the
checkout left as it was, an install of the old single-environment layout moved over, and an install from a
wheelhouse with hashes (the image's way)."""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, need

SCRIPT = ROOT / "systemd" / "install.sh"
HOME = "opt/companion"
TOOLS = ("systemd-sysusers", "systemctl")
# Each install makes a whole environment: a minute on a busy machine, so these are of the whole-system group.
pytestmark = [pytest.mark.system, pytest.mark.timeout(900)]
CHECKOUT_PARTS = ("pyproject.toml", "README.md", "companion", "systemd", "docs")


def run(root, source, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    # No network for pip: the program alone (its libraries are not needed to check the layout).
    env = {**os.environ, "PIP_NO_DEPS": "1", **(env or {})}
    return subprocess.run(["sh", str(source / "systemd" / "install.sh"), "--root", str(root), "--source",
                           str(source), *args], capture_output=True, text=True, timeout=600, env=env)


def checkout_copy(folder):
    """A checkout of the project of its own, which a test may change (the real one is shared by every test)."""
    folder.mkdir()
    for part in CHECKOUT_PARTS:
        if (ROOT / part).is_dir():
            shutil.copytree(ROOT / part, folder / part, ignore=shutil.ignore_patterns(
                "__pycache__", "*.egg-info", ".hypothesis"))
        else:
            shutil.copy2(ROOT / part, folder / part)
    return folder


def listing(folder) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def program(root, *code: str) -> subprocess.CompletedProcess:
    """Python code run by the installed program's own interpreter (the current release's)."""
    home = root / HOME
    python = home / "current" / "bin" / "python"
    if not python.exists():
        python = home / "bin" / "python"  # the single environment of before releases
    return subprocess.run([str(python), "-c", "\n".join(code)], capture_output=True, text=True, timeout=60, cwd="/")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    need(*TOOLS)
    base = tmp_path_factory.mktemp("releases")
    source = checkout_copy(base / "checkout")
    root = base / "root"
    root.mkdir()
    before = listing(source)
    done = run(root, source)
    assert done.returncode == 0, done.stderr
    return root, source, before, done


def test_a_release_is_a_complete_environment_that_current_points_at(installed):
    root, _, _, done = installed
    home = root / HOME
    current = os.readlink(home / "current")
    assert current.startswith("releases/0.1.0-") and not os.path.isabs(current)
    assert sorted(p.name for p in home.iterdir()) == ["current", "releases"]  # no previous before a second one
    release = home / current
    assert "include-system-site-packages = true" in (release / "pyvenv.cfg").read_text()
    assert (release / "companion-release").read_text().strip() == current.split("/")[1]
    where = program(root, "import companion; print(companion.__file__)")
    assert os.path.realpath(where.stdout.strip()).startswith(str(release)), where.stderr


def test_companion_update_names_a_checkouts_release_as_the_install_does(installed):
    from companion.release import source_digest

    root, source, _, _ = installed
    assert os.readlink(root / HOME / "current") == f"releases/0.1.0-{source_digest(source)}"


def test_the_scripts_pass_shellcheck():
    need("shellcheck")
    done = subprocess.run(["shellcheck", str(SCRIPT), str(ROOT / "systemd" / "companion-command")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout


def test_the_unit_runs_the_current_release(installed):
    root, _, _, _ = installed
    unit = (root / "etc/systemd/system/companion.service").read_text()
    assert "ExecStart=/opt/companion/current/bin/companion run --config /etc/companion/config.toml" in unit


def test_the_checkout_is_left_as_it_was(installed):
    _, source, before, _ = installed
    assert listing(source) == before  # no build/, no egg-info, nothing else
    assert not (source / "build").exists() and not list(source.glob("*.egg-info"))


def test_the_companion_command_is_on_the_path(installed):
    root, _, _, _ = installed
    wrapper = root / "usr/local/bin/companion"
    assert wrapper.read_bytes() == (ROOT / "systemd" / "companion-command").read_bytes()
    assert os.stat(wrapper).st_mode & 0o777 == 0o755
    # `companion check-hw` goes to the table's own folder before the service has ever run (systemd makes it too)
    state = root / "var/lib/companion"
    assert state.is_dir() and os.stat(state).st_mode & 0o777 == 0o750


@pytest.fixture
def fresh(tmp_path):
    """A root and a checkout of this test's own."""
    need(*TOOLS)
    root = tmp_path / "root"
    root.mkdir()
    return root, checkout_copy(tmp_path / "checkout")


def test_updates_from_a_changing_checkout(installed, tmp_path):
    """One table's life: the same checkout again, a module added, then deleted, then another change; a run
    stopped half way. (In one test: each install makes a whole environment.)"""
    first_root, first_source, _, _ = installed
    root, source = tmp_path / "root", tmp_path / "checkout"
    for shadow in first_root.glob("etc/*shadow"):
        shadow.chmod(0o600)
    # All but the program: a release's environment names its own folder, so this root makes its own.
    shutil.copytree(first_root, root, symlinks=True,
                    ignore=lambda folder, names: ["companion"] if Path(folder) == first_root / "opt" else [])
    shutil.copytree(first_source, source)
    home = root / HOME
    assert run(root, source).returncode == 0
    first = os.readlink(home / "current")

    again = run(root, source)
    assert again.returncode == 0 and "the program in /opt/companion/current is up to date" in again.stdout

    (source / "companion" / "extra.py").write_text("WHAT = 'a module of this version'\n")
    added = run(root, source)
    assert added.returncode == 0, added.stderr
    second = os.readlink(home / "current")
    assert second != first and os.readlink(home / "previous") == first
    assert program(root, "import companion.extra").returncode == 0

    (source / "companion" / "extra.py").unlink()
    deleted = run(root, source)
    assert deleted.returncode == 0, deleted.stderr
    gone = program(root, "import companion.extra")
    assert "ModuleNotFoundError" in gone.stderr, "a module deleted from the checkout is still installed"
    assert (os.readlink(home / "current"), os.readlink(home / "previous")) == (first, second)

    (source / "companion" / "other.py").write_text("WHAT = 'another change'\n")
    other = run(root, source)
    assert other.returncode == 0, other.stderr
    third = os.readlink(home / "current")
    assert os.readlink(home / "previous") == first
    assert sorted(p.name for p in (home / "releases").iterdir()) == sorted([first[9:], third[9:]])
    assert f"removed the release {second[9:]}" in other.stdout

    # A run that stopped half way leaves a release without its mark: the next run makes it again.
    (home / third / "companion-release").unlink()
    (home / "current").unlink()
    (home / "current").symlink_to(first)
    remade = run(root, source)
    assert remade.returncode == 0, remade.stderr
    assert "installed the program as the release" in remade.stdout and (home / third / "companion-release").is_file()
    assert program(root, "import companion.other").returncode == 0


def test_an_install_of_before_releases_is_moved_to_them(fresh):
    root, source = fresh
    home = root / HOME
    # The layout of before: /opt/companion was the environment itself.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True, timeout=120)
    (home / "companion-source").write_text("an old digest\n")
    done = run(root, source)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in home.iterdir()) == ["current", "releases"]
    assert "moved the program from the environment /opt/companion" in done.stdout
    assert program(root, "import companion").returncode == 0


def test_a_wheelhouse_with_hashes_is_installed_from_alone(fresh, tmp_path, monkeypatch):
    """The image's way: the libraries from a folder of wheels, each checked against its hash, no index."""
    root, source = fresh
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "download", "--only-binary=:all:", "-d", str(wheels), "ifaddr", "setuptools>=68",
                    "wheel"], check=True, timeout=600)
    ifaddr = next(wheels.glob("ifaddr-*.whl"))
    digest = hashlib.sha256(ifaddr.read_bytes()).hexdigest()
    (wheels / "requirements.txt").write_text(f"{ifaddr.name.split('-')[0]}=={ifaddr.name.split('-')[1]} "
                                             f"--hash=sha256:{digest}\n")
    (source / "companion" / "extra.py").write_text("WHAT = 'from the wheelhouse'\n")
    offline = {"PIP_NO_DEPS": "", "PIP_INDEX_URL": "http://127.0.0.1:9/", "PIP_FIND_LINKS": ""}
    done = run(root, source, "--offline", "--wheels", str(wheels), env=offline)
    assert done.returncode == 0, done.stderr
    assert program(root, "import ifaddr, companion.extra").returncode == 0
    current = os.readlink(root / HOME / "current")
    assert (root / HOME / current / "wheels" / "requirements.txt").is_file()  # kept for the next update
    # `companion update`, offline, installs the next release from the running release's own hashed wheels.
    from types import SimpleNamespace

    from companion.cli.update import Machine

    (source / "companion" / "extra.py").write_text("WHAT = 'the update'\n")
    for key, value in offline.items():
        monkeypatch.setenv(key, value)
    updated = Machine(SimpleNamespace(), home=root / HOME).install(str(source))
    assert (root / HOME / "releases" / updated / "companion-release").is_file() and updated != current[9:]
    # A wheel that is not the one hashed is refused, and the running release stays as it was.
    (wheels / "requirements.txt").write_text(f"ifaddr=={ifaddr.name.split('-')[1]} --hash=sha256:{'0' * 64}\n")
    (source / "companion" / "extra.py").write_text("WHAT = 'tampered'\n")
    refused = run(root, source, "--offline", "--wheels", str(wheels), env=offline)
    assert refused.returncode != 0 and "hash" in refused.stderr.lower(), refused.stderr
    assert os.readlink(root / HOME / "current") == current


def test_without_a_running_systemd_the_unit_is_enabled_by_its_link_and_nothing_starts(installed):
    root, _, _, done = installed
    link = root / "etc/systemd/system/multi-user.target.wants/companion.service"
    assert os.readlink(link) == "/etc/systemd/system/companion.service"
    assert "systemctl restart" not in done.stdout and "started" not in done.stdout
