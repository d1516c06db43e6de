"""The roll-off for the first player, recorded with the game (issue 30 item 5)."""

from __future__ import annotations

import csv
import io

from flask.testing import FlaskClient


def _create(client: FlaskClient, players: list[str], rolloff: object) -> tuple[int, dict]:  # type: ignore[type-arg]
    r = client.post("/api/games", json={"players": players, "rolloff": rolloff})
    return r.status_code, r.get_json()


def test_the_rolloff_is_recorded_in_the_log_the_state_and_the_csv(client: FlaskClient) -> None:
    rolloff = {"rounds": [{"Ann": 5, "Bob": 5, "Cy": 2}, {"Ann": 3, "Bob": 6}]}
    status, game = _create(client, ["Bob", "Cy", "Ann"], rolloff)
    assert status == 201, game
    assert game["state"]["rolloff"] == {**rolloff, "first": "Bob"}
    events = client.get(f"/api/games/{game['id']}/events").json["events"]
    assert events[0]["rolloff"]["first"] == "Bob"
    rows = list(csv.DictReader(io.StringIO(client.get(f"/api/games/{game['id']}/export.csv").text)))
    assert rows[0]["outcome"] == "rolloff" and rows[0]["player"] == "Bob"
    assert rows[0]["note"] == (
        "roll-off for the first player: Ann 5, Bob 5, Cy 2; tie: Ann 3, Bob 6; Bob starts"
    )


def test_a_rolloff_that_does_not_add_up_is_refused_in_words(client: FlaskClient) -> None:
    cases = [
        ({"rounds": [{"Ann": 5, "Bob": 2}]}, ["Bob", "Ann"], "Ann won the roll-off"),
        ({"rounds": [{"Ann": 5}]}, ["Ann", "Bob"], "must hold the throws of Ann, Bob"),
        ({"rounds": [{"Ann": 5, "Bob": 5}]}, ["Ann", "Bob"], "still tied"),
        ({"rounds": [{"Ann": 7, "Bob": 5}]}, ["Ann", "Bob"], "not 1 to 6"),
        ({"rounds": [{"Ann": 6, "Bob": 5}, {"Ann": 1}]}, ["Ann", "Bob"], "decided in round 1"),
        (
            {"rounds": [{"Ann": 4, "Bob": 4, "Cy": 1}, {"Ann": 2, "Cy": 6}]},
            ["Ann", "Bob", "Cy"],
            "Ann, Bob",
        ),
        ([5, 2], ["Ann", "Bob"], "rounds"),
    ]
    for rolloff, players, words in cases:
        status, body = _create(client, players, rolloff)
        assert status == 400 and words in body["message"], (rolloff, body)


def test_a_game_without_a_rolloff_has_none(client: FlaskClient) -> None:
    status, game = _create(client, ["Ann", "Bob"], None)
    assert status == 201 and game["state"]["rolloff"] is None
