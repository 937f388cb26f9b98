"""The table's setup code on the card's boot partition: copied there for the owner, and drawn anew when the
owner asks from the card alone (a forgotten PIN, no screen, no ssh).

A file `companion-reopen-setup.txt` on the boot partition (its content does not matter) asks the next boot to
reopen setup, as `companion setup --reopen` does: a new setup code, written back to the card, and the request
removed. On the setup page the owner enters that code and sets a new PIN.
"""

import logging
import subprocess
from pathlib import Path

from companion.table.firstrun import read_code

log = logging.getLogger(__name__)
REOPEN_FILE = "companion-reopen-setup.txt"
REOPEN_ERROR = "companion-reopen-setup-error.txt"
CODE_FILE = "companion-setup-code.txt"  # the owner's copy of the code, on the card
KEPT_CODE = Path("var/lib/companion/setup-code")  # where the table keeps its code (firstrun.KEPT_CODE_FILE)
COMMAND = "/usr/local/bin/companion"  # runs `setup` as the table's own user, so its files stay the table's
STATE = ("-o", "companion", "-g", "companion", "-m", "0750")  # the table's folder, as its unit's StateDirectory=


def show_code(kept: Path, card: Path) -> str:
    """The card's copy of the setup code made to match the table's own; what was done, in a line.

    The daemon may not write the boot partition (the firmware, the kernel and their settings are there): this
    step, as root, copies a code that reads as one (ten letters and digits, nothing else) or removes the copy.
    """
    code = read_code(kept)
    if code is None:
        if card.exists():
            card.unlink()
            return f"setup is closed: removed {card}"
        return "setup is closed: no code on the card"
    if read_code(card) == code:
        return f"{card} holds the setup code already"
    scratch = card.with_name(f".{card.name}.new")
    scratch.write_text(code + "\n", encoding="ascii")
    scratch.replace(card)
    return f"put the setup code on the card: {card}"


def reopen_if_asked(boot: Path, root: Path, run=subprocess.run) -> list[str]:
    """Setup reopened when the card asks for it; what was done, one line each (the code itself never logged)."""
    request = boot / REOPEN_FILE
    if not request.exists():
        return []
    if not (root / KEPT_CODE).parent.is_dir():
        # A table that never ran has no folder yet (its unit makes it at its first start): made here as it would be.
        run(("install", "-d", *STATE, str(Path("/") / KEPT_CODE.parent)), check=True, capture_output=True)
    done = run((COMMAND, "setup", "--reopen"), check=False, capture_output=True, text=True)
    if done.returncode != 0:
        why = (done.stderr or done.stdout or "").strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        (boot / REOPEN_ERROR).write_text(f"{REOPEN_FILE}: setup was not reopened: {why[0]}\n")
        log.error("setup was not reopened: %s", why[0])
        return [f"refused {REOPEN_FILE}: {why[0]}"]
    request.unlink()
    (boot / REOPEN_ERROR).unlink(missing_ok=True)
    return ["setup reopened as the card asked: a new setup code", show_code(root / KEPT_CODE, boot / CODE_FILE)]
