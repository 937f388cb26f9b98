"""The install script, run into a temporary root: every file it makes, a second run that changes nothing, and both uninstalls."""

import hashlib
import os
import shutil
import stat
import subprocess

import pytest

from conftest import ROOT, building_from_the_checkout, need

SCRIPT = ROOT / "systemd" / "install.sh"
KIOSK = ROOT / "systemd" / "companion-kiosk"
VENV = "opt/companion"  # the releases, each an environment of its own (tests/appliance/test_releases.py)
TOOLS = ("systemd-sysusers", "systemctl")
# An install builds the program's wheel and a whole environment, so these are of the whole-system group.
pytestmark = [pytest.mark.system, pytest.mark.timeout(600)]
# Everything the script makes outside the program's own environment, with its mode.
EXPECTED = {
    "etc/sysusers.d/companion.conf": 0o644,
    "etc/udev/rules.d/60-companion.rules": 0o644,  # the pins and the SPI bus to their groups, as on Raspberry Pi OS
    "etc/passwd": None, "etc/group": None, "etc/shadow": None, "etc/gshadow": None,  # systemd-sysusers
    "etc/companion/config.toml": 0o640,
    "etc/systemd/system/companion.service": 0o644,
    "etc/systemd/system/multi-user.target.wants/companion.service": None,  # the enable link
    "etc/systemd/system/companion-update.path": 0o644,  # a release from the maintenance page, installed as root
    "etc/systemd/system/companion-update.service": 0o644,
    "etc/systemd/system/multi-user.target.wants/companion-update.path": None,
    "boot/firmware/config.txt": None,
    "usr/local/bin/companion-kiosk": 0o755,
    "usr/local/bin/companion": 0o755,  # the command on the PATH
    "etc/xdg/autostart/companion-kiosk.desktop": 0o644,
}


def run(root, *args: str) -> subprocess.CompletedProcess:
    # No network for pip: the program alone from this checkout (its libraries are not needed to check files).
    env = {**os.environ, "PIP_NO_DEPS": "1"}
    return subprocess.run(["sh", str(SCRIPT), "--root", str(root), *args], capture_output=True, text=True,
                          timeout=300, env=env)


def files(root) -> dict[str, str]:
    """Every file and link under `root` but the program's environment, with a digest of what it holds."""
    found = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if name.startswith(VENV) or name.endswith(".pwd.lock") or path.is_dir() and not path.is_symlink():
            continue
        body = os.readlink(path).encode() if path.is_symlink() else readable(path)
        found[name] = hashlib.sha256(body).hexdigest() + oct(path.lstat().st_mode)
    return found


def readable(path) -> bytes:
    """What a file holds, or nothing for one only root may read (the shadow files, when not run as root)."""
    try:
        return path.read_bytes()
    except PermissionError:
        return b""


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    need(*TOOLS)
    root = tmp_path_factory.mktemp("root")
    with building_from_the_checkout():  # pip builds the program in the checkout itself
        done = run(root, "--spi", "--kiosk")
    assert done.returncode == 0, done.stderr
    return root, done.stdout


@pytest.fixture
def copy(installed, tmp_path):
    """A private copy of the installed root, for a test that changes it."""
    root = tmp_path / "root"
    for shadow in installed[0].glob("etc/*shadow"):  # mode 0 from systemd-sysusers: unreadable unless root
        shadow.chmod(0o600)
    shutil.copytree(installed[0], root, symlinks=True)
    return root


def test_it_makes_exactly_the_files_it_should_with_their_modes(installed):
    root, _ = installed
    assert set(files(root)) == set(EXPECTED)
    for name, mode in EXPECTED.items():
        if mode is not None:
            assert stat.S_IMODE((root / name).stat().st_mode) == mode, name
    assert stat.S_IMODE((root / "etc/companion").stat().st_mode) == 0o750


