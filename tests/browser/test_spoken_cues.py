"""Spoken cues, the live log and the status lines of the show's pages: what a phone says and writes.

The table runs on a clock that moves only when the test moves it, so each milestone happens when the
test says. The phone's voice is a stand-in for `window.speechSynthesis`, installed before the page
loads: it records each utterance's text, language and voice, and says it until the test ends it.
"""

import json
from dataclasses import replace

import pytest

from companion.clock import FakeClock
from companion.config import demo_config
from companion.hardware.mock import mock_pin_factory
from companion.records import Store
from companion.table import Table, demo_table

from .accessibility import no_axe_violations
from .conftest import api

# A voice that speaks until the test calls __speech.finish(); cancel() ends it with an error event, as
# browsers do. `overlaps` counts utterances started while another was in flight; <html data-said> how
# many were started (for expect() to wait on: the page's CSP forbids the eval of wait_for_function).
SPEECH = """
(() => {
  const voices = %s;
  const record = { said: [], overlaps: 0, cancels: 0 };
  let talking = null;
  window.SpeechSynthesisUtterance = class extends EventTarget {
    constructor(text) { super(); this.text = text; this.lang = ""; this.voice = null; }
  };
  const stop = (kind) => { const u = talking; talking = null; u.dispatchEvent(new Event(kind)); };
  const synth = {
    getVoices: () => voices,
    speak(u) {
      if (talking) record.overlaps += 1;
      talking = u;
      record.said.push({ text: u.text, lang: u.lang, voice: u.voice ? u.voice.name : null });
      document.documentElement.dataset.said = record.said.length;
    },
    cancel() { if (talking) { record.cancels += 1; stop("error"); } },
  };
  Object.defineProperty(window, "speechSynthesis", { value: synth, configurable: true });
  window.__speech = Object.assign(record, {
    finish() { if (talking) stop("end"); },
  });
})();
"""
ONLINE_US = {"name": "US English (online)", "lang": "en-US", "localService": False}  # needs the internet
DANIEL = {"name": "Daniel", "lang": "en-GB", "localService": True}
KYOKO = {"name": "Kyoko", "lang": "ja-JP", "localService": True}

# What the page says, as docs/phones.md lists it, and the voice it picks: one on the phone in the page's
# language; with none (Japanese on a phone with English voices only) the phone's own choice for `lang`.
WORDS = {
    "en": {"voices": [ONLINE_US, DANIEL, KYOKO], "voice": "Daniel", "on": "Spoken cues are on",
           "red_low": "Red, 10 seconds left", "red_out": "Red ran out. Crowd tokens left: 2",
           "yellow_low": "Yellow, 10 seconds left", "advance": "The countdown advanced. Spaces left: 3",
           "yellow_out": "Yellow ran out. Crowd tokens left: 1", "red_out_last": "Red ran out. Crowd tokens left: 0",
           "loss": "The show is lost: the last crowd token is turned",
           "idle": "No show is running.", "running": "Training: the show is running", "lost": "Training: lost"},
    "ja": {"voices": [ONLINE_US, DANIEL], "voice": None, "on": "読み上げをオンにしました",
           "red_low": "赤、残り10秒", "red_out": "赤が切れました。観衆トークンは残り2枚",
           "yellow_low": "黄、残り10秒", "advance": "カウントダウンが進みました。残り3スペース",
           "yellow_out": "黄が切れました。観衆トークンは残り1枚", "red_out_last": "赤が切れました。観衆トークンは残り0枚",
           "loss": "失敗。最後の観衆トークンが裏返りました",
           "idle": "ショーは始まっていません。", "running": "トレーニング：ショーの最中です", "lost": "トレーニング：失敗"},
}


