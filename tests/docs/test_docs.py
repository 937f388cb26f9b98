"""The documents' examples work as written."""

import re

from conftest import ROOT
from inline_commands import cli_parser, inline_commands, is_form, quoted
from shell_blocks import blocks, documents


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def test_the_scripting_example_plays_a_three_star_win(capsys):
    (code,) = python_blocks(ROOT / "docs" / "scripting.md")
    exec(compile(code, "docs/scripting.md", "exec"), {"__name__": "docs"})
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("win with 3 stars at ")
    assert printed in (ROOT / "docs" / "scripting.md").read_text()


def quoted_commands():
    """Every `companion …` command and `python FILE` quoted in a shell block or a sentence of the README, docs/
    and hw/ (both languages), as (document, the command's words)."""
    import shlex

    for path in documents(ROOT):
        for block in [*blocks(path), *inline_commands(path)[0]]:
            for line in block.text.replace("\\\n", " ").splitlines():
                for part in re.split(r"&&|\|\||;|\|", line.split(" #")[0]):
                    try:
                        words = shlex.split(part)
                    except ValueError:  # a quote that runs over into the next part: not a command of ours
                        continue
                    while words and (words[0] in ("sudo", "exec") or re.fullmatch(r"[A-Z_]+=\S*", words[0])):
                        words = words[1:]
                    if words and (words[0] == "companion" or words[0].endswith("/companion")
                                  or words[0] in ("python", "python3") and words[1:2] and words[1].endswith(".py")):
                        yield path.relative_to(ROOT), words


def test_every_command_the_docs_quote_is_one_the_program_takes():
    """A command a reader copies from the docs names a real subcommand with real options, and a script that is
    there: each is parsed by the program's own parser (nothing runs)."""
    from companion.cli import build_parser

    parser = build_parser()
    wrong = []
    for doc, words in quoted_commands():
        if words[0].startswith("python"):
            if not (ROOT / words[1]).exists():
                wrong.append(f"{doc}: {' '.join(words)}: no such file")
            continue
        try:
            parser.parse_args(words[1:])
        except SystemExit as e:
            if e.code:
                wrong.append(f"{doc}: {' '.join(words)}")
    assert wrong == []


def test_every_form_the_docs_quote_names_real_commands_and_options():
    """A command's form in a sentence (`companion history export FILE [--db FILE | --config FILE]`) is not run, but
    its subcommand and each of its options are the program's."""
    wrong = []
    for path in documents(ROOT):
        for command in (command for _, _, spans in quoted(path) for command, _ in spans):
            words = command.split()
            words = words[1:] if words[:1] == ["sudo"] else words
            if words[:1] != ["companion"] or words[1:] == ["…"] or not is_form(command):  # "…": any command
                continue
            parser = cli_parser()
            for word in words[1:]:
                commands = [a for a in parser._actions if a.choices and isinstance(a.choices, dict)]
                if not commands or word not in commands[0].choices:
                    break
                parser = commands[0].choices[word]
            known = {option for action in parser._actions for option in action.option_strings}
            unknown = [w for w in re.findall(r"(?<![\w-])--?[a-z][\w-]*", command) if w not in known]
            if parser.prog == "companion" or unknown:
                wrong.append(f"{path.relative_to(ROOT)}: {command}: {unknown or 'no such command'}")
    assert wrong == []
