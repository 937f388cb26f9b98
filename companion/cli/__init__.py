"""The `companion` command.

Each module of this package with a `register(subparsers)` function adds its
own commands (as Klipper's extras add their config sections), so a new part
of the house brings its commands with it. Every command exits 0 on success
and 2 on bad input, with one line on stderr that names the file, line or
field — never a traceback. A table that cannot start (no GPIO, a port in
use) exits 1, also with one line. A reader that goes away (`companion replay
LOG | head`) ends the command quietly, as it ends any Unix filter.
"""

import argparse
import importlib
import logging
import os
import signal
import sys

from companion.cli.common import Refusal
from companion.errors import BadInput, printable
from companion.notify import say_why_and_leave


def __getattr__(name: str):
    """The check-hw readout (used by tests and docs), imported when asked for: a command imports only what it
    uses, so `companion replay` never loads the table or the web."""
    if name == "readout":
        from companion.table.wiring import readout
        return readout
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Parser(argparse.ArgumentParser):
    """argparse's parser, its refusals one line (the usage is one `--help` away); each subcommand's too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {printable(message)} (see {self.prog} --help)\n")

    def parse_known_args(self, args=None, namespace=None):
        """The arguments, with `prog`: the command as typed down to its deepest subcommand ("companion geese
        simulate"), which its refusals then start with (the deepest parser answers first)."""
        namespace, extras = super().parse_known_args(args, namespace)
        if not hasattr(namespace, "prog"):
            namespace.prog = self.prog
        return namespace, extras


# The module of this package that registers each command. A command named on the command line loads its own
# module and no other, nor the other commands' parsers: a table's restart waits for every import, and `companion
# run` needs none of the geese tools or the updater. `companion --help` and a mistyped command load them all.
# tests/house/test_lean_commands.py holds this to what the modules register.
OWNERS = {
    "demo": "table", "run": "table", "backup": "backup", "restore": "backup", "check-hw": "wiring",
    "calibrate": "wiring", "geese": "geese", "hall": "hall", "history": "history", "hub": "hub",
    "replay": "replay", "score": "score", "setup": "setup", "update": "update",
}


def build_parser(owners: list[str] | None = None) -> argparse.ArgumentParser:
    """The `companion` parser with the commands of the modules `owners` names (every module's by default)."""
    parser = Parser(prog="companion", description="The hourglass table companion.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if owners is None:
        import pkgutil  # here: only the whole list needs it, and it loads `inspect` (milliseconds of a start)

        owners = [info.name for info in pkgutil.iter_modules(__path__)]
    modules = [importlib.import_module(f"{__name__}.{name}") for name in owners]
    for module in sorted(modules, key=lambda m: (getattr(m, "ORDER", 50), m.__name__)):  # the table's first
        if hasattr(module, "register"):
            module.register(sub)
    return parser


def parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """The parser `argv` needs: only its command's module when it names a known command first."""
    owner = OWNERS.get(argv[0]) if argv else None
    return build_parser([owner]) if owner else build_parser()


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    argv = sys.argv[1:] if argv is None else argv
    parser = parser_for(argv)
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # a reader gone is noticed here, not in the interpreter's exit
        return status
    except BrokenPipeError:
        # Nothing more reaches the reader: stdout goes to nowhere so that the exit's flush says nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE  # what a shell shows for a filter whose reader went away
    except (Refusal, BadInput) as e:
        line = f"{args.prog}: {e}"
        print(line, file=sys.stderr)
        say_why_and_leave(line)  # under systemd, `systemctl status` shows it
        return e.code if isinstance(e, Refusal) else 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