def said(page) -> list[str]:
    return [u["text"] for u in page.evaluate("window.__speech.said")]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_milestones_are_said_one_at_a_time_and_logged_in_the_same_words(serve, phone, expect, tmp_path, lang):
    words = WORDS[lang]
    clock = FakeClock()
    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=clock))
    table = served.table
    page = phone(served.url, lang=lang, init=SPEECH % json.dumps(words["voices"]))
    switch, log, status = page.locator("#cues"), page.locator("#cue-log li"), page.locator("#show-status")
    expect(switch).to_have_attribute("aria-pressed", "false")  # off until this phone's player turns it on

    def to(t: float, *lines: str) -> None:
        """Let the show run to `t` and wait until the log has these lines last."""
        clock.advance(t - clock.monotonic())
        expect(log).to_have_count(len(logged) + len(lines))
        logged.extend(lines)
        expect(log).to_have_text(logged[-8:])

    logged = []
    api(served.url, "/api/show/start", {"event": "training"})
    expect(status).to_have_text(words["running"])
    to(20, words["red_low"])  # red (30 s) low at 20 s: the switch is off, the page is silent
    assert said(page) == []

    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "true")
    assert said(page) == [words["on"]]
    page.evaluate("__speech.finish()")

    to(30, words["red_out"])  # said at once
    to(40, words["yellow_low"])  # waits while the run-out is said...
    api(served.url, "/api/show/flip", {"timer": "orange"})  # the empty countdown glass turned: an advance
    logged.append(words["advance"])
    expect(log).to_have_text(logged)
    assert said(page) == [words["on"], words["red_out"]]  # ...and the advance, more important, goes first
    page.evaluate("__speech.finish()")
    expect(page.locator("html")).to_have_attribute("data-said", "3")
    # At 50 s yellow runs out while the advance is said: it waits for the advance's end, and tells yellow's
    # low sand, still waiting, with it. Red, turned by the table just after its run-out at 30 s, is low just
    # after 50 s: it waits for its turn. Nothing is cut short.
    to(50.001, words["yellow_out"], words["red_low"])
    assert said(page)[-1] == words["advance"]
    page.evaluate("__speech.finish()")
    expect(page.locator("html")).to_have_attribute("data-said", "4")
    page.evaluate("__speech.finish()")
    expect(page.locator("html")).to_have_attribute("data-said", "5")
    page.evaluate("__speech.finish()")
    assert said(page) == [words["on"], words["red_out"], words["advance"], words["yellow_out"], words["red_low"]]
    record = page.evaluate("__speech")
    assert record["overlaps"] == 0 and record["cancels"] == 0
    assert {(u["lang"], u["voice"]) for u in record["said"]} == {(lang, words["voice"])}
    assert table.desk.current()["countdown"]["position"] == 3

    # A reopened page keeps the choice and says nothing of what happened before it.
    page.reload()
    expect(status).to_have_text(words["running"])
    expect(switch).to_have_attribute("aria-pressed", "true")
    assert said(page) == []
    expect(page.locator("#cue-log-empty")).to_be_visible()

    switch.click()  # off: the last run-out and the loss are written, not said
    expect(switch).to_have_attribute("aria-pressed", "false")
    logged = []
    to(60.001, words["red_out_last"], words["loss"])
    expect(status).to_have_text(words["lost"])
    assert said(page) == []
    page.reload()
    expect(switch).to_have_attribute("aria-pressed", "false")


# States as the table sends them, cut down to what milestones are made of.
def state(seq, t, *, show=1, outcome="running", runouts=(), advances=(), stars=0, red=25.0, red_state="running",
          orange=35.0):
    return {"id": show, "started": f"start-{show}", "seq": seq, "t": t, "outcome": outcome, "stars": stars,
            "warn_lead_s": 10.0, "runouts": [{"timer": c, "t": when} for c, when in runouts],
            "advances": [{"t": when, "position": p} for when, p in advances],
            "timers": {"red": {"role": "timer", "state": red_state, "top_s": red},
                       "orange": {"role": "countdown", "state": "running", "top_s": orange}}}


MILESTONES = """async (steps) => {
  const { Milestones, mostImportant, sentence } = await import("/table/static/milestones.js");
  const milestones = new Milestones(3);
  return steps.map(([s, gap]) => {
    const news = milestones.next(s, gap);
    return { news: news.map(({ t, ...m }) => m), top: news.length ? mostImportant(news).kind : null,
             words: news.map(sentence) };
  });
}"""


