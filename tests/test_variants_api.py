"""Issue 30's variants played through the API: the seed-faithful zilch preset, team winners,
teams drawn by dice, the "defend your win" final round."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from helpers.table import NewTable

from scorekeeper.errors import UnsupportedRulesError
from scorekeeper.rules import find_rules
from scorekeeper.strategy import advise
from scorekeeper.strategy.advice import DEFEND_NOTE
from scorekeeper.winprob.model import check_supported


def test_zilch_as_seed_000_plays_it(new_table: NewTable, no_advice: None) -> None:
    # seed 000, Paul Bevan: "every turn ... a minimum of 350 before you can take a score",
    # "if you get 3 zilches in a row you lose 1000 points"
    t = new_table(["Ann", "Bob"], "zilch")
    t.throw(1, 1, 5, 2, 3, 4)
    t.keep(1, 1, 5)
    refused = t.bank(status=422)
    assert "at least 350 to bank" in refused["message"] and "250" in refused["message"]
    t.throw(5, 2, 3)
    t.keep(5)
    t.throw(1, 2)
    t.keep(1)
    t.bank()  # 400: no opening minimum but the 350, on the first turn too
    assert t.score("Ann") == 400
    t.quick(350)
    for n in range(3):
        t.farkle()  # Ann
        if n < 2:
            t.quick(350)  # Bob
    assert t.score("Ann") == 400 - 1000 and t.event == "farkle_penalty"
    assert "Third farkle in a row: Ann loses 1,000" in t.state["last_event"]["message"]
    t.quick(350)
    # the original scoring: no pairs, six 6s are two triples
    t.throw(6, 6, 6, 6, 6, 6)
    assert t.state["turn"]["keeps"][0]["points"] == 1200


def _create(client: FlaskClient, **body: Any) -> Any:
    return client.post("/api/games", json={"rules": {"overrides": {"target": 1000}}, **body})


def test_a_team_game_ends_with_a_team_winner_in_the_state_and_exports(
    client: FlaskClient, new_table: NewTable, no_advice: None
) -> None:
    teams = {"Red": ["Ann", "Cy"], "Blue": ["Bob"]}
    t = new_table(["Ann", "Bob", "Cy"], teams=teams, opening_minimum=0, target=1000)
    assert t.state["team_winner"] is None and t.state["team_winners"] == []
    t.quick(600)  # Ann
    t.quick(900)  # Bob
    t.quick(300)  # Cy
    t.quick(400)  # Ann reaches 1,000: the final round
    t.quick(0)  # Bob
    t.quick(0)  # Cy
    assert t.state["over"] and t.state["winner"] == "Ann"
    assert t.state["team_winner"] == "Red" and t.state["team_winners"] == ["Red"]
    csv = client.get(f"/api/games/{t.id}/export.csv").get_data(as_text=True)
    last = csv.strip().splitlines()[-1]
    assert last.startswith(',,team_win,,,,,"team Red wins with 1,300",,,1000,900,300,1300,900')
    exported = client.get(f"/api/games/{t.id}/export.json").get_json()
    assert exported["state"]["team_winner"] == "Red"


def test_teams_drawn_by_dice_are_dealt_from_the_throws_and_recorded(
    client: FlaskClient, no_advice: None
) -> None:
    players = ["Ann", "Bob", "Cy", "Dee", "Eve"]
    draw = {"teams": 2, "throws": [[5, 3], [2], [6], [5, 1], [5, 4]], "names": ["Red", "Blue"]}
    r = _create(client, players=players, team_draw=draw)
    assert r.status_code == 201, r.json
    state = r.json["state"]
    # order: Cy 6, Eve 5 4, Ann 5 3, Dee 5 1, Bob 2 -> Red, Blue, Red, Blue, Red
    assert [p["team"] for p in state["players"]] == ["Red", "Red", "Red", "Blue", "Blue"]
    assert state["team_draw"]["order"] == ["Cy", "Eve", "Ann", "Dee", "Bob"]
    events = client.get(f"/api/games/{r.json['id']}/events").get_json()["events"]
    assert events[0]["team_draw"]["throws"] == draw["throws"]
    csv = client.get(f"/api/games/{r.json['id']}/export.csv").get_data(as_text=True)
    assert "teams drawn by dice: Cy 6 -> Red; Eve 5 4 -> Blue; Ann 5 3 -> Red" in csv
    # virtual dice from the server, then sent back with the game
    d = client.post("/api/teams/draw", json={"players": players, "teams": 3}).get_json()
    assert sorted(d["assignment"]) == ["Team 1", "Team 1", "Team 2", "Team 2", "Team 3"]
    assert all(1 <= v <= 6 for t in d["throws"] for v in t)
    r = _create(
        client,
        players=players,
        teams=d["assignment"],
        team_draw={"teams": 3, "throws": d["throws"]},
    )
    assert r.status_code == 201 and r.json["state"]["team_draw"]["order"] == d["order"]


def test_bad_teams_are_refused_with_what_is_wrong(client: FlaskClient) -> None:
    players = ["Ann", "Bob", "Cy"]
    nobody = _create(client, players=players, teams={"Red": ["Ann", "Bob", "Cy"], "Blue": []})
    assert nobody.status_code == 400 and "team 'Blue' has nobody in it" in nobody.json["message"]
    many = _create(client, players=players, team_draw={"teams": 4})
    assert many.status_code == 400 and "a team would have nobody" in many.json["message"]
    tied = _create(client, players=players, team_draw={"teams": 2, "throws": [[3], [3], [1]]})
    assert tied.status_code == 400 and "Ann and Bob are tied" in tied.json["message"]
    short = {"teams": 2, "throws": [[3, 2], [3], [1]]}  # Bob did not throw again
    assert (
        "Ann and Bob are tied" in _create(client, players=players, team_draw=short).json["message"]
    )
    other = _create(
        client,
        players=players,
        teams=["Team 1", "Team 1", "Team 2"],
        team_draw={"teams": 2, "throws": [[3], [4], [1]]},
    )
    assert other.status_code == 400 and "teams and team_draw disagree" in other.json["message"]
    bad = client.post("/api/teams/draw", json={"players": ["Ann"], "teams": 2})
    assert bad.status_code == 400 and "two or more" in bad.json["message"]


def test_defend_your_win_final_round(
    client: FlaskClient, new_table: NewTable, no_advice: None
) -> None:
    t = new_table(["Ann", "Bob", "Cy"], opening_minimum=0, target=1000, final_round_defend=True)
    t.quick(1000)  # Ann reaches the target
    assert t.event == "final_round" and "defend your win" in t.state["last_event"]["message"]
    assert t.state["final_turns_left"] == ["Bob", "Cy"]
    t.quick(0)  # Bob farkles: out
    assert "Bob is out of the final round" in t.state["last_event"]["message"]
    assert [p["out"] for p in t.state["players"]] == [False, True, False]
    assert t.state["history"][-1]["out"] is True
    t.quick(1100)  # Cy takes the lead: play goes round again, to everyone still in
    assert t.event == "new_leader" and t.state["leader"] == "Cy"
    assert t.state["final_turns_left"] == ["Ann"] and t.current == "Ann"
    refused = t.quick(100, status=422)  # 1,100 would only tie
    assert "must beat 1,100" in refused["message"]
    t.quick(200)  # Ann takes it back with 1,200
    assert t.state["leader"] == "Ann" and t.state["final_turns_left"] == ["Cy"]
    t.farkle()  # Cy is out; play returns to the leader: Ann wins
    assert t.state["over"] and t.state["winner"] == "Ann"
    assert [p["out"] for p in t.state["players"]] == [False, True, True]


def test_defend_needs_a_final_round_and_its_advice_says_what_it_leaves_out(
    client: FlaskClient, tmp_path: Path
) -> None:
    overrides = {"final_round": False, "final_round_defend": True}
    r = _create(client, players=["Ann", "Bob"], rules={"overrides": overrides})
    assert r.status_code == 400
    assert "final_round_defend needs final_round=true" in r.json["message"]
    rules = find_rules("standard", {"final_round_defend": True})
    with pytest.raises(UnsupportedRulesError, match="final_round_defend"):
        check_supported(rules)
    # the final-round advice says what it does not model
    advice = advise(rules, "1 5 2 3 4 6", banked=9000, beat=10000, cache_dir=str(tmp_path))
    assert advice.message.endswith(DEFEND_NOTE)
    assert advice.message.startswith("Not exact: the advisor cannot value final_round_defend")
    assert advice.to_dict()["exact"] is False
    assert advice.to_dict()["not_modelled"] == ["final_round_defend"]
    plain = advise(rules, "1 5 2 3 4 6", banked=9000, cache_dir=str(tmp_path))
    assert DEFEND_NOTE not in plain.message and plain.to_dict()["exact"] is True
