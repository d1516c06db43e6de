"""The players page and its API: records across finished games, name matching and merging."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

RULES = {"preset": "minimal", "overrides": {"target": 500, "final_round": False}}


@pytest.fixture(autouse=True)
def _no_advice(app: Flask) -> None:
    app.config["ADVICE"] = False


def _game(client: FlaskClient, players: list[str], turns: list[list[dict[str, Any]]]) -> str:
    """Create a game and play the given turns (each a list of actions)."""
    r = client.post("/api/games", json={"players": players, "rules": RULES})
    body = r.get_json()
    game_id, token, version = body["id"], body["control_token"], body["version"]
    for turn in turns:
        for action in turn:
            r = client.post(
                f"/api/games/{game_id}/actions",
                json={"version": version, **action},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert r.status_code == 200, r.get_json()
            version = r.get_json()["version"]
    return str(game_id)


WIN = [  # 1 1 1 then 5: 1000 + 50, banked, wins at once (target 500)
    {"type": "throw", "dice": [1, 1, 1, 2, 3, 4]},
    {"type": "keep", "dice": [1, 1, 1]},
    {"type": "bank"},
]
FARKLE = [{"type": "throw", "dice": [2, 3, 4, 6, 6, 3]}]


def _by_name(client: FlaskClient) -> dict[str, dict[str, Any]]:
    r = client.get("/api/players")
    assert r.status_code == 200
    return {p["name"].casefold(): p for p in r.get_json()["players"]}


def test_records_match_names_case_insensitively(client: FlaskClient) -> None:
    _game(client, ["Ann", "Bob"], [WIN])
    _game(client, ["bob", "ANN"], [FARKLE, WIN])
    _game(client, ["Ann", "Cy"], [FARKLE])  # in play: not counted
    players = _by_name(client)
    assert set(players) == {"ann", "bob"}
    ann, bob = players["ann"], players["bob"]
    assert (ann["games"], ann["wins"], bob["games"], bob["wins"]) == (2, 2, 2, 0)
    assert ann["names"] == ["ANN", "Ann"]
    assert ann["average_turn_score"] == 1000.0 and ann["farkle_rate"] == 0.0
    assert bob["farkle_rate"] == 1.0 and bob["average_turn_score"] == 0.0
    assert [g["won"] for g in ann["series"]] == [True, True]
    assert all(g["accuracy"] is not None for g in ann["series"])
    assert bob["series"][1]["luck"] < 0  # a farkle on the first throw


def test_merge_two_names(client: FlaskClient) -> None:
    _game(client, ["Ann", "Bob"], [WIN])
    _game(client, ["Annie", "Bob"], [WIN])
    r = client.post("/api/players/merge", json={"name": "annie", "into": "ann"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["merged"] == "Ann"
    players = _by_name(client)
    assert players["ann"]["games"] == 2 and players["ann"]["wins"] == 2
    assert "annie" not in players
    again = client.post("/api/players/merge", json={"name": "Annie", "into": "Ann"})
    assert again.status_code == 400 and "already the same player" in again.get_json()["message"]
    unknown = client.post("/api/players/merge", json={"name": "Zed", "into": "Ann"})
    assert unknown.status_code == 400 and "Zed" in unknown.get_json()["message"]
    bad = client.post("/api/players/merge", json={"name": "Ann"})
    assert bad.status_code == 400


def test_players_page(client: FlaskClient) -> None:
    r = client.get("/players")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "/static/js/players.js" in html and 'id="merge-form"' in html
    assert "/players" in client.get("/").get_data(as_text=True)
    play = client.get("/play/g1").get_data(as_text=True)
    assert '<script type="module" src="/static/js/review.js">' in play
