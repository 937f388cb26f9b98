"""`companion update [SOURCE]`: a new version beside the running one, kept only if it comes up.

The decisions are companion.appliance.update's; this is the machine they act
on: install.sh's layout under /opt/companion (each release a complete
environment, `current` and `previous` links), systemctl for the service and
its state, and the table's page over HTTP.
"""

import hashlib
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from companion.cli.common import Refusal

ORDER = 80  # place in `companion --help`: the owner's upkeep, last
HOME = Path("/opt/companion")
UNIT = "companion.service"
RELEASE_MARK = "companion-release"  # written last into a release, as install.sh does
PAGE_TIMEOUT_S = 5.0  # one request to the page; the health's own timeout is the update's


def source_digest(folder: Path) -> str:
    """install.sh's digest of a checkout (the same files, the same sums), so both name a release alike."""
    lines = []
    for top in ("pyproject.toml", "companion"):
        start = folder / top
        paths = [start] if start.is_file() else sorted(p for p in start.rglob("*") if p.is_file())
        for path in paths:
            if path.suffix != ".pyc":
                lines.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(folder)}\n")
    return hashlib.sha256("".join(sorted(lines, key=str.encode)).encode()).hexdigest()[:12]


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


class Machine:
    """This machine as an update acts on it (companion.appliance.update.System)."""

    def __init__(self, config, home: Path = HOME):
        self.config, self.home = config, home

    # The program's releases.
    def current(self) -> str | None:
        link = self.home / "current"
        return os.readlink(link).rsplit("/", 1)[-1] if link.is_symlink() else None

    def install(self, source: str) -> str:
        path = Path(source).resolve()
        with tempfile.TemporaryDirectory(prefix="companion-update-") as work:
            wheel = self._wheel(path, Path(work))
            version = wheel.name.split("-")[1]
            digest = source_digest(path) if path.is_dir() else file_digest(path)
            release = f"{version}-{digest}"
            folder = self.home / "releases" / release
            if (folder / RELEASE_MARK).is_file():
                self.say(f"the release {release} is there already")
                return release
            self.say(f"installing {path.name} as the release {release}")
            subprocess.run(["rm", "-rf", str(folder)], check=True)  # half made by an update that stopped
            # The system's packages stay visible: Debian's python3-lgpio is the Pi's pin library.
            self._run(os.path.realpath(sys.executable), "-m", "venv", "--system-site-packages", str(folder))
            self._run(str(folder / "bin" / "python"), "-m", "pip", "--quiet", "--disable-pip-version-check",
                      "install", f"{wheel}[pi]")
            if not (folder / "bin" / "companion").exists():
                raise Refusal(f"{path}: the release {release} has no companion command: not this program", code=1)
            (folder / RELEASE_MARK).write_text(release + "\n")
            return release

    def _wheel(self, path: Path, work: Path) -> Path:
        """The program's wheel: the file itself, or one built from a checkout or source archive (in `work`,
        from a copy: the checkout gets no build/ nor egg-info)."""
        if path.suffix == ".whl":
            return path
        if path.is_dir():
            if not (path / "pyproject.toml").is_file():
                raise Refusal(f"{path}: not a checkout of the program (no pyproject.toml)")
            source = work / "source"
            source.mkdir()
            for part in ("pyproject.toml", "README.md", "setup.cfg", "setup.py", "MANIFEST.in", "LICENSE", "companion"):
                if (path / part).exists():
                    self._run("cp", "-RL", str(path / part), str(source))
            path = source
        self._run(sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
                  "--wheel-dir", str(work / "wheel"), str(path))
        wheels = sorted((work / "wheel").glob("companion-*.whl"))
        if not wheels:
            raise Refusal(f"{path}: no wheel of the companion program came out of it", code=1)
        return wheels[0]

    def switch(self, release: str) -> None:
        was = self.current()
        if was is not None and was != release:
            self._point("previous", was)
        self._point("current", release)

    def _point(self, name: str, release: str) -> None:
        """Point a link at a release in one step: a link made beside it, renamed over it."""
        new = self.home / f"{name}.new"
        new.unlink(missing_ok=True)
        new.symlink_to(f"releases/{release}")
        os.replace(new, self.home / name)

    def prune(self) -> None:
        """Releases neither current nor previous are taken away: a Pi's card is small."""
        keep = {os.readlink(self.home / n).rsplit("/", 1)[-1] for n in ("current", "previous")
                if (self.home / n).is_symlink()}
        for folder in sorted((self.home / "releases").iterdir()):
            if folder.name not in keep:
                subprocess.run(["rm", "-rf", str(folder)], check=True)
                self.say(f"removed the release {folder.name}")

    # The table's data.
    def back_up(self) -> str:
        from companion.appliance.backup import backup_name, backups_folder, keep_newest, make_backup

        folder = backups_folder(self.config.database)
        folder.mkdir(mode=0o700, exist_ok=True)
        target = folder / backup_name(time.time())
        data = make_backup(self.config.path, self.config.database)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        keep_newest(folder)
        return str(target)

    def database_version(self) -> int | None:
        from companion.records.copies import file_version

        return file_version(self.config.database)

    def restore_database(self, backup: str) -> None:
        from dataclasses import replace

        from companion.appliance.backup import read_backup, restore

        checked = read_backup(Path(backup).read_bytes())
        restore(replace(checked, config=None), self.config.path, self.config.database)

    # The service.
    def stop(self) -> None:
        self._run("systemctl", "stop", UNIT)

    def start(self) -> None:
        self._run("systemctl", "reset-failed", UNIT, check=False)  # the restarts counted afresh
        self._run("systemctl", "start", "--no-block", UNIT)

    def health(self):
        from companion.appliance.update import Health

        done = subprocess.run(["systemctl", "show", UNIT, "--property=ActiveState", "--property=SubState",
                               "--property=MainPID"], capture_output=True, text=True, timeout=30)
        state = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        ready = (state.get("ActiveState"), state.get("SubState")) == ("active", "running")
        pid = int(state.get("MainPID") or 0)
        return Health(ready=ready, pid=pid, page=ready and self._page_answers(),
                      failed=state.get("ActiveState") == "failed")

    def _page_answers(self) -> bool:
        host = self.config.web.host
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, f"[{host}]" if ":" in host else host)
        try:
            with urllib.request.urlopen(f"http://{host}:{self.config.web.port}/", timeout=PAGE_TIMEOUT_S) as answer:
                return answer.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def monotonic(self) -> float:
        return time.monotonic()

    def pause(self, seconds: float) -> None:
        time.sleep(seconds)

    def say(self, line: str) -> None:
        print(f"companion update: {line}", flush=True)

    def _run(self, *command: str, check: bool = True) -> None:
        done = subprocess.run(command, capture_output=True, text=True)
        if check and done.returncode != 0:
            last = (done.stderr.strip() or done.stdout.strip() or "no message").splitlines()[-1]
            raise Refusal(f"{' '.join(command[:3])} failed: {last}", code=1)


