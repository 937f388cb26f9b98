"""The service as a Pi runs it: Debian bookworm booted under a real systemd (systemd-nspawn), the
project's own systemd/install.sh run inside it as a Pi user runs it, and the installed unit, unchanged,
proven: it starts through READY=1 and answers, its watchdog and restarts are real, a crash at start
ends in "failed" with its reason, its sandbox holds, and an uninstall leaves nothing behind.

The root file system is made once by debootstrap from the mirror apt is configured with and kept in
COMPANION_ROOTFS_CACHE (default /var/cache/companion-tests); every boot lays a throw-away layer over
it (--volatile=overlay). The container has no network: the program's libraries are wheels made here.
"""

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from companion.skyrockets.colours import COLOURS
from conftest import ROOT, building_from_the_checkout, need_as_root

SUITE = "bookworm"  # Raspberry Pi OS's Debian
PACKAGES = ("systemd", "systemd-sysv", "dbus", "python3-venv", "python3-pip", "sudo", "procps")
CACHE = Path(os.environ.get("COMPANION_ROOTFS_CACHE", "/var/cache/companion-tests"))
CHECKOUT = "/home/pi/companion"  # where the Pi user copied the project
WHEELS = "/srv/wheels"
PIN = "483920"
HOSTNAME = "raspberrypi"
HOSTS = f"127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t{HOSTNAME}\n"  # as on a Pi
PORT = 8000
UNIT = "companion.service"
MAX_EXPOSURE = 2.0  # systemd-analyze security, 0 (locked down) to 10
WAIT_S = 90  # the longest any one change of the service's state may take (a watchdog round is 30 s)

# The config docs/install.md gives for trying the service before the wiring is done.
TRY_CONFIG = "[table]\nmock_pins = true\n" + "".join(
    f'\n[timers.{colour}]\nsource = "emulated"\n' for colour in COLOURS) + f'\n[web]\nport = {PORT}\npin = "{PIN}"\n'

# A booted Debian, like a Home Assistant start, is heavy: the two run one after the other on one test process.
pytestmark = [pytest.mark.system, pytest.mark.timeout(900), pytest.mark.xdist_group("heavy")]


def debian_mirror() -> str:
    """The Debian mirror apt on this machine is configured with."""
    sources = Path("/etc/apt/sources.list.d")
    for path in sorted(sources.glob("*.sources")):
        for block in path.read_text().split("\n\n"):
            if re.search(r"^Suites:.*\b(bookworm|trixie|sid|stable)\b", block, re.M) and "debian-security" not in block:
                found = re.search(r"^URIs:\s*(\S+)", block, re.M)
                if found:
                    return found.group(1)
    for path in [Path("/etc/apt/sources.list"), *sorted(sources.glob("*.list"))]:
        if path.exists():
            for line in path.read_text().splitlines():
                words = line.split()
                if words[:1] == ["deb"] and "security" not in line:
                    return next(w for w in words[1:] if "://" in w)
    pytest.fail("no Debian mirror in apt's sources")


