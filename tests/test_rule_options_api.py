"""The scoring-only rule options played through the API: the game scores by them, exports them,
refuses bad values with words, and a game stored before them replays as it was played."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable, Table

from scorekeeper import store
from scorekeeper.game.actions import parse_setup
from scorekeeper.rules import find_rules

pytestmark = pytest.mark.usefixtures("no_advice")


@pytest.mark.parametrize(
    ("overrides", "throw", "keep", "points"),
    [
        ({"single_one": 200}, [1, 2, 3, 4, 6, 6], [1], 200),
        ({"single_five": 100}, [5, 2, 3, 4, 6, 6], [5], 100),
        ({"triple_multiplier": 200}, [4, 4, 4, 2, 3, 6], [4, 4, 4], 800),
        ({"full_house": 250}, [3, 3, 3, 4, 4, 2], [3, 3, 3, 4, 4], 550),
        ({"four_kind_pair": "three_pairs", "three_pairs": 2000}, [2, 2, 2, 2, 6, 6],
         [2, 2, 2, 2, 6, 6], 2000),
        ({"partial_straight": 1500}, [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6], 1500),
        ({"partial_straight": 1500, "straight_split": True}, [1, 2, 3, 4, 5, 6],
         [1, 2, 3, 4, 5, 6], 1600),
    ],
    ids=str,
)  # fmt: skip
def test_the_game_scores_by_each_option(
    new_table: NewTable, overrides: dict[str, Any], throw: list[int], keep: list[int], points: int
) -> None:
    t = new_table(["Ann", "Bob"], opening_minimum=0, **overrides)
    t.throw(*throw)
    offered = {tuple(k["keep"]): k["points"] for k in t.state["turn"]["keeps"]}
    assert offered[tuple(keep)] == points
    t.keep(*keep)
    t.bank()
    assert t.score("Ann") == points
    assert t.state["history"][-1]["outcome"] == "bank"


def test_a_lone_five_that_does_not_score_is_a_farkle(new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], single_five=0)
    t.throw(5, 2, 3, 4, 6, 6)
    assert t.event == "farkle" and t.current == "Bob"


def test_the_options_travel_with_the_game(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], full_house=250, four_kind_pair="three_pairs")
    game = client.get(f"/api/games/{t.id}").json
    exported = client.get(f"/api/games/{t.id}/export.json").json
    for rules in (game["rules"], exported["rules"], exported["events"][0]["rules"]):
        assert rules["full_house"] == 250 and rules["four_kind_pair"] == "three_pairs"
        assert rules["straight_split"] is False and rules["triple_multiplier"] == 100


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"four_kind_pair": "pairs"}, "four_kind_pair: it accepts a multiple of 50 from 0 to"),
        ({"single_five": 25}, "single_five: it accepts a multiple of 50 from 0 to 1000"),
        ({"triple_multiplier": 1050}, "triple_multiplier: it accepts a multiple of 50 from 0"),
        ({"straight_split": "sometimes"}, "straight_split: it accepts true or false"),
    ],
)
def test_bad_option_values_are_refused_with_words(
    client: FlaskClient, overrides: dict[str, Any], words: str
) -> None:
    rules = {"preset": "standard", "overrides": overrides}
    r = client.post("/api/games", json={"players": ["Ann"], "rules": rules})
    assert r.status_code == 400 and words in r.json["message"], r.json


def test_a_game_stored_before_the_options_replays_as_played(
    app: Flask, client: FlaskClient
) -> None:
    setup = parse_setup({"players": ["Ann", "Bob"], "rules": {"overrides": {"opening_minimum": 0}}})
    old = find_rules("standard", {"opening_minimum": 0, "partial_straight": 1500}).to_dict()
    for key in ("single_one", "single_five", "triple_multiplier", "full_house", "straight_split"):
        del old[key]  # the create event as written before these options existed
    conn = store.connect(app.config["DATABASE"])
    game_id, token = store.create_game(conn, {**setup, "rules": old})
    conn.close()
    created = {"id": game_id, "control_token": token, "version": 0, "state": {}}
    t = Table(client, created)
    t.throw(1, 2, 3, 4, 5, 6)
    assert t.state["turn"]["keeps"][0] == {
        "keep": [1, 2, 3, 4, 5, 6],
        "points": 1600,
        "combos": t.state["turn"]["keeps"][0]["combos"],
    }
    t.keep(1, 2, 3, 4, 5, 6)
    t.bank()
    assert t.score("Ann") == 1600
    rules = client.get(f"/api/games/{game_id}/export.json").json["rules"]
    assert rules["straight_split"] is True and rules["single_one"] == 100
    assert json.loads(json.dumps(rules)) == rules
