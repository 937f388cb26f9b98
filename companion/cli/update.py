"""`companion update SOURCE`: a new version beside the running one, kept only if it comes up.

The decisions are companion.appliance.update's; this is the machine they act
on: install.sh's layout under /opt/companion (each release a complete
environment, `current` and `previous` links), systemctl for the service and
its state, and the table's page over HTTP. A release file (companion.release_file)
is checked whole before anything of it reaches the releases folder, and
installs offline from its own hashed wheels. `--from-page` takes the release
the maintenance page handed over (companion.appliance.handover): what the
update service runs as root.
"""

import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from companion import release
from companion.appliance.update import Said
from companion.cli.common import Refusal

ORDER = 80  # place in `companion --help`: the owner's upkeep, last
HOME = Path("/opt/companion")
UNIT = "companion.service"
PAGE_TIMEOUT_S = 5.0  # one request to the page; the health's own timeout is the update's
# systemctl waits for the daemon to stop (the unit's own TimeoutStopSec, 90 s by default): never longer than this.
SYSTEMCTL_TIMEOUT_S = 180.0


class Machine:
    """This machine as an update acts on it (companion.appliance.update.System); `wheels`: a wheelhouse with its
    requirements.txt to install the new release's libraries from (else the running release's own, if it kept
    them)."""

    def __init__(self, config, home: Path = HOME, wheels: Path | None = None):
        self.config, self.home, self.wheels = config, home, wheels
        self.installed: str | None = None  # the release the source makes, once known

    # The program's releases (the one recipe install.sh runs too: companion.release).
    def current(self) -> str | None:
        return release.linked(self.home, "current")

    def previous(self) -> str | None:
        return release.linked(self.home, "previous")

    def install(self, source: str) -> str:
        path = Path(source).resolve()
        if path.suffix == ".tar":
            return self._install_release_file(path)
        if path.is_dir() and not (path / "pyproject.toml").is_file():
            raise Refusal(f"{path}: not a checkout of the program (no pyproject.toml)")
        wheels = self.wheels or release.own_wheels(self.home, self.current())
        with tempfile.TemporaryDirectory(prefix="companion-update-") as work:
            program = path if path.suffix == ".whl" or path.is_dir() else self._wheel(path, Path(work))
            version = _version(path) if path.is_dir() else program.name.split("-")[1]
            digest = release.source_digest(path) if path.is_dir() else release.file_digest(path)
            name = self.installed = f"{version}-{digest}"
            if (self.home / "releases" / name / release.RELEASE_MARK).is_file():
                self.say(Said.of("update.said.there", release=name))
                return name
            self.say(Said.of("update.said.installing_from", file=path.name, release=name, wheels=wheels) if wheels
                     else Said.of("update.said.installing", file=path.name, release=name))
            try:
                release.make_release(self.home, name, program, python=os.path.realpath(sys.executable),
                                     wheels=wheels)
            except release.ReleaseError as e:
                raise Refusal(f"{path}: {e}", code=1) from None
            return name

    def _install_release_file(self, path: Path) -> str:
        """A release file: every member checked against its list as it is copied into a work folder, then the
        release made from its own wheels, offline."""
        from companion.errors import BadInput
        from companion.release_file import read_release

        with tempfile.TemporaryDirectory(prefix="companion-update-") as work:
            try:
                checked = read_release(path, Path(work) / "release")
            except BadInput as e:
                raise Refusal(f"{path}: {e}") from None
            self.installed = checked.name
            if (self.home / "releases" / checked.name / release.RELEASE_MARK).is_file():
                self.say(Said.of("update.said.there", release=checked.name))
                return checked.name
            self.say(Said.of("update.said.installing_offline", file=path.name, release=checked.name))
            try:
                release.make_release(self.home, checked.name, checked.program,
                                     python=os.path.realpath(sys.executable), wheels=checked.wheels,
                                     requirements=checked.requirements)
            except release.ReleaseError as e:
                raise Refusal(f"{path}: {e}", code=1) from None
            return checked.name

    def _wheel(self, path: Path, work: Path) -> Path:
        """A source archive's wheel, built in `work` (a wheel or a checkout goes to the release as it is)."""
        try:
            return release.build_wheel(path, work, sys.executable) if path.is_dir() else self._build(path, work)
        except release.ReleaseError as e:
            raise Refusal(f"{path}: {e}", code=1) from None

    def _build(self, archive: Path, work: Path) -> Path:
        release.run(sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--timeout", release.PIP_NETWORK_S, "--wheel-dir", str(work / "wheel"), str(archive),
                    timeout=release.PIP_TIMEOUT_S)
        built = sorted((work / "wheel").glob("companion-*.whl"))
        if not built:
            raise Refusal(f"{archive}: no wheel of the companion program came out of it", code=1)
        return built[0]

    def switch(self, to: str, previous: str | None) -> None:
        if previous is not None and previous != to:
            release.point(self.home, "previous", previous)
        release.point(self.home, "current", to)

    def prune(self) -> None:
        for name in release.prune(self.home):
            self.say(Said.of("update.said.removed", release=name))

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

        try:
            done = subprocess.run(["systemctl", "show", UNIT, "--property=ActiveState", "--property=SubState",
                                   "--property=MainPID"], capture_output=True, text=True, timeout=PAGE_TIMEOUT_S)
        except subprocess.TimeoutExpired:  # a busy systemd: not ready as far as anyone can tell; asked again
            return Health(ready=False)
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

    def say(self, said: Said) -> None:
        print(f"companion update: {said}", flush=True)

    def _run(self, *command: str, check: bool = True) -> None:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=SYSTEMCTL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise Refusal(f"{' '.join(command[:3])} took longer than {SYSTEMCTL_TIMEOUT_S:g} s: stopped", code=1) \
                from None
        if check and done.returncode != 0:
            last = (done.stderr.strip() or done.stdout.strip() or "no message").splitlines()[-1]
            raise Refusal(f"{' '.join(command[:3])} failed: {last}", code=1)