def cached(name: str, make) -> Path:
    """CACHE/name, made by make(folder) once (under a lock, so two runs never make it twice)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    target = CACHE / name
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            scratch = Path(tempfile.mkdtemp(dir=CACHE, prefix=f".{name}-"))
            try:
                make(scratch)
                scratch.rename(target)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    return target


def _debootstrap(folder: Path) -> None:
    started = time.monotonic()
    subprocess.run(["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(folder),
                    debian_mirror()], check=True, capture_output=True, timeout=1800)
    subprocess.run(["chroot", str(folder), "apt-get", "clean"], check=True, capture_output=True)
    (folder / "etc/hostname").write_text(f"{HOSTNAME}\n")
    (folder / "etc/hosts").write_text(HOSTS)
    print(f"root file system made in {time.monotonic() - started:.0f} s", file=sys.stderr)


def _wheels(folder: Path) -> None:
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--wheel-dir", str(folder), f"{ROOT}[pi]"], check=True, timeout=1200)
    for own in folder.glob("companion-*.whl"):  # install.sh builds the program itself, from the checkout
        own.unlink()
    subprocess.run([*pip, "download", "--only-binary=:all:", "-d", str(folder), "setuptools>=68", "wheel"],
                   check=True, timeout=600)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


class Container:
    """A booted Debian: commands run inside it through nsenter, as root unless told."""

    def __init__(self, rootfs: Path, wheels: Path, checkout: Path, log: Path):
        self.log, self.wheels, self.checkout = log, wheels, checkout  # the checkout is CHECKOUT inside
        self.process = subprocess.Popen(
            ["systemd-nspawn", "-D", str(rootfs), "--volatile=overlay", "--keep-unit", "--register=no",
             "--private-network", "--system-call-filter=bpf", "--console=passive",
             f"--bind-ro={wheels}:{WHEELS}", f"--bind={checkout}:{CHECKOUT}", "-b"],
            stdout=log.open("wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, "SYSTEMD_NSPAWN_UNIFIED_HIERARCHY": "1"})
        self.leader = self._leader()
        deadline = time.monotonic() + 120
        while True:  # until its systemd answers on its bus ("offline" or nothing before), then until it has booted
            done = self.run("systemctl", "is-system-running", "--wait", check=False, timeout=120)
            state = done.stdout.strip()
            if state not in ("", "offline", "unknown") or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert state in ("running", "degraded"), \
            f"the container did not boot: {state} {done.stderr}\n{log.read_text()[-2000:]}"

    def _leader(self) -> int:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
            if children and Path(f"/proc/{children[0]}/comm").read_text().strip() == "systemd":
                return int(children[0])
            time.sleep(0.05)  # polling for the container's init to appear; nothing waits on time passing
        pytest.fail(f"the container's systemd never started\n{self.log.read_text()[-2000:]}")

    def run(self, *command: str, user: str | None = None, cwd: str = "/", check: bool = True,
            timeout: float = 300, stdin: str | None = None) -> subprocess.CompletedProcess:
        inner = ["env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8",
                 "PIP_NO_INDEX=1", f"PIP_FIND_LINKS={WHEELS}", *command]
        if user:
            inner = ["sudo", "-u", user, *inner]
        shell = f"cd {cwd} && exec \"$@\""
        done = subprocess.run(["nsenter", "-t", str(self.leader), "-a", "--", "sh", "-c", shell, "sh", *inner],
                              capture_output=True, text=True, timeout=timeout, input=stdin)
        if check:
            assert done.returncode == 0, f"{' '.join(command)} -> {done.returncode}\n{done.stdout}\n{done.stderr}"
        return done

    def show(self, *names: str) -> dict[str, str]:
        out = self.run("systemctl", "show", UNIT, *(f"--property={n}" for n in names)).stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def wait_for(self, what: str, test, timeout: float = WAIT_S) -> dict[str, str]:
        """Poll the unit's state until test(state) holds; fail naming `what` and the last state."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.show("ActiveState", "SubState", "MainPID", "NRestarts", "Result")
            if test(state):
                return state
            if time.monotonic() > deadline:
                status = self.run("systemctl", "status", "--no-pager", "-n", "20", UNIT, check=False).stdout
                pytest.fail(f"{what}: not within {timeout:.0f} s; last {state}\n{status}")
            time.sleep(0.2)  # polling systemd's view; the test's verdicts never depend on this interval

    def http(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | str]:
        """A request to the daemon from inside the container (its network is private)."""
        script = f"""
import json, sys, urllib.request, urllib.error
body = sys.stdin.read()
request = urllib.request.Request("http://127.0.0.1:{PORT}{path}", method="{method}",
    data=body.encode() if body else None,
    headers={{"X-Table-Pin": "{PIN}", "Content-Type": "application/json"}})
try:
    with urllib.request.urlopen(request, timeout=10) as answer:
        status, text = answer.status, answer.read().decode()
except urllib.error.HTTPError as e:
    status, text = e.code, e.read().decode()
print(status); print(text)
"""
        done = self.run("python3", "-c", script, stdin=json.dumps(body) if body else "")
        status, _, text = done.stdout.partition("\n")
        try:
            return int(status), json.loads(text)
        except ValueError:
            return int(status), text

    def journal(self, *args: str) -> str:
        return self.run("journalctl", "--no-pager", "-o", "cat", *args).stdout

    def close(self) -> None:
        self.process.terminate()  # nspawn tells the container's systemd to power off
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def files_outside_the_checkout(box: Container) -> set[str]:
    """Every file a package or an install could leave, bar the system's own moving parts."""
    out = box.run("find", "/etc", "/opt", "/usr/local", "/var/lib", "/srv", "/home", "-xdev",
                  "-not", "-path", "/var/lib/systemd/*", "-not", "-path", "/var/lib/dpkg/*",
                  "-not", "-path", f"{CHECKOUT}*", "-not", "-path", f"{WHEELS}*", "-not", "-name", "*-",
                  "-not", "-name", ".pwd.lock").stdout
    return set(out.split())


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    need_as_root("booting a container", ("systemd-nspawn", "debootstrap", "nsenter"),
                 "systemd-container debootstrap util-linux")
    rootfs = cached(f"rootfs-{SUITE}-{_digest(*PACKAGES, HOSTS)}", _debootstrap)
    with building_from_the_checkout():
        wheels = cached(f"wheels-{_digest((ROOT / 'pyproject.toml').read_text())}", _wheels)
    checkout = tmp_path_factory.mktemp("checkout") / "companion"
    # Nor what other test processes write into the checkout meanwhile (hypothesis's examples come and go).
    shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info",
                                                                   "__pycache__", ".pytest_cache", ".hypothesis"))
    # One container at a time on this machine (another run's too): booted from one cgroup (--keep-unit),
    # two fight over it, and one's service fails to start.
    with open(CACHE / ".boot", "w") as booting:
        fcntl.flock(booting, fcntl.LOCK_EX)
        started = time.monotonic()
        box = Container(rootfs, wheels, checkout, tmp_path_factory.mktemp("boot") / "console.log")
        try:
            # The Pi's own user, as Raspberry Pi OS makes it: sudo without a password.
            box.run("useradd", "--no-create-home", "--home-dir", "/home/pi", "--shell", "/bin/sh", "pi")
            box.run("sh", "-c", "echo 'pi ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/010_pi-nopasswd")
            before = files_outside_the_checkout(box)
            # As the Pi guide says: run the install script from the copied checkout, as root.
            install = box.run(f"{CHECKOUT}/systemd/install.sh", check=False, timeout=600)
            yield box, install, before
        finally:
            box.close()
            print(f"deployed-service test: {time.monotonic() - started:.0f} s once the root file system was cached",
                  file=sys.stderr)


