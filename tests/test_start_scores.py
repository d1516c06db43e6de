"""Starting points (a handicap): the create body's ``start_scores``, the board, exports, chances."""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient
from helpers.table import Table

from scorekeeper.game import replay
from scorekeeper.game.actions import parse_setup
from scorekeeper.rules import find_rules
from scorekeeper.web.api_winprob import game_chances
from scorekeeper.winprob import solve_winprob


def start_table(client: FlaskClient, starts: Any, preset: str = "standard", **rules: Any) -> Table:
    """A two-player game (Ann, Bob) created with ``start_scores``; Ann throws first."""
    r = client.post(
        "/api/games",
        json={
            "players": ["Ann", "Bob"],
            "start_scores": starts,
            "rules": {"preset": preset, "overrides": rules},
        },
    )
    assert r.status_code == 201, r.json
    return Table(client, r.json)


def advice_of(client: FlaskClient, game_id: str) -> Any:
    """The throw's advice once worked out (the advisor answers in the background)."""
    for _ in range(300):
        turn = client.get(f"/api/games/{game_id}").json["state"]["turn"]
        if not turn["advice_pending"]:
            return turn["advice"]
        time.sleep(0.05)
    raise AssertionError("the advice is still pending")


def test_start_scores_are_kept_but_do_not_put_a_player_on_the_board(client: FlaskClient) -> None:
    t = start_table(client, [0, 300])
    bob = t.state["players"][1]
    assert (bob["score"], bob["start_score"], bob["on_board"]) == (300, 300, False)
    assert t.state["players"][0]["start_score"] == 0
    assert "Bob on 300" in t.state["last_event"]["message"]
    assert "not on the board until 500" in t.state["last_event"]["message"]
    t.quick(0)  # Ann farkles; Bob's turn
    assert t.state["turn"]["opening_needed"] == 500
    body = t.quick(350, status=422)  # 300 + 350 is past 500, but the turn has only 350
    assert "Bob needs 500 in one turn to get on the board" in body["message"]
    t.throw(5, 2, 3, 4, 6, 2)
    assert advice_of(client, t.id) is not None  # the advisor plays the handicap too
    t.keep(5)
    refused = t.bank(status=422)
    assert "Bob needs 500 in one turn" in refused["message"]
    t.throw(1, 1, 1, 2, 3)
    t.keep(1, 1, 1)
    t.bank()
    bob = t.state["players"][1]
    assert (bob["score"], bob["on_board"], bob["start_score"]) == (300 + 1050, True, 300)
    assert t.state["history"][-1]["banked"] == 1050


def test_without_an_opening_minimum_a_start_score_is_just_points(client: FlaskClient) -> None:
    t = start_table(client, [100, 0], opening_minimum=0)
    t.quick(50)
    assert t.state["players"][0]["score"] == 150
    r = client.get(f"/api/games/{t.id}")
    assert [p["start_score"] for p in r.json["state"]["players"]] == [100, 0]


@pytest.mark.parametrize(
    ("starts", "words"),
    [
        ([0], "one starting score per player (2)"),
        ("300", "one starting score per player"),
        ([0, 75], "Bob's starting score 75 is not accepted"),
        ([0, 12345], "Bob's starting score 12,345 is not accepted"),
        ([-50, 0], "multiple of 50 from 0 to 9,950"),
        ([0, 10000], "(the target less 50)"),
        ([0, True], "bool True"),
        ([0, 2.5], "float 2.5"),
    ],
)
def test_bad_start_scores_are_refused_with_what_is_accepted(
    client: FlaskClient, starts: Any, words: str
) -> None:
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "start_scores": starts})
    assert r.status_code == 400 and r.json["error"] == "bad_request"
    assert words in r.json["message"]


def test_the_top_start_score_follows_the_target(client: FlaskClient) -> None:
    t = start_table(client, [0, 1950], target=2000)
    assert t.state["players"][1]["score"] == 1950
    r = client.post(
        "/api/games",
        json={
            "players": ["A", "B"],
            "start_scores": [0, 2000],
            "rules": {"overrides": {"target": 2000}},
        },
    )
    assert r.status_code == 400 and "from 0 to 1,950" in r.json["message"]


