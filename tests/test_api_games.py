"""The games API's edges: control tokens, bad input, 404/409/413, listing, export, the stream."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable, Table, core, start_game

from scorekeeper import store
from scorekeeper.game import replay

pytestmark = pytest.mark.usefixtures("no_advice")


def _post(client: FlaskClient, t: Table, body: Any, token: str | None = "ok", **kw: Any) -> Any:
    headers = {"Authorization": f"Bearer {t.token if token == 'ok' else token}"} if token else {}
    return client.post(f"/api/games/{t.id}/actions", headers=headers, **({"json": body} | kw))


def test_actions_need_the_control_token(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob"])
    r = _post(client, t, {"version": 0, "type": "bank"}, token=None)
    assert r.status_code == 401 and r.json["error"] == "missing_token"
    r = _post(client, t, {"version": 0, "type": "bank"}, token="guess")
    assert r.status_code == 403 and r.json["error"] == "wrong_token"
    client.set_cookie("sk_token_" + t.id, t.token)
    r = _post(client, t, {"version": 0, "type": "throw", "dice": [1, 2, 3, 4, 6, 6]}, token=None)
    assert r.status_code == 200 and r.json["version"] == 1
    r = client.get(f"/api/games/{t.id}")
    assert r.json["control"] is True
    client.delete_cookie("sk_token_" + t.id)
    assert client.get(f"/api/games/{t.id}").json["control"] is False


def test_the_token_is_stored_only_as_a_hash(app: Flask, new_table: NewTable) -> None:
    t = new_table(["Ann"])
    conn = store.connect(app.config["DATABASE"])
    rows = conn.execute("SELECT token_hash FROM games").fetchall()
    conn.close()
    assert rows == [(store.hash_token(t.token),)] and t.token not in rows[0][0]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"type": "bank"}, 400, "needs version"),
        ({"version": "0", "type": "bank"}, 400, "needs version"),
        ({"version": 0, "type": "fly"}, 400, "unknown action type"),
        ({"version": 0, "type": "throw", "dice": [1, 2, "3"]}, 400, "bad die"),
        ({"version": 0, "type": "throw", "dice": [1, 2, 3]}, 422, "has 6 dice to throw"),
        ({"version": 0, "type": "keep", "dice": [1]}, 422, "no throw to keep from"),
        ({"version": 5, "type": "bank"}, 409, "moved on to version 0"),
        ([1, 2], 400, "JSON object"),
    ],
)
def test_bad_actions(
    client: FlaskClient, new_table: NewTable, body: Any, status: int, words: str
) -> None:
    t = new_table(["Ann", "Bob"])
    r = _post(client, t, body)
    assert r.status_code == status and words in r.json["message"], r.json
    assert set(r.json) >= {"error", "message"}


def test_malformed_json_and_huge_bodies(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann"])
    r = _post(client, t, None, data="{not json", content_type="application/json")
    assert r.status_code == 400 and "must be JSON" in r.json["message"]
    huge = json.dumps({"version": 0, "type": "bank", "pad": "x" * 100_000})
    r = _post(client, t, None, data=huge, content_type="application/json")
    assert r.status_code == 413 and r.json["error"] == "request_entity_too_large"
    r = client.post("/api/games", data="[", content_type="application/json")
    assert r.status_code == 400


def test_stale_version_gets_409_with_the_current_state(
    client: FlaskClient, new_table: NewTable
) -> None:
    t = new_table(["Ann", "Bob"])
    t.throw(1, 2, 3, 4, 6, 6)
    r = _post(client, t, {"version": 0, "type": "throw", "dice": [1, 2, 3, 4, 6, 6]})
    assert r.status_code == 409 and r.json["error"] == "stale_version"
    assert r.json["version"] == 1 and r.json["state"]["turn"]["throw"] == [1, 2, 3, 4, 6, 6]


def test_unknown_games_are_404(client: FlaskClient) -> None:
    assert client.get("/api/games/nope").status_code == 404
    r = client.post(
        "/api/games/nope/actions",
        json={"version": 0, "type": "bank"},
        headers={"Authorization": "Bearer x"},
    )
    assert r.status_code == 404 and r.json["error"] == "not_found"
    r = client.post("/api/games/nope/actions", json={"version": 0, "type": "bank"})
    assert r.status_code == 404
    for tail in ("stream", "events", "export.csv", "export.json"):
        assert client.get(f"/api/games/nope/{tail}").status_code == 404


def test_create_errors(client: FlaskClient) -> None:
    r = client.post("/api/games", json={"players": ["Ann"], "rules": {"preset": "yahtzee"}})
    assert r.status_code == 400 and "unknown rules preset" in r.json["message"]
    r = client.post("/api/games", json={"players": ["Ann", "ANN"]})
    assert r.status_code == 400 and "distinct" in r.json["message"]


def test_create_returns_token_rules_and_cookie(client: FlaskClient) -> None:
    r = client.post(
        "/api/games",
        json={
            "players": ["<i>Ann</i>"],
            "rules": {"preset": "zilch", "overrides": {"target": 5000}},
        },
    )
    assert r.status_code == 201 and r.headers["Location"] == f"/api/games/{r.json['id']}"
    assert r.json["preset"] == "zilch" and r.json["rules"]["target"] == 5000
    assert len(r.json["control_token"]) >= 32 and r.json["version"] == 0
    assert f"sk_token_{r.json['id']}=" in r.headers["Set-Cookie"]
    assert "SameSite=Strict" in r.headers["Set-Cookie"]
    assert r.json["state"]["players"][0]["name"] == "<i>Ann</i>"
    assert r.mimetype == "application/json"


def test_list_games_newest_first(client: FlaskClient, new_table: NewTable) -> None:
    ids = [new_table([f"P{i}"]).id for i in range(3)]
    r = client.get("/api/games")
    assert [g["id"] for g in r.json["games"]] == ids[::-1]
    assert r.json["games"][0]["players"] == ["P2"]
    assert client.get("/api/games?limit=0").status_code == 400
    assert len(client.get("/api/games?limit=2").json["games"]) == 2


def test_the_list_names_who_is_playing_now(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "Bob", "Cy"])
    t.act("join", name="Dee")
    t.act("leave", player="Bob")
    listed = next(g for g in client.get("/api/games").json["games"] if g["id"] == t.id)
    assert listed["players"] == ["Ann", "Cy", "Dee"]  # joined and left, as the list shows them
    t.undo()
    listed = next(g for g in client.get("/api/games").json["games"] if g["id"] == t.id)
    assert listed["players"] == ["Ann", "Bob", "Cy", "Dee"]


def test_export_csv_and_json(client: FlaskClient, new_table: NewTable) -> None:
    t = new_table(["Ann", "=Bob"], opening_minimum=0)
    t.throw(1, 1, 1, 5, 2, 3)
    t.keep(1, 1, 1)
    t.bank()
    t.quick(0)
    r = client.get(f"/api/games/{t.id}/export.csv")
    assert r.mimetype == "text/csv" and "attachment" in r.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True))))
    assert rows[0][-2:] == ["Ann", "'=Bob"]
    assert rows[1][:6] == ["1", "Ann", "bank", "1000", "1000", "1000"]
    assert rows[1][6] == "1 1 1 2 3 5 kept 1 1 1 (1000)"
    assert rows[2][2] == "farkle"
    r = client.get(f"/api/games/{t.id}/export.json")
    body = r.json
    assert body["version"] == 4 and len(body["events"]) == 5
    assert core(replay(body["events"]).to_json()) == core(body["state"])
    assert client.get(f"/api/games/{t.id}/events").json["events"][1]["dice"] == [1, 1, 1, 5, 2, 3]


def test_export_csv_of_a_team_game_adds_each_team_total(client: FlaskClient) -> None:
    body = {
        "players": ["Ann", "Bob", "Cy"],
        "teams": ["Red", "=Blue", "Red"],
        "rules": {"preset": "standard", "overrides": {"opening_minimum": 0}},
        "start_scores": [0, 300, 0],
    }
    game = client.post("/api/games", json=body).get_json()
    auth = {"Authorization": f"Bearer {game['control_token']}"}
    version = game["version"]
    for points in (500, 250, 400):
        r = client.post(
            f"/api/games/{game['id']}/actions",
            json={"version": version, "type": "quick_score", "points": points},
            headers=auth,
        )
        version = r.get_json()["version"]
    text = client.get(f"/api/games/{game['id']}/export.csv").get_data(as_text=True)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][-5:] == ["Ann", "Bob", "Cy", "team Red", "team =Blue"]  # not a formula
    assert rows[1][2] == "start" and rows[1][-5:] == ["0", "300", "0", "0", "300"]
    assert [r[-2:] for r in rows[2:]] == [["500", "300"], ["500", "550"], ["900", "550"]]


def test_stream_sends_the_state_and_each_new_version(
    app: Flask, client: FlaskClient, new_table: NewTable
) -> None:
    app.config.update(STREAM_SECONDS=3, STREAM_POLL_S=0.05, STREAM_KEEPALIVE_S=0.2)
    t = new_table(["Ann", "Bob"])
    r = client.get(f"/api/games/{t.id}/stream", buffered=False)
    assert r.mimetype == "text/event-stream" and r.headers["Cache-Control"] == "no-cache"
    chunks = iter(r.response)
    assert next(chunks).startswith(b"retry:")
    first = next(chunks).decode()
    assert first.startswith("id: 0\nevent: state\ndata: ")
    assert json.loads(first.split("data: ", 1)[1])["state"]["current"] == 0
    t.throw(1, 2, 3, 4, 6, 6)
    seen = []
    for chunk in chunks:
        seen.append(chunk.decode())
        if chunk.startswith(b"id: 1"):
            break
    assert json.loads(seen[-1].split("data: ", 1)[1])["version"] == 1
    r.close()


def test_stream_resumes_after_last_event_id_and_is_capped(
    app: Flask, client: FlaskClient, new_table: NewTable
) -> None:
    app.config.update(STREAM_SECONDS=0.3, STREAM_POLL_S=0.05, STREAM_KEEPALIVE_S=0.1, MAX_STREAMS=1)
    t = new_table(["Ann"])
    r = client.get(f"/api/games/{t.id}/stream", headers={"Last-Event-ID": "0"}, buffered=False)
    busy = client.get(f"/api/games/{t.id}/stream")
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "5"
    body = b"".join(r.response).decode()
    assert "event: state" not in body and ": keepalive" in body  # closes after STREAM_SECONDS
    r.close()


def test_racing_clients_exactly_one_wins_each_version(app: Flask) -> None:
    t = start_game(app.test_client(), ["Ann", "Bob", "Cy"], opening_minimum=0)
    wins: list[int] = []
    stale = [0]
    lock = threading.Lock()

    def client_loop() -> None:
        c = app.test_client()
        for _ in range(12):
            version = c.get(f"/api/games/{t.id}").json["version"]
            r = c.post(
                f"/api/games/{t.id}/actions",
                json={"version": version, "type": "quick_score", "points": 50},
                headers={"Authorization": f"Bearer {t.token}"},
            )
            with lock:
                if r.status_code == 200:
                    wins.append(r.json["version"])
                else:
                    assert r.status_code == 409, r.json
                    stale[0] += 1

    threads = [threading.Thread(target=client_loop) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(wins) == list(range(1, len(wins) + 1))  # one winner per version
    live = app.test_client().get(f"/api/games/{t.id}").json
    assert live["version"] == len(wins)
    assert sum(p["score"] for p in live["state"]["players"]) == 50 * len(wins)
    conn = store.connect(app.config["DATABASE"])
    _, _, events = store.read_log(conn, t.id)
    conn.close()
    store.CACHE.clear()
    assert core(replay(events).to_json()) == core(live["state"])
    fresh = app.test_client().get(f"/api/games/{t.id}").json  # replayed from the database
    assert core(fresh["state"]) == core(live["state"])


def test_a_locked_database_is_503(
    client: FlaskClient, new_table: NewTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = new_table(["Ann"])

    def locked(*args: Any) -> Any:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr("scorekeeper.web.api.snapshot", locked)
    r = client.get(f"/api/games/{t.id}")
    assert r.status_code == 503 and r.json["error"] == "database_busy"
    assert r.headers["Retry-After"] == "1"
