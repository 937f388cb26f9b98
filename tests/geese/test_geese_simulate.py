"""The playtest simulator: reproducible from its seed, however the games are split, with sound figures."""

import io
import json
import sys
import xml.etree.ElementTree as ET

import pytest

from companion.cli.geese import progress_bar, run
from companion.errors import BadInput
from companion.geese import DEFAULT_RULES, Rules
from companion.geese.plot import plot
from companion.geese.report import lines
from companion.geese.simulate import check_strategies, play_games, proportion, seat_strategies, statistics

NAMES = ("greedy", "hoard", "wintering", "random")


def test_the_same_seed_plays_the_same_games():
    first = play_games(DEFAULT_RULES, NAMES, seed=11, numbers=range(30), seats=4)
    again = play_games(DEFAULT_RULES, NAMES, seed=11, numbers=range(30), seats=4)
    other = play_games(DEFAULT_RULES, NAMES, seed=12, numbers=range(30), seats=4)
    assert first == again and first != other


def test_two_processes_give_the_figures_of_one():
    alone = run(DEFAULT_RULES, NAMES, games=60, seed=3, players=4, jobs=1)
    split = run(DEFAULT_RULES, NAMES, games=60, seed=3, players=4, jobs=2, parallel_from=1)
    assert alone == split


def test_strategies_take_turns_at_every_seat():
    assert seat_strategies(("a", "b"), 3, 0) == ("a", "b", "a")
    assert seat_strategies(("a", "b"), 3, 1) == ("b", "a", "b")
    with pytest.raises(BadInput, match="unknown strategy 'sly'"):
        check_strategies(["greedy", "sly"])


def test_the_figures_add_up():
    stats = statistics(play_games(DEFAULT_RULES, NAMES, seed=5, numbers=range(200), seats=4))
    assert stats["games"] == 200 and stats["players"] == 4
    assert sum(r["rate"] for r in stats["win_rate_by_seat"]) == pytest.approx(1.0)
    assert sum(stats["score_histogram"].values()) == 800
    assert stats["turns"]["min"] >= 4 and stats["rounds"]["min"] * 4 >= stats["turns"]["min"]  # whole rounds
    edge = stats["first_player_advantage"]
    assert edge["low"] <= edge["rate"] <= edge["high"] and edge["fair_share"] == 0.25
    # the baseline loses to every strategy that thinks
    assert stats["win_rate_by_strategy"]["random"]["rate"] < stats["win_rate_by_strategy"]["greedy"]["rate"]


def test_with_the_rainbow_rule_off_it_decides_nothing():
    off = Rules.from_toml("rainbow = false")
    stats = statistics(play_games(off, NAMES, seed=5, numbers=range(50), seats=3))
    assert stats["rainbow_decided"]["rate"] == 0.0
    on = statistics(play_games(DEFAULT_RULES, NAMES, seed=5, numbers=range(50), seats=3))
    assert on["rainbow_decided"]["rate"] > 0.0


def test_a_proportion_has_a_wilson_interval():
    p = proportion(50, 100)
    assert p["rate"] == 0.5
    assert (p["low"], p["high"]) == (pytest.approx(0.4038, abs=1e-3), pytest.approx(0.5962, abs=1e-3))
    assert proportion(0, 0)["n"] == 0


def test_the_plot_is_svg_with_both_runs_and_the_report_is_side_by_side():
    one = statistics(play_games(DEFAULT_RULES, NAMES, seed=1, numbers=range(40), seats=4))
    two = statistics(play_games(Rules.from_toml("threshold = 10"), NAMES, seed=1, numbers=range(40), seats=4))
    svg = plot({"rules": one, "compare": two})
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert 'fill="url(#hatch)"' in svg  # the second run is told apart without colour
    text = lines({"rules": one, "compare": two})
    assert text[0].split() == ["rules", "compare"]
    assert any(line.startswith("first player's edge") for line in text)
    json.dumps(one)  # the figures are plain data


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_progress_bar_only_on_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_bar("rules") is None
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    run(DEFAULT_RULES, NAMES, games=300, seed=1, players=4, jobs=1, progress=progress_bar("rules"))
    drawn = terminal.getvalue()
    assert drawn.startswith("\rrules [") and drawn.endswith(f"[{'#' * 30}] 300/300\n")
    assert "250/300" in drawn  # it moved on the way