def test_milestones_come_from_what_changed_between_two_states(browser, expect):
    page = browser.page
    page.goto(browser.url)
    expect(page.locator("#show-status")).to_have_text("No show is running.")  # the catalogue is loaded
    steps = [
        (state(5, 4.0, red=26.0), False),  # the first state the page sees: nothing is news
        (state(6, 15.5, red=9.5, orange=24.5), False),  # red crossed 10 s (the countdown glass never warns)
        (state(7, 16.0, red=9.0), False),  # still low: said once
        (state(6, 15.5, red=9.5), False),  # an older state, late: ignored, and not taken as the last
        (state(9, 31.0, red=29.0, runouts=[("red", 30.0), ("red", 30.5)]), False),  # two run-outs in one update
        (state(12, 40.0, red=20.0, runouts=[("red", 30.0), ("red", 30.5)], advances=[(40.0, 3)]), True),  # after
        (state(13, 41.0, red=9.0, runouts=[("red", 30.0), ("red", 30.5)], advances=[(40.0, 3), (41.0, 2)]), True),
        (state(14, 42.0, red=9.0, red_state="lying", runouts=[("red", 30.0), ("red", 30.5)],
               advances=[(40.0, 3), (41.0, 2)]), False),  # a glass laid down is not low
        (state(15, 43.0, outcome="win", stars=1, runouts=[("red", 30.0), ("red", 30.5)],
               advances=[(40.0, 3), (41.0, 2), (42.0, 1), (43.0, 0)]), False),  # the last advance is the win
        (state(16, 44.0, outcome="win", stars=1), False),  # the show is over: nothing more
        (state(1, 0.5, show=2), False),  # another show: a fresh start
        (state(2, 30.0, show=2, red=0.0, red_state="empty", outcome="loss", runouts=[("red", 30.0)] * 3), False),
    ]
    got = page.evaluate(MILESTONES, [list(step) for step in steps])
    assert [step["news"] for step in got] == [
        [], [{"kind": "low_sand", "timer": "red", "seconds": 10}], [], [],
        [{"kind": "runout", "timer": "red", "tokens": 2}, {"kind": "runout", "timer": "red", "tokens": 1}],
        [],  # the stream was down and this state skips some: what it holds is old news
        [{"kind": "low_sand", "timer": "red", "seconds": 9}, {"kind": "advance", "spaces": 2}],  # follows directly
        [],
        [{"kind": "advance", "spaces": 1}, {"kind": "win", "stars": 1}],
        [], [],
        [{"kind": "runout", "timer": "red", "tokens": 2}, {"kind": "runout", "timer": "red", "tokens": 1},
         {"kind": "runout", "timer": "red", "tokens": 0}, {"kind": "loss", "stars": 0}],
    ]
    assert [step["top"] for step in got] == [None, "low_sand", None, None, "runout", None, "advance", None, "win",
                                             None, None, "loss"]
    assert got[8]["words"] == ["The countdown advanced. Spaces left: 1", "You won! Stars: 1"]
    assert got[11]["words"][-2:] == ["Red ran out. Crowd tokens left: 0",
                                     "The show is lost: the last crowd token is turned"]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_live_log_and_the_result_pass_axe(serve, phone, expect, tmp_path, lang):
    clock = FakeClock()
    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=clock))
    page = phone(served.url, lang=lang, init=SPEECH % "[]")
    expect(page.locator("#show-status")).to_have_text(WORDS[lang]["idle"])  # the script has drawn the page
    no_axe_violations(page, "the table page before the show")
    api(served.url, "/api/show/start", {"event": "training"})
    page.locator("#cues").click()
    clock.advance(20)
    expect(page.locator("#cue-log li")).to_have_text([WORDS[lang]["red_low"]])
    no_axe_violations(page, "the live log with a milestone")
    clock.advance(40.001)  # red, yellow, red: the show is lost
    expect(page.locator("#result")).to_be_visible()
    no_axe_violations(page, "the result shown")


# Every text written into a status line (role="status"), in order, by its id: what a screen reader reads.
WRITES = """
window.__writes = {};
new MutationObserver((records) => {
  for (const r of records) {
    if (r.target.getAttribute?.("role") !== "status") continue;
    for (const node of r.addedNodes) (window.__writes[r.target.id] ??= []).push(node.textContent);
  }
}).observe(document, { subtree: true, childList: true });
"""


