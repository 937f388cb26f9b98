"""The build and install documents: in both languages, every link resolving, every install option real."""

import re
import subprocess

import pytest

from conftest import ROOT

PAGES = ["hw/ASSEMBLY", "docs/raspberry-pi", "docs/install"]
OTHERS = ["hw/README.md", "systemd/README.md"]


def every_page():
    return [f"{p}.md" for p in PAGES] + [f"{p}.ja.md" for p in PAGES] + OTHERS


def commands(text: str) -> list[str]:
    """The shell commands of a page's sh blocks, without their comments (which are translated)."""
    lines = [line for block in re.findall(r"```sh\n(.*?)```", text, re.S) for line in block.splitlines()]
    lines = [re.sub(r"\s+#.*", "", line).rstrip() for line in lines]
    return [re.sub(r"do_wifi_country [A-Z]{2}", "do_wifi_country CC", line) for line in lines]


@pytest.mark.parametrize("page", PAGES)
def test_each_page_has_a_japanese_twin_with_the_same_sections_and_commands(page):
    english, japanese = ((ROOT / f"{page}{lang}.md").read_text("utf-8") for lang in ("", ".ja"))
    heading = re.compile(r"^#{1,3} ", re.M)
    assert len(heading.findall(english)) == len(heading.findall(japanese))
    assert commands(english) and commands(english) == commands(japanese)


@pytest.mark.parametrize("page", every_page())
def test_every_link_resolves_inside_the_repository(page):
    path = ROOT / page
    for link in re.findall(r"\]\(([^)\s]+)\)", path.read_text("utf-8")):
        assert not link.startswith(("http:", "https:", "//")), f"{page}: {link} leaves the repository"
        target = link.split("#")[0]
        assert not target or (path.parent / target).exists(), f"{page}: {link}"


def test_every_install_option_the_docs_use_is_one_the_script_takes():
    helped = subprocess.run(["sh", str(ROOT / "systemd" / "install.sh"), "--help"], capture_output=True,
                            text=True, timeout=60)
    assert helped.returncode == 0
    known = set(re.findall(r"--[a-z]+", helped.stdout))
    used = set()
    for page in every_page():
        for line in re.findall(r"install\.sh[^\n`|]*", (ROOT / page).read_text("utf-8")):
            used |= set(re.findall(r"--[a-z]+", line))
    assert used and used <= known, used - known