def test_a_daemon_that_cannot_start_ends_failed_with_its_reason(host):
    """The example config names tilt cradles; this machine has no GPIO: five tries, then "failed"."""
    box, install, _ = host
    assert install.returncode == 1, install.stdout + install.stderr  # the install says the service did not start
    assert "installed, but the service did not start" in install.stderr
    state = box.wait_for("the service to give up", lambda s: s["ActiveState"] == "failed")
    assert int(state["NRestarts"]) <= 5
    status = box.run("systemctl", "status", "--no-pager", "-n", "5", UNIT, check=False).stdout
    assert re.search(r"Status: \"companion run: no GPIO here: no /dev/gpiochip\* device", status), status
    assert "lgd-nfy" not in status and "gpio group" not in status


def test_the_service_starts_through_ready_and_answers(host):
    box, _, _ = host
    box.run("sh", "-c", f"cat > /etc/companion/config.toml", stdin=TRY_CONFIG)
    cursor = box.run("journalctl", "--show-cursor", "-n", "0", "--no-pager").stdout.split("cursor: ")[-1].strip()
    install = box.run(f"{CHECKOUT}/systemd/install.sh", timeout=600)  # again, as after editing the config
    assert "kept /etc/companion/config.toml" in install.stdout
    state = box.wait_for("active (running)", lambda s: (s["ActiveState"], s["SubState"]) == ("active", "running"))
    assert box.show("Type", "StatusErrno")["Type"] == "notify"  # so "running" was reached through READY=1
    status, page = box.http("GET", "/")
    assert status == 200 and "<html" in page.lower()
    start = box.journal("-u", UNIT, f"--after-cursor={cursor}")
    print("journal of a clean start:\n" + start, file=sys.stderr)
    assert f"the table PIN is {PIN}. sudo systemctl stop companion stops it." in start
    warnings = box.journal("-u", UNIT, f"--after-cursor={cursor}", "-p", "warning")
    assert warnings.strip() == "", f"a clean start warns:\n{warnings}"  # e.g. directory modes unlike the unit's
    assert state["MainPID"] != "0"