def test_the_unit_and_config_are_the_ones_in_the_checkout(installed):
    root, _ = installed
    assert (root / "etc/systemd/system/companion.service").read_bytes() == \
        (ROOT / "systemd" / "companion.service").read_bytes()
    assert (root / "etc/companion/config.toml").read_bytes() == (ROOT / "docs" / "config.example.toml").read_bytes()
    link = root / "etc/systemd/system/multi-user.target.wants/companion.service"
    assert os.readlink(link) == "/etc/systemd/system/companion.service"


def test_the_user_is_made_with_its_device_groups(installed):
    root, _ = installed
    passwd = {line.split(":")[0]: line.split(":") for line in (root / "etc/passwd").read_text().splitlines()}
    user = passwd["companion"]
    assert user[5:] == ["/var/lib/companion", "/usr/sbin/nologin"]
    groups = {line.split(":")[0]: line.split(":")[3].split(",") for line in (root / "etc/group").read_text().splitlines()}
    for group in ("gpio", "spi", "dialout"):
        assert "companion" in groups[group], group


def test_the_program_is_installed_in_its_own_environment(installed):
    root, _ = installed
    venv = root / VENV / "current"
    assert "include-system-site-packages = true" in (venv / "pyvenv.cfg").read_text()
    assert os.access(venv / "bin" / "companion", os.X_OK)
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import companion; print(companion.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd="/")
    assert where.stdout.startswith(str(venv)), where.stderr
    package = next(venv.glob("lib/python3*/site-packages/companion"))
    for data in ("data/pinout.toml", "web/templates/base.html", "web/kiosk/templates/kiosk/index.html",
                 "web/kiosk/static/kiosk.js", "web/kiosk/i18n/ja.json"):
        assert (package / data).is_file(), f"{data} is missing from the installed package"


def test_spi_is_switched_on_and_the_kiosk_starts_at_login(installed):
    root, out = installed
    assert (root / "boot/firmware/config.txt").read_text().splitlines() == ["dtparam=spi=on"]
    desktop = (root / "etc/xdg/autostart/companion-kiosk.desktop").read_text()
    assert "Exec=/usr/local/bin/companion-kiosk http://127.0.0.1:8000/kiosk/" in desktop
    assert (root / "usr/local/bin/companion-kiosk").read_bytes() == KIOSK.read_bytes()
    assert "skipped" in out  # the live system is left alone under --root


def test_a_second_run_changes_nothing_and_keeps_an_edited_config(copy):
    config = copy / "etc/companion/config.toml"
    config.write_text(config.read_text() + "\n[web]\nport = 8080\n")
    before = files(copy)
    done = run(copy, "--spi", "--kiosk")
    assert done.returncode == 0, done.stderr
    assert files(copy) == before
    assert "wrote" not in done.stdout and "kept /etc/companion/config.toml" in done.stdout
    assert "the program in /opt/companion/current is up to date" in done.stdout  # nothing to rebuild


def test_a_changed_checkout_is_installed_again(copy, tmp_path):
    source = tmp_path / "checkout"
    # Nor what other test processes write into the checkout meanwhile (hypothesis's examples come and go).
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv", ".git", "tests", "build", "*.egg-info",
                                                                "__pycache__", ".pytest_cache", ".hypothesis"))
    unchanged = run(copy, "--source", str(source))
    assert "the program in /opt/companion/current is up to date" in unchanged.stdout, "the same files, wherever they are"
    (source / "companion" / "extra.py").write_text("WHAT = 'a change'\n")
    changed = run(copy, "--source", str(source))
    assert changed.returncode == 0, changed.stderr
    assert "installed the program" in changed.stdout
    assert next((copy / VENV / "current").glob("lib/python3*/site-packages/companion/extra.py")).is_file()


def test_without_options_there_is_no_spi_line_and_no_kiosk(copy):
    optional = {"boot/firmware/config.txt", "usr/local/bin/companion-kiosk", "etc/xdg/autostart/companion-kiosk.desktop"}
    for name in optional:
        (copy / name).unlink()
    done = run(copy)
    assert done.returncode == 0, done.stderr
    assert set(files(copy)) == set(EXPECTED) - optional