def test_status_lines_are_written_only_when_they_change(serve, phone, expect, tmp_path):
    clock = FakeClock()
    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=clock))
    page = phone(served.url, init=WRITES)
    kiosk = phone(served.url, init=WRITES)
    kiosk.goto(served.url + "kiosk/")
    expect(page.locator("#show-status")).to_have_text("No show is running.")
    expect(kiosk.locator("#kiosk-status")).to_have_text("No show")
    api(served.url, "/api/show/start", {"event": "training"})
    # Both pages see the start before the clock moves: a stream sends the latest state, so a start and a low
    # sand at one instant would reach a page as one change, and a page tells only what it saw change.
    expect(page.locator("#show-status")).to_have_text("Training: the show is running")
    expect(kiosk.locator("#kiosk-status")).to_have_text("The show is running")
    # Low sand, run-outs, an empty countdown glass: each state seen by both pages before the next comes.
    for t, logged, turned, orange in ((20, 1, 0, "running"), (30, 2, 1, "running"), (40, 3, 1, "empty"),
                                      (50.001, 5, 2, "empty")):
        clock.advance(t - clock.monotonic())
        expect(page.locator("#cue-log li")).to_have_count(logged)
        expect(kiosk.locator("#kiosk-tokens-said")).to_have_text(f"{3 - turned} of 3 star side up")
        expect(kiosk.locator("#kiosk-orange")).to_have_attribute("data-state", orange)
    clock.advance(10)
    expect(page.locator("#show-status")).to_have_text("Training: lost")
    expect(kiosk.locator("#kiosk-status")).to_have_text("Lost")
    assert page.evaluate("__writes")["show-status"] == [
        "Connecting to the table…", "No show is running.", "Training: the show is running", "Training: lost"]
    assert kiosk.evaluate("__writes")["kiosk-status"] == [
        "Connecting to the table…", "No show", "The show is running", "Lost"]


PILE_UP = {
    "en": {"low": "Red, yellow and purple, 10 seconds left", "loss": WORDS["en"]["loss"],
           "out": ["Red ran out. Crowd tokens left: 2", "Yellow ran out. Crowd tokens left: 1",
                   "Purple ran out. Crowd tokens left: 0"]},
    "ja": {"low": "赤と黄と紫、残り10秒", "loss": WORDS["ja"]["loss"],
           "out": ["赤が切れました。観衆トークンは残り2枚", "黄が切れました。観衆トークンは残り1枚",
                   "紫が切れました。観衆トークンは残り0枚"]},
}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_pile_up_of_milestones_is_said_whole(serve, phone, expect, tmp_path, lang):
    """Three glasses of one length run low together, then out together: every milestone is said, none cut."""
    words = PILE_UP[lang]
    clock = FakeClock()
    config = demo_config(tmp_path / "demo.sqlite3")
    timers = {c: replace(t, duration=30.0) if c in ("yellow", "purple") else t for c, t in config.timers.items()}
    # Yellow and purple as long as red: training runs the three together.
    served = serve(Table(replace(config, timers=timers), Store(config.database), mock_pin_factory(), clock=clock,
                         pin="1234"))
    page = phone(served.url, lang=lang, init=SPEECH % "[]")
    page.locator("#cues").click()
    expect(page.locator("html")).to_have_attribute("data-said", "1")
    page.evaluate("__speech.finish()")
    api(served.url, "/api/show/start", {"event": "training"})
    expect(page.locator("#show-status")).to_have_text(WORDS[lang]["running"])

    clock.advance(20)
    expect(page.locator("#cue-log li")).to_have_count(3)  # three lines in the log, one sentence said
    expect(page.locator("html")).to_have_attribute("data-said", "2")
    assert said(page)[1:] == [words["low"]]
    clock.advance(10)  # all three run out while the low sand is still being said: the show is lost
    expect(page.locator("#cue-log li")).to_have_count(7)
    for n in range(3, 7):
        page.evaluate("__speech.finish()")
        expect(page.locator("html")).to_have_attribute("data-said", str(n))
    page.evaluate("__speech.finish()")
    assert said(page)[1:] == [words["low"], words["loss"], *words["out"]]
    record = page.evaluate("__speech")
    assert record["overlaps"] == 0 and record["cancels"] == 0