def test_the_installed_unit_is_the_checkouts_unchanged(host):
    box, _, _ = host
    installed = box.run("cat", f"/etc/systemd/system/{UNIT}").stdout
    assert installed == (ROOT / "systemd" / UNIT).read_text()
    assert box.run("ls", f"/etc/systemd/system/{UNIT}.d", check=False).returncode != 0  # no drop-in here


PROBE = """
import os, socket, sys
def netlink():  # getifaddrs() asks the kernel for the table's addresses over netlink
    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW).close()
    import ifaddr; ifaddr.get_adapters()
def board():  # lgpio, gpiozero and Blinka read the board's model from /proc
    open("/proc/cpuinfo").read()
def lgpio():  # makes its notification pipe in the working directory as it is imported
    assert os.access(os.getcwd(), os.W_OK), f"the working directory {os.getcwd()} is not writable"
    import lgpio
def devices():  # the device policy is enforced: what DeviceAllow leaves out cannot be opened
    present = [path for path in ("/dev/net/tun", "/dev/fuse") if os.path.exists(path)]
    assert present, "no device to try"
    for path in present:
        try:
            os.close(os.open(path, os.O_RDWR))
        except PermissionError:
            continue
        raise AssertionError(f"{path} opened though the unit does not allow it")
    os.close(os.open("/dev/null", os.O_RDWR))
failed = []
for check in (netlink, board, lgpio, devices):
    try:
        check()
    except Exception as e:
        failed.append(f"{check.__name__}: {type(e).__name__}: {e}")
print("\\n".join(failed) or "probe ok")
sys.exit(1 if failed else 0)
"""


def test_the_units_sandbox_lets_the_pin_libraries_work(host):
    """The unit's own directives around a probe: what lgpio, gpiozero and the address list need is there."""
    box, _, _ = host
    properties = []
    section = None
    for line in (ROOT / "systemd" / UNIT).read_text().splitlines():
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key = line.split("=", 1)[0]
            if key not in ("Type", "NotifyAccess", "ExecStart", "Restart", "RestartSec", "WatchdogSec",
                           "TimeoutStartSec"):
                properties.append(f"--property={line}")
    done = box.run("systemd-run", "--wait", "--pipe", "--quiet", *properties, "/opt/companion/current/bin/python", "-c",
                   PROBE, check=False)
    assert done.returncode == 0 and "probe ok" in done.stdout, done.stdout + done.stderr


def test_sigkill_mid_show_restarts_it_and_the_show_resumes(host):
    box, _, _ = host
    status, started = box.http("POST", "/api/show/start", {"event": "training"})
    assert status == 201, started
    assert box.http("POST", "/api/show/flip", {"timer": "green"})[0] == 200
    _, before = box.http("GET", "/api/show")
    state = box.show("MainPID", "NRestarts")
    box.run("systemctl", "kill", "--kill-who=main", "--signal=SIGKILL", UNIT)
    box.wait_for("a restart after SIGKILL", lambda s: s["NRestarts"] == str(int(state["NRestarts"]) + 1)
                 and s["SubState"] == "running" and s["MainPID"] not in ("0", state["MainPID"]))
    _, after = box.http("GET", "/api/show")
    assert after["id"] == before["id"] and after["outcome"] == "running"
    assert after["t"] >= before["t"]
    assert after["timers"]["green"]["state"] == "running"


def test_a_frozen_daemon_is_killed_by_the_watchdog_and_restarted(host):
    box, _, _ = host
    _, before = box.http("GET", "/api/show")
    state = box.show("MainPID", "NRestarts")
    box.run("kill", "-STOP", state["MainPID"])
    box.wait_for("the watchdog to restart a frozen daemon",
                 lambda s: s["NRestarts"] == str(int(state["NRestarts"]) + 1) and s["SubState"] == "running")
    assert "Watchdog timeout" in box.journal("-u", UNIT, "-n", "50")
    _, after = box.http("GET", "/api/show")
    assert after["id"] == before["id"]


