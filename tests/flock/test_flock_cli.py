"""`companion score flock FILE|-` in a real process: the contract's output, and one line for bad input."""

import json

from flockdata import FOUR, NEST_EXAMPLE, board

LANDING = {"players": FOUR, "nest": NEST_EXAMPLE, "final": True, "scores_before": {"goose": 10},
           "board": board(". . .  .  .  .  .", ". . .  .  .  .  .", "kM kM kF gF gF cM n")}


def test_the_landing_example_from_a_file(cli, tmp_path):
    path = tmp_path / "stage.json"
    path.write_text(json.dumps(LANDING), encoding="utf-8")
    done = cli("score", "flock", str(path))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {p: s["total"] for p, s in result["scores"].items()} == {"crane": 3, "kite": 14, "goose": 17, "swallow": 0}
    assert result["winners"] == ["goose"]


def test_stdin_and_a_bad_board_refused_in_one_line_naming_the_column(cli):
    bad = {**LANDING, "board": board("kM . . . . . .", ". . . . . . .", ". . . . . . .")}
    done = cli("score", "flock", "-", stdin=json.dumps(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "column 0" in done.stderr and "board[1][0]" in done.stderr
    ok = cli("score", "flock", "-", stdin=json.dumps(LANDING))
    assert ok.returncode == 0


def test_not_json_and_a_missing_file_are_refused(cli, tmp_path):
    assert cli("score", "flock", "-", stdin="{not json").returncode == 2
    missing = cli("score", "flock", str(tmp_path / "none.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_the_command_and_the_api_agree(cli, tmp_path):
    from companion.table import demo_table
    from companion.web import create_app

    stage = {"players": ["crane", "goose", "swallow"], "nest": {"points": [2, 5, 9, 12], "pair": -1},
             "board": board(". . gF . . .", "sM . gM sF . .", "sF cF cM gF n gM"),
             "movement_cards": {"goose": [{"spaces": [{"row": 2, "col": 3, "points": 2},
                                                      {"row": 2, "col": 5, "points": 3}]}]},
             "scores_before": {"crane": 4}}
    table = demo_table(tmp_path / "t.sqlite3")
    try:
        api = create_app(table, testing=True).test_client().post("/api/flock/stage", json=stage).json
    finally:
        table.stop()
    done = cli("score", "flock", "-", stdin=json.dumps(stage))
    assert json.loads(done.stdout) == api
    # By hand: the fronts are sM, cF, gF, sF, a swift and gM. Swallow and goose each land a pair:
    # 5 - 1 = 4; crane lands one: 2. Goose's card: the gF left at (2, 3) scores 2, (2, 5) is empty now.
    assert {p: s["total"] for p, s in api["scores"].items()} == {"crane": 6, "goose": 6, "swallow": 4}
    assert api["landed"]["goose"] == {"M": 1, "F": 1, "count": 2, "pairs": 1}