def cmd_update(args) -> int:
    from companion.appliance.update import NotInstalled, update
    from companion.config import load_config

    source = Path(args.source)
    if not source.exists():
        raise Refusal(f"{source}: no such file or folder (a release file: .whl or .tar.gz, or a checkout)")
    if not (source.is_dir() or source.name.endswith((".whl", ".tar.gz", ".zip"))):
        raise Refusal(f"{source}: not a release file (.whl, .tar.gz) nor a checkout folder")
    config = load_config(args.config)
    if os.geteuid() != 0:
        raise Refusal("an update switches the program and restarts the service: run it as root (sudo)", code=1)
    machine = Machine(config)
    try:
        outcome = update(machine, str(source), timeout=args.timeout)
    except NotInstalled as e:
        raise Refusal(str(e), code=1) from None
    if outcome.switched:
        machine.prune()
    return 1 if outcome.rolled_back else 0


def positive_seconds(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text[:20]!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 3600, got {text[:20]!r}")
    return value


def register(sub) -> None:
    from companion.appliance.update import HEALTH_TIMEOUT_S

    update = sub.add_parser("update", help="install a new version beside the running one; go back if it does not "
                                           "come up")
    update.add_argument("source", metavar="SOURCE", help="a release file (.whl, .tar.gz) or a checkout folder")
    update.add_argument("--config", metavar="FILE", default="/etc/companion/config.toml",
                        help="the table's config (default /etc/companion/config.toml)")
    update.add_argument("--timeout", metavar="S", type=positive_seconds, default=HEALTH_TIMEOUT_S,
                        help=f"seconds the new version has to be ready and answer (default {HEALTH_TIMEOUT_S:g})")
    update.set_defaults(func=cmd_update)