def test_uninstall_keeps_the_config_and_the_shows(copy):
    shows = copy / "var/lib/companion/companion.sqlite3"
    shows.parent.mkdir(parents=True, exist_ok=True)  # install.sh makes it too
    shows.write_bytes(b"the shows")
    done = run(copy, "--uninstall")
    assert done.returncode == 0, done.stderr
    left = set(files(copy))
    assert not (copy / VENV).exists()
    assert left == {"etc/sysusers.d/companion.conf", "etc/passwd", "etc/group", "etc/shadow", "etc/gshadow",
                    "etc/companion/config.toml", "boot/firmware/config.txt", "var/lib/companion/companion.sqlite3"}
    assert shows.read_bytes() == b"the shows"


def test_uninstall_with_purge_removes_the_data_too(copy):
    (copy / "var/lib/companion").mkdir(parents=True, exist_ok=True)
    (copy / "var/lib/companion/companion.sqlite3").write_bytes(b"the shows")
    done = run(copy, "--uninstall", "--purge")
    assert done.returncode == 0, done.stderr
    assert set(files(copy)) == {"etc/passwd", "etc/group", "etc/shadow", "etc/gshadow", "boot/firmware/config.txt"}


def test_a_wrong_option_is_one_line_and_exit_2(tmp_path):
    done = subprocess.run(["sh", str(SCRIPT), "--root", str(tmp_path), "--colour"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["install.sh: unknown option --colour (try --help)"]
    assert list(tmp_path.iterdir()) == []


def test_shellcheck_finds_nothing():
    need("shellcheck")
    done = subprocess.run(["shellcheck", str(SCRIPT), str(KIOSK)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("model, lines", [
    ("Raspberry Pi 4 Model B Rev 1.4", ["core_freq=500", "core_freq_min=500"]),
    ("Raspberry Pi 400 Rev 1.0", ["core_freq=500", "core_freq_min=500"]),
    ("Raspberry Pi 3 Model B Plus Rev 1.3", ["core_freq=250"]),
    ("Raspberry Pi Zero 2 W Rev 1.0", ["core_freq=250"]),
    ("Raspberry Pi 5 Model B Rev 1.0", []),
])
def test_spi_on_a_pi_before_the_5_fixes_the_core_clock_and_says_so(copy, model, lines):
    (copy / "proc/device-tree").mkdir(parents=True)
    (copy / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
    done = run(copy, "--spi")
    assert done.returncode == 0, done.stderr
    written = [line for line in (copy / "boot/firmware/config.txt").read_text().splitlines()
               if not line.startswith("#")]
    assert written == ["dtparam=spi=on", *lines]
    assert ("fixed the core clock" in done.stdout) == bool(lines)
    again = run(copy, "--spi")  # a second run adds nothing
    assert [line for line in (copy / "boot/firmware/config.txt").read_text().splitlines()
            if not line.startswith("#")] == written
    assert ("kept the core clock" in again.stdout) == bool(lines)


def test_a_pi_5_lets_the_unit_reach_its_pio_and_uninstall_takes_it_away(copy):
    (copy / "dev").mkdir()
    (copy / "dev/pio0").write_bytes(b"")
    done = run(copy)
    drop_in = copy / "etc/systemd/system/companion.service.d/pio.conf"
    assert done.returncode == 0 and "DeviceAllow=/dev/pio0 rw" in drop_in.read_text().splitlines()
    assert run(copy, "--uninstall").returncode == 0
    assert not drop_in.parent.exists()


def test_the_kiosk_brings_a_font_for_japanese(installed):
    _, out = installed
    assert "fonts-noto-cjk" in next(line for line in out.splitlines() if "apt-get install" in line)


def test_groups_this_system_lacked_are_noted_for_purge(installed):
    root, _ = installed
    notes = [line for line in (root / "etc/sysusers.d/companion.conf").read_text().splitlines()
             if line.startswith("# groups made by install.sh:")]
    made = set(notes[0].split(":", 1)[1].split()) if notes else set()
    assert made <= {"gpio", "spi", "dialout"} and len(notes) <= 1
