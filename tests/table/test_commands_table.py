"""The README's Commands table (English and Japanese) says what `--help` says: every subcommand, every option,
required ones bare and optional ones in brackets. On a difference the test prints the rows to paste."""

import argparse
import re

import pytest

from companion.cli import build_parser
from conftest import ROOT


def _option(action) -> str:
    flag = max(action.option_strings, key=len)
    return flag if action.nargs == 0 else f"{flag} {action.metavar or action.dest.upper()}"


def usages(parser: argparse.ArgumentParser, words: tuple[str, ...] = ("companion",)) -> list[str]:
    """Each command's whole usage, one line per command (a positional with choices: one line per choice; a command
    whose subcommand may be left out, such as `hall`, is a line of its own before its subcommands')."""
    below = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                below += usages(child, (*words, name))
            if action.required or len(words) == 1:
                return below
    heads = [list(words)]
    tail = []
    grouped = {a: g for g in parser._mutually_exclusive_groups for a in g._group_actions}
    shown = set()
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or action in shown:
            continue
        if not action.option_strings:
            if action.choices:
                heads = [[*h, str(choice)] for h in heads for choice in action.choices]
            else:
                heads = [[*h, action.metavar or action.dest.upper()] for h in heads]
        elif action in grouped:
            group = grouped[action]._group_actions
            shown.update(group)
            tail.append("[" + " \\| ".join(_option(a) for a in group) + "]")
        else:
            tail.append(_option(action) if action.required else f"[{_option(action)}]")
    return [" ".join(h + tail) for h in heads] + below


def table_usages(readme: str) -> list[str]:
    """The code spans that start with `companion` in the first column of the Commands table."""
    heading = {"README.md": "## Commands", "README.ja.md": "## コマンド"}[readme]
    text = (ROOT / readme).read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    found = []
    for row in section.splitlines():
        if row.startswith("| `companion"):
            first = re.split(r"(?<!\\)\|", row)[1]
            found += [span for span in re.findall(r"`([^`]+)`", first) if span.startswith("companion ")]
    return found


@pytest.mark.parametrize("readme", ["README.md", "README.ja.md"])
def test_the_commands_table_lists_every_command_and_option_as_help_does(readme):
    wanted = usages(build_parser())
    assert table_usages(readme) == wanted, "rows to paste:\n" + "\n".join(f"| `{u}` | |" for u in wanted)


def test_the_usages_follow_the_parser():
    parser = build_parser()
    assert "companion score geese FILE" in usages(parser)
    assert "companion history export FILE [--db FILE \\| --config FILE]" in usages(parser)
