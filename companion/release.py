"""The program's releases under /opt/companion, one recipe for `systemd/install.sh` and `companion update`.

Each version is a release of its own: a complete environment in
`releases/VERSION-DIGEST`, marked complete last (RELEASE_MARK); `current`
is the one the unit runs and `previous` the way back, both relative links
changed in one step; releases that are neither are taken away. The digest
names a checkout by the files the program is made of (links followed, as
the wheel is built: the firmware and the pin map are links into the
checkout), so the same source is the same release whoever installs it.

A release is installed from a wheelhouse and its hashed requirements when
there is one (offline: every library checked against its hash, then the
program alone) and keeps a copy of both, so the next `companion update`
installs offline from the running release's own wheels. Without one,
pip fetches the program's dependencies (a laptop's first install).

It uses the standard library alone, so install.sh runs it from the checkout
before anything is installed: `python3 companion/release.py digest SOURCE`.
Every step that runs another program has a time limit: a pip that waits for
a network that is not there ends, and says so, rather than hang an update.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "pyproject.toml").write_text("[project]\\n") and (folder / "companion").mkdir()
>>> len(source_digest(folder))
12
"""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

RELEASE_MARK = "companion-release"  # written last into a release: a folder without it is half made
WHEELHOUSE = "wheels"  # inside a release: the hashed wheels it was installed from, for the next update
REQUIREMENTS = "requirements.txt"  # the hashes, beside the wheels (as the image's wheelhouse has them)
PROGRAM_FILES = ("pyproject.toml", "companion")  # what the digest covers
BUILD_FILES = ("pyproject.toml", "README.md", "setup.cfg", "setup.py", "MANIFEST.in", "LICENSE", "companion")
VENV_TIMEOUT_S = 300.0  # a new environment on a Pi Zero 2 W's card takes a minute or two
PIP_TIMEOUT_S = 1200.0  # building or installing every library on the slowest Pi, with room
PIP_NETWORK_S = "30"  # pip's own wait for a server that does not answer (a table with no internet)


class ReleaseError(Exception):
    """A step of making a release failed: the message says which, in one line."""


def source_digest(folder: Path) -> str:
    """The first 12 hex digits of the SHA-256 of the program's files in a checkout, links followed.

    Each file gives a line `SHA256  PATH` (sha256sum's); the lines are sorted as bytes and hashed."""
    folder = Path(folder)
    lines = []
    for top in PROGRAM_FILES:
        for path in _files(folder / top):
            if path.suffix != ".pyc":
                lines.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(folder)}\n")
    return hashlib.sha256("".join(sorted(lines, key=str.encode)).encode()).hexdigest()[:12]


def _files(start: Path) -> list[Path]:
    if start.is_file():
        return [start]
    found = []
    for where, _, names in os.walk(start, followlinks=True):
        found.extend(p for p in (Path(where) / name for name in names) if p.is_file())
    return found


def file_digest(path: Path) -> str:
    """A release file's digest (a wheel or a source archive): its bytes' SHA-256, 12 hex digits."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


def run(*command: str, timeout: float) -> None:
    """Run a step, within `timeout`; ReleaseError with its last line if it fails or takes longer."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ReleaseError(f"{' '.join(command[:4])} took longer than {timeout:g} s: stopped") from None
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip() or "no message").splitlines()
        errors = [line for line in said if line.startswith("ERROR:")]  # pip's reason, above its details
        raise ReleaseError(f"{' '.join(command[:4])} failed: {(errors or said)[-1].strip()}")


