"""What every command shares: one-line refusals and reading input files."""

import sys

from companion.errors import printable


class Refusal(Exception):
    """The command cannot go on; the message says why in one line (exit status `code`)."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(printable(message))  # one line, whatever the file or field it names holds
        self.code = code


def read_lines(path: str):
    """The lines of a file, or of stdin for '-', split at `\n` only (other line breaks are text)."""
    from companion.skyrockets.log import split_lines

    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
        return split_lines(data.decode("utf-8"))
    except OSError as e:
        raise Refusal(f"{path}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise Refusal(f"{path}: not UTF-8 text (byte {e.start + 1})") from None
