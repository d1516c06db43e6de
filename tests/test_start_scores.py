"""Starting points (a handicap): the create body's ``start_scores``, the board, exports, chances."""

from __future__ import annotations

import csv
import io
import time
from typing import Any

import pytest
from flask.testing import FlaskClient
from test_game_api import Table

from scorekeeper.game import replay
from scorekeeper.game_actions import parse_setup
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
    t = Table.__new__(Table)
    t.client = client
    t.id, t.token = r.json["id"], r.json["control_token"]
    t.version, t.state = r.json["version"], r.json["state"]
    return t


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
        ([0, 75], "Bob's starting score int 75 is not accepted"),
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


def test_game_chances_with_a_handicap() -> None:
    rules = find_rules("standard", {"target": 1000})
    table = solve_winprob(rules, cache_dir=False)
    table.handicaps()
    setup = parse_setup(
        {"players": ["Ann", "Bob"], "start_scores": [0, 200], "rules": rules_body(rules)}
    )
    game = replay([setup])
    start = game_chances(game.to_json(), table)
    # the very start: the handicap solver's position (Bob off the board on 200), exact
    assert start["approximate"] is False
    assert start["chances"]["Ann"] == pytest.approx(table.p_start(200))
    assert table.p_start(200) != pytest.approx(table.p_win(0, 200))  # 200 on the board differs
    game.apply({"type": "quick_score", "points": 0})  # Ann farkles: Bob throws, still off
    after = game_chances(game.to_json(), table)
    assert (
        after["approximate"] is True and "Approximate until Bob is on the board" in after["words"]
    )
    assert after["chances"]["Bob"] == pytest.approx(table.p_win(200, 0))
    game.apply({"type": "quick_score", "points": 500})  # Bob on the board: 700, exact again
    on = game_chances(game.to_json(), table)
    assert on["approximate"] is False and "Approximate" not in on["words"]
    assert on["chances"]["Ann"] == pytest.approx(table.p_win(0, 700))


def rules_body(rules: Any) -> dict[str, Any]:
    """A create body's rules for ``rules`` (the standard preset with its target)."""
    return {"preset": "standard", "overrides": {"target": rules.target}}