def build_wheel(source: Path, work: Path, python: str, wheels: Path | None = None) -> Path:
    """The program's wheel built from a copy of a checkout in `work` (the checkout gets no build/ nor egg-info);
    its build tools from `wheels` when given (offline)."""
    copy = Path(work) / "source"
    copy.mkdir(parents=True)
    for part in BUILD_FILES:
        if (Path(source) / part).is_dir():
            shutil.copytree(Path(source) / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
        elif (Path(source) / part).exists():
            shutil.copy(Path(source) / part, copy / part)
    found = ["--no-index", "--find-links", str(wheels)] if wheels else []
    run(python, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--timeout", PIP_NETWORK_S,
        "--no-deps", *found, "--wheel-dir", str(Path(work) / "wheel"), str(copy), timeout=PIP_TIMEOUT_S)
    built = sorted((Path(work) / "wheel").glob("companion-*.whl"))
    if not built:
        raise ReleaseError(f"{source}: no wheel of the companion program came out of it")
    return built[0]


def make_release(home: Path, release: str, program: Path, *, python: str, wheels: Path | None = None,
                 requirements: Path | None = None) -> Path:
    """The release `release` made in home/releases from `program` (a wheel, or a checkout whose wheel the new
    environment builds) and the wheelhouse, when given; its folder."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="companion-release-") as work:
        return _make(Path(home), release, Path(program), Path(work), python, wheels, requirements)


def _make(home: Path, release: str, program: Path, work: Path, python: str, wheels: Path | None,
          requirements: Path | None) -> Path:
    folder = home / "releases" / release
    if folder.is_dir() and not (folder / RELEASE_MARK).is_file():
        shutil.rmtree(folder)  # half made by a run that stopped: made again from nothing
    folder.parent.mkdir(parents=True, exist_ok=True)
    # The system's packages stay visible: Debian's python3-lgpio is the Pi's pin library.
    run(python, "-m", "venv", "--system-site-packages", str(folder), timeout=VENV_TIMEOUT_S)
    wheel = program if program.suffix == ".whl" else build_wheel(program, work, str(folder / "bin" / "python"), wheels)
    pip = (str(folder / "bin" / "python"), "-m", "pip", "--quiet", "--disable-pip-version-check",
           "--timeout", PIP_NETWORK_S, "install")
    if wheels is not None:
        requirements = Path(requirements or Path(wheels) / REQUIREMENTS)
        # Every library from the wheelhouse, each checked against its hash; then the program alone, by name
        # from the wheel's folder, so the release records no build's temporary path and the same source
        # installs as the same files.
        run(*pip, "--no-index", "--find-links", str(wheels), "--require-hashes", "-r", str(requirements),
            timeout=PIP_TIMEOUT_S)
        run(*pip, "--no-index", "--no-deps", "--find-links", str(Path(wheel).parent), "companion",
            timeout=PIP_TIMEOUT_S)
        kept = folder / WHEELHOUSE
        kept.mkdir(exist_ok=True)
        for each in Path(wheels).glob("*.whl"):
            shutil.copy(each, kept / each.name)
        shutil.copy(requirements, kept / REQUIREMENTS)
    else:
        run(*pip, f"{wheel}[pi]", timeout=PIP_TIMEOUT_S)
    if not (folder / "bin" / "companion").exists():
        raise ReleaseError(f"the release {release} has no companion command: not this program")
    (folder / RELEASE_MARK).write_text(release + "\n")
    return folder


def own_wheels(home: Path, release: str | None) -> Path | None:
    """The wheelhouse a release kept (None: it was installed without one)."""
    kept = Path(home) / "releases" / str(release) / WHEELHOUSE
    return kept if release and (kept / REQUIREMENTS).is_file() else None


def linked(home: Path, name: str) -> str | None:
    """The release a link of `home` points at (`current`, `previous`), or None."""
    link = Path(home) / name
    return os.readlink(link).rsplit("/", 1)[-1] if link.is_symlink() else None


def point(home: Path, name: str, release: str) -> None:
    """Point the link `name` of `home` at a release in one step: a link made beside it, renamed over it."""
    new = Path(home) / f"{name}.new"
    new.unlink(missing_ok=True)
    new.symlink_to(f"releases/{release}")
    os.replace(new, Path(home) / name)


def prune(home: Path) -> list[str]:
    """Take away the releases neither current nor previous (a Pi's card is small); their names."""
    keep = {linked(home, "current"), linked(home, "previous")}
    gone = []
    releases = Path(home) / "releases"
    for folder in sorted(releases.iterdir()) if releases.is_dir() else []:
        if folder.name not in keep:
            shutil.rmtree(folder)
            gone.append(folder.name)
    return gone


def main(argv: list[str]) -> int:
    """install.sh's way in: digest SOURCE | make HOME RELEASE SOURCE PYTHON [WHEELS REQUIREMENTS]
    | point HOME NAME RELEASE | prune HOME. A failure is one line on stderr, exit 2."""
    try:
        match argv:
            case ["digest", source]:
                print(source_digest(Path(source)))
            case ["make", home, release, source, python, *wheelhouse] if len(wheelhouse) in (0, 2):
                wheels, requirements = (Path(wheelhouse[0]), Path(wheelhouse[1])) if wheelhouse else (None, None)
                make_release(Path(home), release, Path(source), python=python, wheels=wheels,
                             requirements=requirements)
            case ["point", home, name, release]:
                point(Path(home), name, release)
            case ["prune", home]:
                for name in prune(Path(home)):
                    print(f"removed the release {name}")
            case _:
                raise ReleaseError(f"not a step: {' '.join(argv)} (digest, make, point or prune)")
    except (ReleaseError, OSError) as e:
        print(f"release.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