def test_old_create_events_without_start_scores_replay_as_zeros() -> None:
    setup = parse_setup({"players": ["Ann", "Bob"], "rules": {"preset": "standard"}})
    assert setup["start_scores"] == [0, 0]
    old = {k: v for k, v in setup.items() if k != "start_scores"}
    game = replay([old, {"type": "quick_score", "points": 500}])
    state = game.to_json()
    assert [(p["score"], p["start_score"]) for p in state["players"]] == [(500, 0), (0, 0)]


def test_replay_and_undo_keep_the_start_scores(client: FlaskClient) -> None:
    t = start_table(client, [0, 250])
    t.quick(600)
    t.undo()
    assert [p["score"] for p in t.state["players"]] == [0, 250]
    events = client.get(f"/api/games/{t.id}/events").json
    log = events["events"] if isinstance(events, dict) else events
    assert log[0]["start_scores"] == [0, 250]
    assert [p["score"] for p in replay(log).to_json()["players"]] == [0, 250]


def test_exports_show_the_starting_scores(client: FlaskClient) -> None:
    t = start_table(client, [0, 300])
    t.quick(550)
    rows = list(csv.reader(io.StringIO(client.get(f"/api/games/{t.id}/export.csv").text)))
    assert rows[0][-2:] == ["Ann", "Bob"]
    assert rows[1][:3] == ["0", "", "start"] and rows[1][-2:] == ["0", "300"]
    assert "Bob 300" in rows[1][7]
    assert rows[2][-2:] == ["550", "300"]
    data = client.get(f"/api/games/{t.id}/export.json").json
    assert data["events"][0]["start_scores"] == [0, 300]
    assert data["state"]["players"][1]["start_score"] == 300
    plain = start_table(client, None)
    rows = list(csv.reader(io.StringIO(client.get(f"/api/games/{plain.id}/export.csv").text)))
    assert len(rows) == 1  # no start row without starting points


def test_game_chances_with_a_handicap_use_the_handicap_positions() -> None:
    rules = find_rules("standard", {"target": 1000})
    table = solve_winprob(rules, cache_dir=False)
    table.handicaps()
    setup = parse_setup(
        {"players": ["Ann", "Bob"], "start_scores": [0, 200], "rules": rules_body(rules)}
    )
    game = replay([setup])
    start = game_chances(game.to_json(), table)
    # the very start: the handicap solver's position (Bob off the board on 200)
    assert start["approximate"] is False
    assert start["chances"]["Ann"] == pytest.approx(table.p_start(200), abs=1e-12)
    assert table.p_start(200) != pytest.approx(table.p_win(0, 200))  # 200 on the board differs
    game.apply({"type": "throw", "dice": [1, 5, 2, 3, 4, 4], "source": "manual"})
    thrown = game_chances(game.to_json(), table)
    assert thrown["chances"]["Ann"] == thrown["options"][0]["value"]
    plain = table.option_values(0, 200, 0, [1, 5, 2, 3, 4, 4])  # Bob as if on the board
    assert thrown["options"][0]["roll"] != pytest.approx(plain[0].roll)
    game.apply({"type": "keep", "dice": [1]})
    game.apply({"type": "throw", "dice": [2, 3, 4, 6, 6], "source": "manual"})  # a farkle
    bob = game_chances(game.to_json(), table)
    assert bob["approximate"] is False and "Approximate" not in bob["words"]
    assert bob["chances"]["Bob"] == pytest.approx(
        table.handicap_p_win(200, 0, off_board="me"), abs=1e-12
    )
    assert bob["chances"]["Bob"] != pytest.approx(table.p_win(200, 0))
    game.apply({"type": "throw", "dice": [1, 1, 1, 2, 3, 4], "source": "manual"})
    options = game_chances(game.to_json(), table)["options"]
    keep3 = next(o for o in options if o["keep"] == [1, 1, 1])
    assert keep3["bank"] is not None  # 1,000 in one turn meets the opening minimum
    # 200 + 1,000 reaches the target: Ann (off the board on 0) gets a last turn to beat it,
    # the same chase the main table has for Bob on 200
    same = next(o for o in table.option_values(200, 0, 0, [1, 1, 1, 2, 3, 4]) if o.points == 1000)
    assert 0.5 < keep3["bank"] < 1.0 and keep3["bank"] == pytest.approx(same.bank, abs=1e-12)
    assert all(o["bank"] is None for o in options if o["turn_total"] < 500)
    game.apply({"type": "keep", "dice": [1]})  # keep one 1: 100, off the board still
    mid = game_chances(game.to_json(), table)
    assert mid["chances"]["Bob"] == pytest.approx(
        table.handicap_p_win(200, 0, 100, 5, off_board="me"), abs=1e-12
    )
    game.apply({"type": "throw", "dice": [1, 1, 5, 5, 2], "source": "manual"})
    game.apply({"type": "keep", "dice": [1, 1, 5, 5]})
    game.apply({"type": "throw", "dice": [5], "source": "manual"})
    game.apply({"type": "keep", "dice": [5]})  # hot dice: 450
    game.apply({"type": "throw", "dice": [1, 2, 3, 4, 6, 6], "source": "manual"})
    game.apply({"type": "keep", "dice": [1]})
    game.apply({"type": "bank"})  # Bob banks 550: on the board on 750
    on = game_chances(game.to_json(), table)
    assert game.players[1].on_board and game.players[1].score == 750
    assert on["approximate"] is False
    assert on["chances"]["Ann"] == pytest.approx(table.p_win(0, 750), abs=1e-12)