class PageMachine(Machine):
    """The machine as the update service sees it: each line it says is also the status the page shows."""

    def say(self, said: Said) -> None:
        from companion.appliance.handover import tell

        super().say(said)
        tell(self.config.database.parent, "installing", self.installed, said)


def _version(checkout: Path) -> str:
    import tomllib

    try:
        return tomllib.loads((checkout / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError):
        raise Refusal(f"{checkout}/pyproject.toml: no [project] version in it") from None


def cmd_update(args) -> int:
    from companion.config import load_config

    if args.from_page == (args.source is not None):
        raise Refusal("give a release file, a wheel or a checkout to update from, or --from-page (not both)")
    if args.source is not None:
        source = Path(args.source)
        if not source.exists():
            raise Refusal(f"{source}: no such file or folder (a release file: .tar, .whl or .tar.gz, or a checkout)")
        if not (source.is_dir() or source.name.endswith((".tar", ".whl", ".tar.gz", ".zip"))):
            raise Refusal(f"{source}: not a release file (.tar, .whl, .tar.gz) nor a checkout folder")
    config = load_config(args.config)
    if os.geteuid() != 0:
        raise Refusal("an update switches the program and restarts the service: run it as root (sudo)", code=1)
    if args.from_page:
        return _from_page(config, args)
    return _update(Machine(config, wheels=args.wheels), str(source), args.timeout)


def _update(machine: Machine, source: str, timeout: float) -> int:
    from companion.appliance.update import NotInstalled, update

    try:
        outcome = update(machine, source, timeout=timeout)
    except NotInstalled as e:
        raise Refusal(str(e), code=1) from None
    machine.prune()  # a release that did not come up goes too: current and previous are the good ones
    return 1 if outcome.rolled_back else 0


def _from_page(config, args) -> int:
    """The release the maintenance page handed over, installed as any other; what happened told to the page."""
    from companion.appliance.handover import take, tell
    from companion.release_file import MAX_RELEASE_BYTES

    state = config.database.parent
    with tempfile.TemporaryDirectory(prefix="companion-update-") as work:
        try:
            dropped = take(state, Path(work), MAX_RELEASE_BYTES)
        except ValueError as e:
            tell(state, "refused", None, str(e))
            raise Refusal(str(e), code=1) from None
        if dropped is None:
            print("companion update: no release waits from the maintenance page")
            return 0
        machine = PageMachine(config)
        try:
            status = _update(machine, str(dropped), args.timeout)
        except Refusal as e:
            tell(state, "refused", machine.installed, str(e))
            raise
        if status:
            tell(state, "rolled_back", machine.installed, Said.of("update.said.old_up", old=machine.current()))
        else:
            tell(state, "done", machine.installed,
                 Said.of("update.said.done", new=machine.current(), old=machine.previous()))
        return status


def wheelhouse(text: str) -> Path:
    import argparse

    folder = Path(text)
    if not (folder / release.REQUIREMENTS).is_file():
        raise argparse.ArgumentTypeError(f"{text}: no {release.REQUIREMENTS} with the wheels' hashes in it")
    return folder.resolve()


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
    update.add_argument("source", metavar="SOURCE", nargs="?",
                        help="a release file (companion-VERSION.tar: the program and its hashed wheels, installed "
                             "offline), a wheel or source archive (.whl, .tar.gz), or a checkout folder")
    update.add_argument("--from-page", action="store_true",
                        help="install the release file the maintenance page handed over (what the update service "
                             "runs)")
    update.add_argument("--config", metavar="FILE", default="/etc/companion/config.toml",
                        help="the table's config (default /etc/companion/config.toml)")
    update.add_argument("--wheels", metavar="DIR", type=wheelhouse,
                        help="install the new release's libraries from these wheels, each checked against its hash "
                             "in DIR/requirements.txt (default: the running release's own, kept as it was installed)")
    update.add_argument("--timeout", metavar="S", type=positive_seconds, default=HEALTH_TIMEOUT_S,
                        help=f"seconds the new version has to be ready and answer (default {HEALTH_TIMEOUT_S:g})")
    update.set_defaults(func=cmd_update)
