"""The firmware's pure modules under a real MicroPython: the same results as under CPython, line for line.

MicroPython's WebAssembly build runs under Node. It is looked for in
$COMPANION_MICROPYTHON_WASM, else in ~/.cache/companion/micropython-wasm
(where `npm install --prefix ~/.cache/companion/micropython-wasm
@micropython/micropython-webassembly-pyscript` puts it). Without it the test
is skipped, unless COMPANION_REQUIRE_TOOLS=1 says every tool must be there.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.hardware.firmware import firmware_folder

FIRMWARE = firmware_folder()  # the board's source, as the package ships it

CHECKS = Path(__file__).with_name("mp_checks.py")
PACKAGE = "@micropython/micropython-webassembly-pyscript"
PURE = ("hubframe", "hubcore", "hubtilt", "huborient", "hubbeam", "hubstart", "hubpins")

RUNNER = """
import { readFileSync } from "node:fs";
const [pkg, folder, ...files] = process.argv.slice(2);
const { loadMicroPython } = await import(pkg + "/micropython.mjs");
const lines = [];
const mp = await loadMicroPython({ stdout: (line) => lines.push(line), stderr: (line) => lines.push(line) });
mp.FS.mkdir("/fw");
for (const name of files) mp.FS.writeFile("/fw/" + name, readFileSync(folder + "/" + name));
try {
  mp.runPython("import sys, os\\nsys.path.insert(0, '/fw')\\nos.chdir('/fw')\\nprint('impl: ' + sys.implementation.name)\\nexec(open('mp_checks.py').read())");
} catch (error) {
  lines.push(String(error.message));
}
process.stdout.write(lines.join("\\n") + "\\n");
"""


def micropython_package() -> Path | None:
    roots = [os.environ.get("COMPANION_MICROPYTHON_WASM"), Path.home() / ".cache" / "companion" / "micropython-wasm"]
    for root in filter(None, roots):
        for candidate in (Path(root), Path(root) / "node_modules" / PACKAGE):
            if (candidate / "micropython.mjs").is_file():
                return candidate
    return None


@pytest.fixture(scope="module")
def micropython():
    package, node = micropython_package(), shutil.which("node")
    if package is None or node is None:
        missing = "node" if node is None else f"{PACKAGE} (npm install --prefix ~/.cache/companion/micropython-wasm {PACKAGE})"
        if os.environ.get("COMPANION_REQUIRE_TOOLS") == "1":
            pytest.fail(f"MicroPython's WebAssembly build is required (COMPANION_REQUIRE_TOOLS=1): {missing} missing")
        pytest.skip(f"MicroPython's WebAssembly build is not installed: {missing}")
    return node, package


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fw")
    for name in PURE:
        shutil.copy(FIRMWARE / f"{name}.py", folder)
    shutil.copy(FIRMWARE / "vectors.json", folder)
    shutil.copy(CHECKS, folder)
    return folder


def under_cpython(folder: Path) -> list[str]:
    done = subprocess.run([sys.executable, "mp_checks.py"], cwd=folder, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(folder)})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def under_micropython(micropython, folder: Path) -> list[str]:
    node, package = micropython
    runner = folder / "run.mjs"
    runner.write_text(RUNNER, encoding="utf-8")
    files = [p.name for p in folder.iterdir() if p.suffix in (".py", ".json")]
    done = subprocess.run([node, str(runner), package.as_uri(), str(folder), *files], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_pure_firmware_gives_the_same_results_under_micropython(micropython, folder):
    expected = under_cpython(folder)
    got = under_micropython(micropython, folder)
    assert got[0] == "impl: micropython", got[:5]
    assert got[1:] == expected
    assert expected[-1] == "done" and len(expected) > 40
    assert "resend vector: True" in expected
    assert "resend across the wrap: [True, True, True, b'snap']" in expected
    assert "cut record: True" in expected  # a long failure's record reads back, whole characters only
    assert ("boot: [('pending', 'written', [False, True], True), ('cleared', None, [False, True], False), "
            "('cleared', None, [False, True], False), ('pending', 'pending', [False, True], False)]") in expected
