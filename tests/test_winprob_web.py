"""Win chances at the table: the background solve, the game endpoint, the pages' script."""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable

from scorekeeper.rules import find_rules
from scorekeeper.winprob import solve_winprob

SMALL = {"target": 1000}


@pytest.fixture(autouse=True)
def _settings(app: Flask) -> None:
    """No expected-points advice (its own tests), and solves in a thread (fast to start)."""
    app.config["ADVICE"] = False
    app.config["WINPROB_WORKER"] = "thread"


def wait_ready(client: FlaskClient, url: str) -> dict[str, Any]:
    """Ask until the background solve is done (small targets solve in about a second)."""
    body: dict[str, Any] = {}
    for _ in range(300):
        body = client.get(url).get_json()
        if body["status"] != "solving":
            return body
        time.sleep(0.1)
    raise AssertionError(f"still solving: {body}")


def test_two_player_game_solves_in_the_background_then_shows_chances(
    client: FlaskClient, new_table: NewTable, app: Flask
) -> None:
    t = new_table(["Ann", "Bob"], "standard", **SMALL)
    url = f"/api/games/{t.id}/winprob"
    first = client.get(url).get_json()
    assert first["status"] in {"solving", "ready"}
    if first["status"] == "solving":
        assert first["available"] is False and "expected-points" in first["reason"]
    body = wait_ready(client, url)
    assert body["available"] is True
    table = solve_winprob(find_rules("standard", SMALL), app.config["CACHE_DIR"] + "/winprob")
    assert body["chances"]["Ann"] == pytest.approx(table.p_first())
    assert body["chances"]["Bob"] == pytest.approx(1 - table.p_first())
    t.throw(1, 5, 5, 2, 3, 4)
    body = client.get(url).get_json()
    options = body["options"]
    assert len(options) == 5
    assert options[0]["value"] == pytest.approx(body["chances"]["Ann"])
    expected = table.option_values(0, 0, 0, [1, 5, 5, 2, 3, 4])
    assert [o["keep"] for o in options] == [o.keep.to_list() for o in expected]
    assert all(o["bank"] is None for o in options)  # below the 500 opening minimum
    assert options[0]["words"].startswith("Keep 1. Throw 5 dice: ")


def test_the_next_game_with_the_same_rules_starts_ready(
    client: FlaskClient, new_table: NewTable, app: Flask
) -> None:
    rules = find_rules("standard", SMALL)
    solve_winprob(rules, app.config["CACHE_DIR"] + "/winprob")
    t = new_table(["Ann", "Bob"], "standard", **SMALL)
    body = client.get(f"/api/games/{t.id}/winprob").get_json()
    assert body["status"] == "ready"
    fair = client.get("/api/winprob?rules=standard&set=target=1000").get_json()
    assert fair["status"] == "ready"
    assert fair["fair_compensation"] % 50 == 0 and 0.5 < fair["p_first"] < 0.7


def test_final_round_chaser_gets_the_chance_to_beat_the_leader(
    client: FlaskClient, new_table: NewTable, app: Flask
) -> None:
    rules = find_rules("minimal", SMALL)
    table = solve_winprob(rules, app.config["CACHE_DIR"] + "/winprob")
    t = new_table(["Ann", "Bob"], "minimal", **SMALL)
    t.quick(1050)  # Ann reaches the target: Bob's last turn
    assert t.state["final_round"] and t.state["to_beat"] == 1050
    body = client.get(f"/api/games/{t.id}/winprob").get_json()
    assert body["player"] == "Bob"
    assert body["chances"]["Bob"] == pytest.approx(table.p_win(0, 1050, final_round=True))


@pytest.mark.parametrize("preset", ["standard", "zilch-online"])  # zilch-online: unsupported
def test_a_finished_game_gives_its_outcome_without_a_solve(
    client: FlaskClient, new_table: NewTable, monkeypatch: pytest.MonkeyPatch, preset: str
) -> None:
    from scorekeeper.web import api_winprob

    t = new_table(["Ann", "Bob"], preset, target=1000, opening_minimum=0)
    t.quick(1050)  # Ann reaches the target; Bob's last turn
    t.quick(0)
    assert t.state["over"] and t.state["winner"] == "Ann"

    def no_solve(*_: Any) -> None:
        raise AssertionError("a finished game started a solve")

    monkeypatch.setattr(api_winprob, "ensure_solved", no_solve)
    body = client.get(f"/api/games/{t.id}/winprob").get_json()
    assert body["status"] == "over" and body["over"] is True and body["available"] is True
    assert body["chances"] == {"Ann": 1.0, "Bob": 0.0} and body["options"] == []


def test_more_than_two_players_keep_expected_points_advice(
    client: FlaskClient, new_table: NewTable
) -> None:
    t = new_table(["Ann", "Bob", "Cy"], "standard", **SMALL)
    body = client.get(f"/api/games/{t.id}/winprob").get_json()
    assert body["available"] is False and body["status"] == "not_applicable"
    assert "two players" in body["reason"] and "expected points" in body["reason"]


def test_unsupported_rules_say_why(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], "zilch-online", target=1000)
    body = client.get(f"/api/games/{t.id}/winprob").get_json()
    assert body["status"] == "unsupported" and "farkle_streak_penalty" in body["reason"]


def test_pages_load_the_script(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"], "standard", **SMALL)
    for page in ("play", "board"):
        html = client.get(f"/{page}/{t.id}").get_data(as_text=True)
        assert html.count('src="/static/js/winprob.js"') == 1
    assert "js/winprob.js" not in client.get("/").get_data(as_text=True)
    assert client.get("/static/js/winprob.js").status_code == 200


def test_bad_rules_are_400(client: FlaskClient) -> None:
    r = client.get("/api/winprob?rules=nope")
    assert r.status_code == 400 and "presets" in r.get_json()["message"]
    r = client.get("/api/winprob?rules=standard&set=nope=1")
    assert r.status_code == 400 and "unknown rules option" in r.get_json()["message"]


def test_setup_page_offers_the_fair_handicap(client: FlaskClient, app: Flask) -> None:
    html = client.get("/").get_data(as_text=True)
    assert html.count('src="/static/js/winprob-setup.js"') == 1
    assert client.get("/static/js/winprob-setup.js").status_code == 200
    url = "/api/winprob?rules=original&set=target=1000"
    body = client.get(url + "&solve=0").get_json()
    assert body["status"] == "not_solved"  # looking does not start a solve
    body = wait_ready(client, url)
    table = solve_winprob(find_rules("original", SMALL), app.config["CACHE_DIR"] + "/winprob")
    assert body["fair_compensation"] == table.fair_compensation()
    assert body["p_first"] == pytest.approx(table.p_start(0))
    half = client.get(url + "&compensation=100").get_json()
    assert (
        half["p_first"] == pytest.approx(table.p_start(100)) and half["p_first"] < body["p_first"]
    )
    bad = client.get(url + "&compensation=75")
    assert bad.status_code == 400 and "multiple of 50" in bad.get_json()["message"]