def test_check_hw_runs_as_the_service_user_from_a_folder_it_cannot_write(host):
    box, _, _ = host
    done = box.run("/opt/companion/current/bin/companion", "check-hw", "--once", "--config", "/etc/companion/config.toml",
                   user="companion", cwd="/srv", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len([line for line in done.stdout.splitlines() if "emulated" in line]) == 6
    # The docs' example config asks for real pins: the answer names the missing device, nothing else.
    real = box.run("/opt/companion/current/bin/companion", "check-hw", "--once", "--config",
                   f"{CHECKOUT}/docs/config.example.toml", user="companion", cwd="/srv", check=False)
    assert real.returncode == 1 and real.stderr.count("\n") == 1, real.stderr
    assert "no /dev/gpiochip* device" in real.stderr and "lgpio cannot start" not in real.stderr


def test_the_sandbox_scores_low_and_the_daemon_still_runs_in_it(host):
    box, _, _ = host
    report = box.run("systemd-analyze", "security", "--no-pager", UNIT, check=False).stdout
    exposure = float(re.search(r"Overall exposure level for \S+: ([\d.]+)", report).group(1))
    assert exposure <= MAX_EXPOSURE, report
    assert box.show("SubState")["SubState"] == "running"
    assert box.http("GET", "/api/show")[0] == 200


def test_companion_on_the_path_runs_as_the_pi_user_types_it(host):
    """`companion score` reads the owner's own file; `companion setup` reads the 640 config as the table's user."""
    box, _, _ = host
    sys.path.insert(0, str(ROOT / "tests" / "flock"))
    from test_flock_cli import LANDING
    box.run("sh", "-c", "mkdir -p /home/pi/stages && cat > /home/pi/stages/landing.json && chown -R pi /home/pi/stages "
            "&& chmod -R go= /home/pi/stages", stdin=json.dumps(LANDING))
    scored = box.run("companion", "score", "flock", "stages/landing.json", user="pi", cwd="/home/pi", check=False)
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["winners"] == ["goose"]
    assert box.run("cat", "/etc/companion/config.toml", user="pi", check=False).returncode != 0  # 640, not pi's
    setup = box.run("companion", "setup", user="pi", cwd="/home/pi", check=False)
    assert setup.returncode == 0 and setup.stdout.startswith("/etc/companion/config.toml: "), setup.stderr
    whoami = box.run("companion", "history", "export", "-", user="pi", cwd="/home/pi", check=False)
    assert whoami.returncode == 0 and whoami.stdout.strip(), whoami.stderr  # the database, read as its owner
    box.run("rm", "-r", "/home/pi/stages")


def release_of(box: Container, link: str = "current") -> str:
    """The release a link of /opt/companion points at, by its name."""
    return box.run("readlink", f"/opt/companion/{link}").stdout.strip().rsplit("/", 1)[-1]


def shows(box: Container) -> list[int]:
    """The ids of the shows the table has kept, as its page lists them."""
    status, kept = box.http("GET", "/api/shows")
    assert status == 200, kept
    return sorted(show["id"] for show in kept)


def checkout_variant(box: Container, folder: str, change: str) -> None:
    """A copy of the checkout in the container with `change` appended to companion/cli/table.py."""
    box.run("rm", "-rf", folder)
    box.run("cp", "-r", CHECKOUT, folder)
    box.run("sh", "-c", f"cat >> {folder}/companion/cli/table.py", stdin=change)


def test_an_update_whose_daemon_does_not_start_goes_back_by_itself(host):
    box, _, _ = host
    kept = shows(box)
    assert kept, "the shows of the tests above"
    before = release_of(box)
    way_back = box.run("readlink", "/opt/companion/previous", check=False).stdout.strip().rsplit("/", 1)[-1] or None
    checkout_variant(box, "/srv/broken", "\n\ndef cmd_run(args):  # this version's daemon cannot start\n"
                                         "    raise SystemExit(3)\n")
    done = box.run("companion", "update", "/srv/broken", "--timeout", "60", check=False, timeout=900)
    print("an update that breaks the daemon:\n" + done.stdout, file=sys.stderr)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "did not come up" in done.stdout and f"{before} is serving again" in done.stdout
    assert release_of(box) == before
    # The way back is still a release that served, never the broken one, which is pruned.
    assert set(box.run("ls", "/opt/companion/releases").stdout.split()) <= {before, way_back}
    previous = box.run("readlink", "/opt/companion/previous", check=False).stdout.strip().rsplit("/", 1)[-1] or None
    assert previous in (way_back, before)
    box.wait_for("the old version running", lambda s: (s["ActiveState"], s["SubState"]) == ("active", "running"))
    assert box.http("GET", "/")[0] == 200 and shows(box) == kept  # the old version serves the page again
    backups = box.run("ls", "/var/lib/companion/backups").stdout.split()
    assert len(backups) == 1 and backups[0].startswith("companion-backup-")
    box.run("rm", "-r", "/srv/broken")


def test_an_update_to_a_good_release_file_switches_and_keeps_the_data(host):
    box, _, _ = host
    kept = shows(box)
    before = release_of(box)
    checkout_variant(box, "/srv/good", "\n\nNEWER = True  # this version's mark\n")
    box.run("python3", "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", "/srv/release", "/srv/good",
            timeout=600)
    wheel = box.run("sh", "-c", "ls /srv/release/companion-*.whl").stdout.strip()
    done = box.run("companion", "update", wheel, check=False, timeout=900)
    print("an update to a good release:\n" + done.stdout, file=sys.stderr)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the update is done" in done.stdout
    assert release_of(box) != before and release_of(box, "previous") == before
    marked = box.run("/opt/companion/current/bin/python", "-c", "import companion.cli.table as t; print(t.NEWER)")
    assert marked.stdout.strip() == "True"
    assert shows(box) == kept  # the same database, every show still there
    assert len(box.run("ls", "/var/lib/companion/backups").stdout.split()) == 2
    box.run("rm", "-r", "/srv/good", "/srv/release")


RESTORE = f"""
import http.cookiejar, json, re, sys, urllib.error, urllib.request
PIECE = 24 * 1024  # the page's pieces
browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
csrf = {{}}
def call(method, path, data=None, kind="application/octet-stream"):
    request = urllib.request.Request("http://127.0.0.1:{PORT}" + path, method=method, data=data,
                                     headers={{"Content-Type": kind, **csrf}})
    try:
        with browser.open(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
# The owner's session, as a phone opens it: the settings page, then the setup code `companion setup --reopen` printed.
csrf["X-CSRF-Token"] = re.search(rb'name="csrf-token" content="([^"]+)"', call("GET", "/setup/")[1])[1].decode()
assert call("POST", "/api/setup/code", json.dumps({{"code": sys.argv[2]}}).encode(), "application/json")[0] == 200
if sys.argv[1] == "download":
    status, data = call("GET", "/maintenance/backup.tar.gz")
    assert status == 200, status
    open("/srv/backup.tar.gz", "wb").write(data)
    print(len(data))
else:
    data = open("/srv/backup.tar.gz", "rb").read()
    parts, upload = -(-len(data) // PIECE), None
    for part in range(1, parts + 1):
        query = f"part={{part}}&parts={{parts}}&size={{len(data)}}" + (f"&upload={{upload}}" if upload else "")
        try:
            status, body = call("POST", "/api/maintenance/restore?" + query, data[(part - 1) * PIECE:part * PIECE])
        except OSError:  # the last answer may be cut short by the restart it starts, as a phone may see
            assert part == parts
            status, body = 202, b'{{"cut": true}}'
        assert status == 202, (status, body)
        answer = json.loads(body)
        upload = answer.get("upload", upload)
    print(json.dumps(answer))
"""


def test_a_backup_restored_from_the_page_restarts_the_daemon_on_it(host):
    box, _, _ = host
    _, pad = box.http("GET", "/api/scorepad")
    code = re.search(r"setup code ([A-Z0-9-]+)", box.run("companion", "setup", "--reopen").stdout)[1]
    box.run("python3", "-c", RESTORE, "download", code)
    assert box.http("POST", "/api/players", {"players": ["Aiko", "Ben"]})[0] == 200
    assert box.http("GET", "/api/scorepad")[1]["players"] != pad["players"]
    state = box.show("MainPID")
    cursor = box.run("journalctl", "--show-cursor", "-n", "0", "--no-pager").stdout.split("cursor: ")[-1].strip()
    answer = json.loads(box.run("python3", "-c", RESTORE, "restore", code).stdout)
    assert answer.get("cut") or (answer["restore"] == "pending" and answer["restart"] is True), answer
    box.wait_for("the daemon restarted on the backup", lambda s: s["SubState"] == "running"
                 and s["MainPID"] not in ("0", state["MainPID"]))
    assert box.show("Result")["Result"] == "success"  # a restart asked for, not a failure
    assert "restored the backup made" in box.journal("-u", UNIT, f"--after-cursor={cursor}")
    assert box.http("GET", "/api/scorepad")[1]["players"] == pad["players"]  # as it was in the backup
    box.run("rm", "/srv/backup.tar.gz")


UPLOAD = f"""
import http.cookiejar, json, re, sys, urllib.error, urllib.request
PIECE = 24 * 1024  # the page's pieces
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
def call(method, path, data=None, headers={{}}):
    request = urllib.request.Request("http://127.0.0.1:{PORT}" + path, method=method, data=data, headers=headers)
    try:
        with opener.open(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
path, key = sys.argv[1], sys.argv[2]
status, page = call("GET", "/maintenance/")
csrf = re.search(rb'name="csrf-token" content="([^"]+)"', page)[1].decode()
if key == "pin":  # a player's way in: the PIN
    headers = {{"X-Table-Pin": "{PIN}"}}
else:  # the owner's: the setup code, entered on the page as a phone enters it
    status, body = call("POST", "/api/setup/code", json.dumps({{"code": key}}).encode(),
                        {{"Content-Type": "application/json", "X-CSRF-Token": csrf}})
    assert status == 200, (status, body)
    headers = {{"X-CSRF-Token": csrf}}
data = open(path, "rb").read()
parts, upload = -(-len(data) // PIECE), None
for part in range(1, parts + 1):
    query = f"part={{part}}&parts={{parts}}&size={{len(data)}}" + (f"&upload={{upload}}" if upload else "")
    status, body = call("POST", "/api/maintenance/release?" + query, data[(part - 1) * PIECE:part * PIECE],
                        {{**headers, "Content-Type": "application/octet-stream"}})
    if status != 202:
        break
    upload = json.loads(body).get("upload", upload)
print(status)
print(body.decode())
"""


def release_file(box: Container, name: str, change: str) -> str:
    """A release file made here, as an owner downloads one, of the checkout with `change` appended to
    companion/cli/table.py and the wheels the container's table was installed from, pinned by hash; its path
    inside the container."""
    from companion.release_file import build_from

    folder = box.checkout / "uploads" / name
    shutil.rmtree(folder, ignore_errors=True)
    source = folder / "source"
    source.mkdir(parents=True)
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copy(ROOT / "README.md", source)
    shutil.copytree(ROOT / "companion", source / "companion", ignore=shutil.ignore_patterns("__pycache__"))
    with (source / "companion/cli/table.py").open("a") as f:
        f.write(change)
    # The lock, in this test's own few lines (not the builder's): each wheel by its version and hash.
    lock = folder / "requirements.txt"
    lock.write_text("".join(f"{w.name.split('-')[0]}=={w.name.split('-')[1]} "
                            f"--hash=sha256:{hashlib.sha256(w.read_bytes()).hexdigest()}\n"
                            for w in sorted(box.wheels.glob("*.whl"))))
    made = build_from(source, box.wheels, lock, folder)
    return f"{CHECKOUT}/{made.relative_to(box.checkout)}"


def upload(box: Container, path: str, key: str) -> tuple[int, dict]:
    status, _, body = box.run("python3", "-c", UPLOAD, path, key, timeout=300).stdout.partition("\n")
    return int(status), json.loads(body)


def update_status(box: Container, release: str) -> dict:
    """The update service's last status for `release`, once it has finished (done, rolled back or refused)."""
    deadline = time.monotonic() + 900
    while True:
        done = box.run("cat", "/var/lib/companion/update/status.json", check=False)
        status = json.loads(done.stdout) if done.returncode == 0 else {}
        if status.get("release") == release and status["state"] in ("done", "rolled_back", "refused"):
            return status
        if time.monotonic() > deadline:
            journal = box.journal("-u", "companion-update.service", "-n", "30")
            pytest.fail(f"the update of {release} did not finish: {status}\n{journal}")
        time.sleep(1)  # polling the service's file; the verdicts never depend on this interval


def test_a_release_uploaded_on_the_page_switches_with_no_network_and_a_broken_one_goes_back(host):
    """The whole way a card updates from a phone: a release file uploaded on the maintenance page with the owner's
    key, handed to the update service by its path unit, installed as root from the file's own hashed wheels in a
    container that has no network, the table switched; then a release whose daemon cannot start, rolled back."""
    box, _, _ = host
    kept = shows(box)
    before = release_of(box)
    good = release_file(box, "good", "\n\nUPLOADED = True  # this version's mark\n")
    broken = release_file(box, "broken", "\n\ndef cmd_run(args):  # this version's daemon cannot start\n"
                                         "    raise SystemExit(3)\n")
    assert box.run("ls", "/sys/class/net").stdout.split() == ["lo"]  # no network but the table's own loopback
    refused, answer = upload(box, good, "pin")
    assert refused == 403 and answer["code"] == "errors.owner_needed", answer
    # The table was never set up (the config of "try the service"): its setup is open, its code in the journal,
    # as on a fresh card.
    code = re.findall(r"enter the setup code (\S+)", box.journal("-u", UNIT))[-1]

    status, answer = upload(box, good, code)
    assert status == 202 and answer["update"] == "waiting", answer
    done = update_status(box, answer["release"])
    journal = box.journal("-u", "companion-update.service")
    print("an update uploaded on the page:\n" + journal, file=sys.stderr)
    assert done["state"] == "done", f"{done}\n{journal}"
    assert "offline, from its own hashed wheels" in journal and "the update is done" in journal
    assert release_of(box) == answer["release"] and release_of(box, "previous") == before
    marked = box.run("/opt/companion/current/bin/python", "-c", "import companion.cli.table as t; print(t.UPLOADED)")
    assert marked.stdout.strip() == "True"
    box.wait_for("the new version running", lambda s: (s["ActiveState"], s["SubState"]) == ("active", "running"))
    assert shows(box) == kept
    versions = box.http("GET", "/api/maintenance/release")[1]
    assert (versions["running"], versions["previous"]) == (answer["release"], before)

    status, answer = upload(box, broken, code)  # setup still open: the restarted table kept its code
    assert status == 202, answer
    done = update_status(box, answer["release"])
    assert done["state"] == "rolled_back", done
    assert release_of(box) == versions["running"]
    assert answer["release"] not in box.run("ls", "/opt/companion/releases").stdout  # the broken one pruned
    box.wait_for("the good version running again", lambda s: (s["ActiveState"], s["SubState"]) == ("active", "running"))
    assert box.http("GET", "/")[0] == 200 and shows(box) == kept
    assert box.run("test", "-e", "/var/lib/companion/update/release.tar", check=False).returncode != 0
    shutil.rmtree(box.checkout / "uploads")


def test_uninstall_then_purge_leave_nothing_behind(host):
    box, _, before = host
    box.run(f"{CHECKOUT}/systemd/install.sh", "--uninstall")
    assert box.show("LoadState")["LoadState"] == "not-found"
    assert box.run("test", "-e", "/opt/companion", check=False).returncode != 0
    assert box.run("test", "-f", "/etc/companion/config.toml", check=False).returncode == 0  # kept
    box.run(f"{CHECKOUT}/systemd/install.sh", "--uninstall", "--purge")
    assert box.run("getent", "passwd", "companion", check=False).returncode == 2
    for group in ("companion", "gpio", "spi"):
        assert box.run("getent", "group", group, check=False).returncode == 2, group
    left = files_outside_the_checkout(box) - before
    assert left == set(), f"left behind: {sorted(left)}"
