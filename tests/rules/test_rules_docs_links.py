"""Every document the project names is one it contains."""

import re
import subprocess

from conftest import ROOT

MENTION = re.compile(r"(?<![\w/.{}-])((?:\.\./)*[\w-][\w./-]*\.md)\b")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".html", ".js", ".json", ".service", ".txt", ".css", ""}


def tracked_files() -> list[str]:
    done = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return [line for line in done.stdout.splitlines() if (ROOT / line).is_file()]


def test_every_markdown_file_named_in_the_repo_is_in_the_repo():
    files = tracked_files()
    names = {f.rsplit("/", 1)[-1] for f in files}
    missing = []
    for name in files:
        path = ROOT / name
        if path.suffix not in TEXT_SUFFIXES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for mention in MENTION.findall(text):
            here = (path.parent / mention).resolve()
            if not (here.is_file() or (ROOT / mention).is_file() or ("/" not in mention and mention in names)):
                missing.append(f"{name}: {mention}")
    assert missing == []


def test_the_rules_and_formats_come_in_english_and_japanese():
    for doc in ("rules", "formats"):
        assert (ROOT / "docs" / f"{doc}.md").is_file() and (ROOT / "docs" / f"{doc}.ja.md").is_file()
