"""The hub's user docs: both languages, the same steps, and the links and names they promise."""

import re

from conftest import ROOT

EN = (ROOT / "docs" / "hub.md").read_text(encoding="utf-8")
JA = (ROOT / "docs" / "hub.ja.md").read_text(encoding="utf-8")


def code_blocks(text: str) -> list[str]:
    return re.findall(r"```\w*\n(.*?)```", text, re.S)


def commands(text: str) -> list[str]:
    return [line for block in code_blocks(text) for line in block.splitlines() if line.startswith((".venv", "["))]


def test_both_languages_have_the_same_sections_and_commands():
    assert len(re.findall(r"^#+ ", EN, re.M)) == len(re.findall(r"^#+ ", JA, re.M))
    assert commands(EN) == commands(JA) and commands(EN)


def test_every_link_points_at_a_file_of_the_project():
    for text in (EN, JA):
        for target in re.findall(r"\]\(([^)#]+)\)", text):
            assert (ROOT / "docs" / target).resolve().is_file(), target


def test_the_docs_name_every_firmware_file_to_copy():
    files = sorted(p.name for p in (ROOT / "firmware").glob("*.py"))
    for text in (EN, JA):
        for name in files:
            assert f"`{name}`" in text, name


def test_the_led_table_has_a_row_for_every_pattern_of_the_firmware_plus_starting_failed_broken_and_off():
    from companion.hardware.firmware import firmware_module

    patterns = firmware_module("hubcore").LED_PATTERNS
    flashes = firmware_module("hubstart").FAILED_PATTERN[2]
    for text, heading, failed in ((EN, "## The status LED", "three short flashes"), (JA, "## 状態 LED", "短く 3 回")):
        section = text.split(heading, 1)[1].split("\n## ", 1)[0]
        rows = [line for line in section.splitlines() if line.startswith("|")]
        assert len(rows) - 2 == len(patterns) + 4, heading  # less the header and its rule; starting, failed,
        # a broken firmware file (code.py's own BROKEN_BLINK) and off
        assert failed in section and flashes == 3 and "hub_error.txt" in section


def test_the_docs_state_the_circuitpython_version_the_firmware_checks_for():
    from companion.hardware.firmware import firmware_module

    major, minor, _ = firmware_module("hubstart").CIRCUITPYTHON
    assert f"CircuitPython **{major}.{minor} or later**" in EN
    assert f"**{major}.{minor} 以降**の CircuitPython" in JA


def test_the_walk_through_uses_the_fakes_own_device_path():
    from companion.hardware.hub_fake import DEMO_LINK

    example = (ROOT / "docs" / "hub.example.toml").read_text(encoding="utf-8")
    assert f'port = "{DEMO_LINK}"' in example or DEMO_LINK.name in example
    assert f"hub on /tmp/{DEMO_LINK.name}" in EN and f"hub on /tmp/{DEMO_LINK.name}" in JA


def test_the_sanity_window_is_described_as_the_rules_apply_it():
    from companion.skyrockets.beams import WINDOW_MIN_S, WINDOW_SHARE

    assert f"{WINDOW_MIN_S:g} seconds, or {WINDOW_SHARE * 100:g} %" in EN
    assert f"{WINDOW_MIN_S:g} 秒、または砂時計の {WINDOW_SHARE * 100:g} %" in JA


def test_the_example_config_mixes_hub_tilt_and_emulated_glasses_on_the_fakes_device():
    from companion.config import load_config
    from companion.hardware.hub_fake import DEMO_LINK

    config = load_config(ROOT / "docs" / "hub.example.toml")
    assert config.hub.port == str(DEMO_LINK)
    assert {t.source for t in config.timers.values()} == {"hub", "tilt", "emulated"}


def test_the_docs_give_the_window_and_the_waits_the_code_uses():
    from companion.hardware.firmware import firmware_module
    from companion.hardware.hub import RESEND_WAIT_S
    from companion.hardware.hub_link import HELLO_EVERY_S, HELLO_TRIES, SILENCE_S

    window = firmware_module("hubcore").RESEND_WINDOW
    protocol = (ROOT / "firmware" / "PROTOCOL.md").read_text(encoding="utf-8")
    protocol_ja = (ROOT / "firmware" / "PROTOCOL.ja.md").read_text(encoding="utf-8")
    assert (HELLO_EVERY_S, HELLO_TRIES, SILENCE_S) == (2.0, 3, 2.0)  # as the tables below say them
    assert f"last {window} frames" in EN and f"最後の {window} フレーム" in JA
    assert f"`resend={window}`" in protocol and f"`resend={window}`" in protocol_ja
    assert f"asks again {RESEND_WAIT_S[0]:g} s later" in protocol and f"every {RESEND_WAIT_S[1]:g} s" in protocol
    assert f"{RESEND_WAIT_S[0]:g}秒後" in protocol_ja and f"{RESEND_WAIT_S[1]:g}秒ごと" in protocol_ja
    for text in (protocol, protocol_ja):
        assert "after two tries" not in text and "2回頼んでだめなら" not in text
