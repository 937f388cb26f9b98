"""Why a file the owner put on the card was not used, kept where the table's own screen can say it.

First boot (root) writes the reason beside the refused file on the boot
partition, where the owner who made it looks; but that partition is root's
alone, so the reason is also kept here, in the table's state folder, for
the kiosk to show in the owner's language: the refusal's catalogue code
and its values, and its English line for a reader that has no catalogue.
A file used at a later boot takes its note away.

>>> import tempfile; from companion.errors import BadInput
>>> folder = Path(tempfile.mkdtemp())
>>> keep(folder, "companion-wifi.txt", BadInput("companion-wifi.txt", "not UTF-8", code="errors.wifi.encoding",
...                                                params={"byte": 5}))
>>> [(n["file"], n["code"], n["params"]) for n in read(folder)]
[('companion-wifi.txt', 'errors.wifi.encoding', {'byte': '5'})]
>>> drop(folder, "companion-wifi.txt"); read(folder)
[]
"""

import json
import logging
import os
from pathlib import Path

from companion import fields, jsonin
from companion.appliance import bootfiles
from companion.errors import BadInput

log = logging.getLogger(__name__)

STATE = Path("var/lib/companion")  # under the system's root: the table's folder, its database beside the notes
NOTES = "card-refusals.json"
CARD_FILES = (bootfiles.WIFI_FILE, bootfiles.NAME_FILE, bootfiles.IMAGER_SETTINGS, bootfiles.SSH_FILES[0],
              bootfiles.AUTHORIZED_KEYS)  # the files a note may be about
MAX_NOTES_BYTES = 16 * 1024  # a note per card file, each a line and a few values: far below this (and bounds them)
LINE = 300  # a refusal's English line, or its code, as long as it may be read back


def _notes(folder: Path) -> dict:
    try:
        return {note["file"]: note for note in read(folder)}
    except OSError:
        return {}


def _write(folder: Path, notes: dict) -> None:
    path = folder / NOTES
    if not notes:
        path.unlink(missing_ok=True)
        return
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(list(notes.values()), ensure_ascii=False) + "\n", encoding="utf-8")
    os.chmod(temporary, 0o644)  # root writes it; the table's user reads it
    temporary.replace(path)


def keep(folder: Path, file: str, reason: BadInput) -> None:
    """Keep why `file` of the card was refused (nothing if the folder is not there: no table installed)."""
    if not folder.is_dir():
        return
    notes = _notes(folder)
    notes[file] = {"file": file, "code": getattr(reason, "error_code", "errors.bad_input"),
                   "params": reason.params, "error": str(reason)}
    _write(folder, notes)


def drop(folder: Path, file: str) -> None:
    """`file` of the card was used: its note goes."""
    notes = _notes(folder)
    if notes.pop(file, None) is not None:
        _write(folder, notes)


def read(folder: Path | None) -> list[dict]:
    """The notes kept in `folder`, each checked as any outside value is; none for a file that does not read."""
    path = folder / NOTES if folder is not None else None
    if path is None or not path.is_file():
        return []
    try:
        if path.stat().st_size > MAX_NOTES_BYTES:
            raise BadInput(NOTES, f"larger than {MAX_NOTES_BYTES} bytes", code="errors.too_long",
                           params={"limit": MAX_NOTES_BYTES})
        notes = fields.items(jsonin.parse(path.read_bytes(), NOTES), NOTES, 0, len(CARD_FILES))
        return [_note(note, fields.at(NOTES, i)) for i, note in enumerate(notes)]
    except BadInput as e:
        log.warning("the card's notes were not read: %s", e)
        return []


def _note(value, where: str) -> dict:
    note = fields.record(value, where, ("file", "code", "params", "error"), ("file", "code", "params", "error"))
    params = fields.mapping(note["params"], fields.at(where, "params"))
    return {"file": fields.choice(note["file"], fields.at(where, "file"), CARD_FILES),
            "code": fields.line(note["code"], fields.at(where, "code"), LINE),
            # Each value only fills a slot of the catalogue's sentence: read back as the text it is shown as.
            "params": {fields.line(k, fields.at(where, "params"), LINE): fields.line(str(v), fields.at(where, "params"),
                                                                                    LINE)
                       for k, v in params.items()},
            "error": fields.line(note["error"], fields.at(where, "error"), LINE)}

