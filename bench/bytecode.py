"""The environment a bench starts a server or a command in: reading compiled bytecode, as a table does.

pip compiles a release as it installs it, so a table's processes read its
modules compiled. A checkout run in place where bytecode is not written
(PYTHONDONTWRITEBYTECODE) would compile every module of the product at each
start, and none of the libraries a floor imports, which come compiled. The
cache is the bench's own (PYTHONPYCACHEPREFIX), filled by the first start.
"""

import os
from pathlib import Path


def compiled_env(folder: Path, root: Path) -> dict:
    """os.environ with `root` on the path and a bytecode cache under `folder` that the first start fills."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPATH": str(root), "PYTHONPYCACHEPREFIX": str(folder / "bytecode")}
