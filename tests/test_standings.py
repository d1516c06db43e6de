"""Final standings (ties share a rank) and the one wording of a turn's result."""

from __future__ import annotations

import csv
import io
import json

import pytest
from flask.testing import FlaskClient
from helpers.table import NewTable

from scorekeeper.game.standings import ordinal, standings, standings_text
from scorekeeper.game.view import turn_result


def test_ties_share_a_rank_and_the_next_rank_skips() -> None:
    ranked = standings([("Ann", 900), ("Bob", 1200), ("Cy", 900), ("Di", 300)], [1])
    assert [(s["place"], s["name"]) for s in ranked] == [
        ("1st", "Bob"),
        ("2nd", "Ann"),
        ("2nd", "Cy"),
        ("4th", "Di"),
    ]
    assert standings_text(ranked) == "1st Bob 1,200; 2nd Ann 900; 2nd Cy 900; 4th Di 300"


def test_winners_rank_first_even_below_another_score() -> None:
    # six 1s wins outright: the winner may have fewer points than another player
    ranked = standings([("Ann", 3000), ("Bob", 2000), ("Cy", 2000)], [1, 2])
    assert [(s["rank"], s["name"], s["winner"]) for s in ranked] == [
        (1, "Bob", True),
        (1, "Cy", True),
        (3, "Ann", False),
    ]


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th",
    ]  # fmt: skip


def test_a_farkle_reads_the_same_in_the_state_and_the_csv(
    client: FlaskClient, new_table: NewTable
) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, target=1000)
    t.throw(1, 5, 2, 3, 4, 6)
    t.keep(1, 5)
    t.throw(2, 2, 3, 4)
    entry = t.state["history"][0]
    assert entry["outcome"] == "farkle" and entry["result"] == "farkle, 150 lost"
    rows = list(csv.DictReader(io.StringIO(client.get(f"/api/games/{t.id}/export.csv").text)))
    assert rows[0]["result"] == "farkle, 150 lost" and rows[0]["points"] == "150"
    exported = client.get(f"/api/games/{t.id}/export.json").json
    assert exported["state"]["history"][0]["result"] == "farkle, 150 lost"


def test_turn_result_words() -> None:
    def turn(outcome: str, points: int, banked: int, note: str = "") -> str:
        return turn_result({"outcome": outcome, "points": points, "banked": banked, "note": note})

    assert turn("bank", 350, 350) == "banked 350"
    assert turn("farkle", 0, 0) == "farkle"
    assert turn("farkle", 1500, -1000) == "farkle, 1,500 lost, third in a row: -1,000"
    assert turn("farkle_kept", 300, 300) == "farkle, 300 kept"
    assert turn("toxic_twos", 0, -2300) == "toxic twos, 2,300 lost"
    assert turn("overshoot", 400, 0, "Ann overshot 10,000: bust") == "overshot, 400 lost"


def test_standings_in_the_state_and_the_exports(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob", "Cy"], opening_minimum=0, target=1000)
    t.quick(500)
    t.quick(300)
    t.quick(500)
    assert t.state["standings"] is None
    t.act("end")
    ranked = t.state["standings"]
    # ended by hand: Ann and Cy share the lead and the win, Bob is 3rd
    assert [(s["place"], s["name"], s["score"]) for s in ranked] == [
        ("1st", "Ann", 500),
        ("1st", "Cy", 500),
        ("3rd", "Bob", 300),
    ]
    exported = client.get(f"/api/games/{t.id}/export.json").json
    assert exported["standings"] == ranked
    rows = list(csv.DictReader(io.StringIO(client.get(f"/api/games/{t.id}/export.csv").text)))
    standing = [(r["player"], r["result"]) for r in rows if r["outcome"] == "standing"]
    assert standing == [(s["name"], s["place"]) for s in ranked]


def test_player_limit_is_one_constant_in_page_api_and_cli(
    client: FlaskClient, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorekeeper.cli import main
    from scorekeeper.game.actions import MAX_PLAYERS

    limits = client.get("/api/rules/options").json["limits"]
    assert limits["max_players"] == MAX_PLAYERS
    assert main(["rules", "--limits"]) == 0
    assert json.loads(capsys.readouterr().out) == limits
    assert f"1 to {MAX_PLAYERS} players" in client.get("/").text
    names = [f"P{i}" for i in range(MAX_PLAYERS + 1)]
    r = client.post("/api/games", json={"players": names})
    assert r.status_code == 400 and f"a game has 1 to {MAX_PLAYERS}" in r.json["message"]
    assert client.post("/api/games", json={"players": names[:-1]}).status_code == 201
