"""Bad query fields and bodies answer 400/404 with words, never 500 (issue 31, item 11): each
fault the attack run found, and the same-origin and JSON checks on state-changing requests."""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient
from helpers.table import NewTable

DEEP = ("[" * 10_000 + "]" * 10_000).encode()
HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/score?dice=%C2%B2", "die"),
        ("/api/score?dice=%E2%91%A0", "die"),
        ("/api/score?dice=1," + HUGE, "dice"),
        ("/api/score?dice=1,%C2%B2", "die"),
        ("/api/games?limit=%C2%B2", "limit"),
        ("/api/games?limit=" + HUGE, "limit"),
        ("/api/camera/latest?dice_left=%C2%B2", "dice_left"),
        ("/api/camera/latest?dice_left=" + HUGE, "dice_left"),
        ("/api/winprob?compensation=abc&solve=0", "compensation"),
        ("/api/winprob?scores=1,2,3&solve=0", "scores"),
        ("/api/suggest?dice=1,1,5&on_board=%FF%FE", "on_board"),
        ("/api/suggest?dice=1,5&turn_total=" + HUGE, "turn_total"),
        ("/api/suggest?dice=1,5&streak=%C2%B2", "streak"),
        ("/api/score?dice=1&set=target=" + HUGE, "set"),
        ("/api/score?dice=1&rules=%00", "rules"),
    ],
)
def test_bad_query_fields_are_400_naming_the_field(
    client: FlaskClient, url: str, field: str
) -> None:
    r = client.get(url)
    assert r.status_code == 400, r.get_data(as_text=True)[:200]
    assert r.json["error"] == "bad_request"
    assert field in r.json["message"]


def test_a_good_query_still_answers(client: FlaskClient) -> None:
    assert client.get("/api/score?dice=1,1,5").json["dice"] == [1, 1, 5]
    assert client.get("/api/games?limit=5").status_code == 200
    assert client.get("/api/winprob?compensation=0&solve=0").status_code == 200


@pytest.mark.parametrize("path", ["/play/abc%0A", "/board/abc%0A", "/history/a%20b"])
def test_a_page_id_must_match_whole(client: FlaskClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404
    assert b"is not a game id" in r.data


def test_an_api_id_must_match_whole(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    r = client.get(f"/api/games/{t.id}%0A")
    assert r.status_code == 404 and "not a game id" in r.json["message"]
    assert client.get(f"/api/games/{t.id}").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/api/games",
        "/api/camera/area",
        "/api/camera/proposals/abc",
        "/api/players/merge",
        "/api/games/{id}/actions",
        "/api/games/{id}/corrections/preview",
    ],
)
def test_json_nested_10000_deep_is_400(client: FlaskClient, new_table: NewTable, path: str) -> None:
    t = new_table(["Ann", "Bob"])
    headers = {"Authorization": f"Bearer {t.token}"}
    r = client.post(
        path.format(id=t.id), data=DEEP, content_type="application/json", headers=headers
    )
    assert r.status_code == 400
    assert "nests deeper" in r.json["message"]


def test_a_lone_surrogate_in_a_proposal_game_id_is_400(client: FlaskClient) -> None:
    body = '{"recorded": null, "game": "\\ud800"}'
    r = client.post("/api/camera/proposals/abc", data=body, content_type="application/json")
    assert r.status_code == 400 and "surrogate" in r.json["message"]


def test_a_proposal_game_id_must_be_an_id(client: FlaskClient) -> None:
    body = json.dumps({"recorded": None, "game": "abc\n"})
    r = client.post("/api/camera/proposals/abc", data=body, content_type="application/json")
    assert r.status_code == 400 and "not a game id" in r.json["message"]


def test_nan_in_a_body_is_400(client: FlaskClient) -> None:
    r = client.post("/api/camera/area", data='{"x0": NaN}', content_type="application/json")
    assert r.status_code == 400 and "NaN" in r.json["message"]


def test_a_form_post_cannot_act_on_a_game(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    body = json.dumps({"version": 0, "type": "throw", "dice": [1, 2, 3, 4, 6, 6]})
    r = client.post(
        f"/api/games/{t.id}/actions",
        data=body,
        content_type="text/plain",
        headers={"Authorization": f"Bearer {t.token}"},
    )
    assert r.status_code == 415 and "application/json" in r.json["message"]
    assert client.get(f"/api/games/{t.id}").json["version"] == 0


def test_another_port_of_the_same_host_cannot_act(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    body = {"version": 0, "type": "throw", "dice": [1, 2, 3, 4, 6, 6]}
    auth = {"Authorization": f"Bearer {t.token}"}
    r = client.post(
        f"/api/games/{t.id}/actions",
        json=body,
        headers={**auth, "Origin": "http://localhost:9999"},
    )
    assert r.status_code == 403 and r.json["error"] == "cross_origin"
    assert client.get(f"/api/games/{t.id}").json["version"] == 0
    same = {**auth, "Origin": "https://localhost"}  # serve --https: TLS in front, same address
    assert client.post(f"/api/games/{t.id}/actions", json=body, headers=same).status_code == 200


def test_suggest_answers_503_in_words_when_the_advisor_is_busy(client: FlaskClient) -> None:
    from scorekeeper.web import api_advice

    held = [api_advice.suggest_slots.acquire(timeout=1) for _ in range(api_advice.SUGGEST_AT_ONCE)]
    try:
        r = client.get("/api/suggest?dice=1,5")
        assert r.status_code == 503 and "advisor is busy" in r.json["message"]
        assert r.headers["Retry-After"] == "1"
    finally:
        for _ in held:
            api_advice.suggest_slots.release()
    assert client.get("/api/suggest?dice=1,5").status_code == 200
