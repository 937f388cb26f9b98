"""`companion score geese` and `companion geese simulate` as a user runs them (real subprocesses)."""

import json

GAME = {"players": ["ann", "ben", "cho"], "wintering": [{"n": 5, "suit": "gull"}, {"n": 5, "suit": "crane"}],
        "actions": [{"player": "ann", "arrive": [{"n": 5, "suit": "eagle"}]},
                    {"player": "ben", "migrate": {"value": 3, "cards": [{"n": 3, "suit": "gull"}] * 3}}]}


def test_score_a_game_record_from_a_file(cli, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(GAME))
    done = cli("score", "geese", str(path))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["players"]["ben"]["total"] == 9 + 1 and result["winner"] == "ben"
    assert result["wintering"]["5"] == 3


def test_score_migrations_from_stdin(cli):
    done = cli("score", "geese", "-", stdin=json.dumps(
        {"players": ["a", "b", "c"], "migrations": {"c": [[{"n": 2, "suit": "gull"}, {"n": 2, "suit": "goose"}]]}}))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ranking"] == ["c", "a", "b"]


def test_an_illegal_action_exits_2_with_one_line_naming_it(cli, tmp_path):
    bad = json.loads(json.dumps(GAME))
    bad["actions"][1]["migrate"]["value"] = 4
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    done = cli("score", "geese", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert f"{path}: actions[1].migrate.cards: migrating as 4 takes exactly 4 cards, not 3" in done.stderr


def test_json_that_is_not_json_exits_2(cli):
    done = cli("score", "geese", "-", stdin='{"players": NaN}')
    assert done.returncode == 2 and "not valid JSON" in done.stderr and "Traceback" not in done.stderr


def test_simulate_prints_the_figures_and_writes_the_plot(cli, tmp_path):
    draft = tmp_path / "draft.toml"
    draft.write_text("threshold = 10\n")
    svg = tmp_path / "plot.svg"
    done = cli("geese", "simulate", "--players", "4", "--games", "40", "--seed", "9", "--plot", str(svg),
               "--compare", str(draft))
    assert done.returncode == 0, done.stderr
    assert "first player's edge over fair share" in done.stdout and "rainbow rule decided the winner" in done.stdout
    assert done.stdout.splitlines()[2].split() == ["rules", "compare"]
    assert svg.read_text().startswith("<svg")
    assert done.stderr == ""  # no progress bar when stderr is not a terminal


def test_simulate_is_reproducible_from_its_seed(cli):
    runs = [cli("geese", "simulate", "--players", "3", "--games", "30", "--seed", "4", "--json") for _ in range(2)]
    figures = [json.loads(r.stdout)["rules"] for r in runs]
    for f in figures:
        f.pop("seconds")
    assert figures[0] == figures[1] and figures[0]["games"] == 30


def test_simulate_refuses_bad_options_in_one_line(cli, tmp_path):
    done = cli("geese", "simulate", "--strategies", "greedy,sly", "--games", "5")
    assert done.returncode == 2 and "strategies[1]: unknown strategy 'sly'" in done.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("thresold = 3\n")
    done = cli("geese", "simulate", "--rules", str(bad), "--games", "5")
    assert done.returncode == 2 and f"{bad}: thresold: unknown field" in done.stderr
    done = cli("geese", "simulate", "--players", "7", "--games", "5")
    assert done.returncode == 2 and "players: the game is for 3–5 players, not 7" in done.stderr
    assert done.stderr.count("\n") == 1


def test_simulate_refuses_a_plot_it_cannot_write_and_nonsense_jobs(cli, tmp_path):
    done = cli("geese", "simulate", "--games", "5", "--plot", str(tmp_path / "no" / "such" / "dir.svg"))
    assert done.returncode == 2 and "dir.svg: cannot write" in done.stderr and done.stderr.count("\n") == 1
    done = cli("geese", "simulate", "--games", "5", "--jobs", "-1")
    assert done.returncode == 2 and "--jobs: expected" in done.stderr
