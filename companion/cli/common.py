"""What every command shares: one-line refusals and reading input files."""

import sys


class Refusal(Exception):
    """The command cannot go on; the message says why in one line (exit status `code`)."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def read_lines(path: str):
    """The lines of a file, or of stdin for '-'."""
    if path == "-":
        return sys.stdin.read().splitlines()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except OSError as e:
        raise Refusal(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise Refusal(f"{path}: not UTF-8 text") from None