def test_handicap_positions_equal_the_table_when_the_minimum_does_not_bind() -> None:
    """With an opening minimum of 50 being off the board changes nothing: the handicap
    positions must then reproduce the main table, at turn starts, inside a turn and for
    every option of a throw."""
    rules = find_rules("standard", {"target": 1000, "opening_minimum": 50})
    table = solve_winprob(rules, cache_dir=False)
    table.handicaps()
    for me, opp in ((300, 0), (300, 450), (950, 600)):
        off = table.handicap_p_win(me, opp, off_board="me")
        assert off == pytest.approx(table.p_win(me, opp), abs=1e-12)
        assert table.handicap_p_win(opp, me, off_board="opp") == pytest.approx(
            table.p_win(opp, me), abs=1e-12
        )
        inside = table.handicap_p_win(me, opp, 150, 3, off_board="me")
        assert inside == pytest.approx(table.p_win(me, opp, 150, 3), abs=1e-12)
        got = table.handicap_options(me, opp, 100, [1, 5, 5, 2, 3], off_board="me")
        want = table.option_values(me, opp, 100, [1, 5, 5, 2, 3])
        assert [(o.keep, o.bank, o.roll) for o in got] == [
            (o.keep, pytest.approx(o.bank), pytest.approx(o.roll)) for o in want
        ]


def test_chances_are_marked_approximate_where_no_handicap_position_covers_them() -> None:
    rules = find_rules("standard", {"target": 1000})
    table = solve_winprob(rules, cache_dir=False)
    table.handicaps()
    both = parse_setup(
        {"players": ["Ann", "Bob"], "start_scores": [100, 200], "rules": rules_body(rules)}
    )
    body = game_chances(replay([both]).to_json(), table)
    assert body["approximate"] is True
    assert "Approximate until Ann and Bob are on the board" in body["words"]
    assert body["chances"]["Ann"] == pytest.approx(table.p_win(100, 200))


def rules_body(rules: Any) -> dict[str, Any]:
    """A create body's rules for ``rules`` (the standard preset with its target)."""
    return {"preset": "standard", "overrides": {"target": rules.target}}


def test_the_handicap_positions_are_cached_with_the_table(tmp_path: Path) -> None:
    rules = find_rules("standard", {"target": 800})
    table = solve_winprob(rules, tmp_path)
    assert not table.handicap_ready(200)  # not solved yet: a page never waits for them
    table.handicaps()
    assert table.handicap_ready(200) and table.cache_path is not None
    with np.load(table.cache_path) as data:
        assert np.array_equal(data["handicap_q"], table.handicap_q)
        assert np.array_equal(data["start"], table.handicap_q[0][0])
