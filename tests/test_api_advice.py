"""Advice on the current throw: attached when the advisor answers, never breaking the game."""

from __future__ import annotations

import functools
import importlib.util
import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable

from scorekeeper.web import api_advice


def _use(monkeypatch: pytest.MonkeyPatch, fn: Any) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    @functools.wraps(fn)
    def advise(**kwargs: Any) -> Any:
        calls.append(kwargs)
        return fn(**kwargs)

    monkeypatch.setattr(api_advice, "advisor", lambda: advise if fn else None)
    return calls


def test_advice_is_attached_to_the_throw(
    app: Flask, client: FlaskClient, new_table: NewTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.config["ADVICE_WAIT_S"] = 5.0

    def advise(
        rules: Any,
        throw: Any,
        turn_total: int,
        banked: int,
        on_board: bool,
        streak: int,
        beat: Any,
        dice_left: int,
        cache_dir: str,
    ) -> Any:
        return {"best": {"keep": [1]}, "message": f"keep the 1 of {throw}"}

    calls = _use(monkeypatch, advise)
    t = new_table(["Ann", "Bob"])
    assert t.state["turn"]["advice"] is None and t.state["turn"]["advice_pending"] is False
    t.throw(1, 2, 3, 4, 6, 6)
    assert t.state["turn"]["advice"] == {
        "best": {"keep": [1]},
        "message": "keep the 1 of 1 2 3 4 6 6",
    }
    assert t.state["turn"]["advice_pending"] is False
    (call,) = calls
    assert call["turn_total"] == 0 and call["banked"] == 0 and call["on_board"] is False
    assert call["dice_left"] == 6 and call["beat"] is None
    assert call["cache_dir"] == app.config["CACHE_DIR"]
    got = client.get(f"/api/games/{t.id}").json["state"]["turn"]["advice"]
    assert got == t.state["turn"]["advice"] and len(calls) == 1  # cached per version


def test_a_failing_advisor_never_breaks_the_game(
    app: Flask, new_table: NewTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.config["ADVICE_WAIT_S"] = 5.0

    def broken(**kwargs: Any) -> Any:
        raise RuntimeError("solver exploded")

    _use(monkeypatch, broken)
    t = new_table(["Ann", "Bob"])
    t.throw(1, 2, 3, 4, 6, 6)
    assert t.state["turn"]["advice"] is None and t.state["turn"]["advice_pending"] is False
    t.keep(1)
    assert t.state["turn"]["total"] == 100


def test_slow_advice_is_pending_then_arrives(
    app: Flask, client: FlaskClient, new_table: NewTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.config["ADVICE_WAIT_S"] = 0.0

    def slow(**kwargs: Any) -> Any:
        time.sleep(0.2)
        return {"message": "roll"}

    _use(monkeypatch, slow)
    t = new_table(["Ann", "Bob"])
    t.throw(5, 2, 3, 4, 6, 6)
    assert t.state["turn"]["advice_pending"] is True and t.state["turn"]["advice"] is None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        turn = client.get(f"/api/games/{t.id}").json["state"]["turn"]
        if not turn["advice_pending"]:
            break
        time.sleep(0.05)
    assert turn["advice"] == {"message": "roll"}


def test_no_advisor_means_no_advice_and_suggest_is_503(
    client: FlaskClient, new_table: NewTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    _use(monkeypatch, None)
    t = new_table(["Ann"])
    t.throw(1, 2, 3, 4, 6, 6)
    assert t.state["turn"]["advice"] is None and t.state["turn"]["advice_pending"] is False
    r = client.get("/api/suggest?dice=1,5,2,3,4,6")
    assert r.status_code == 503 and r.json["error"] == "service_unavailable"


def test_advice_can_be_switched_off(
    app: Flask, new_table: NewTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _use(monkeypatch, lambda **kw: {"message": "x"})
    app.config["ADVICE"] = False
    t = new_table(["Ann"])
    t.throw(1, 2, 3, 4, 6, 6)
    assert t.state["turn"]["advice"] is None and calls == []


@pytest.mark.skipif(
    importlib.util.find_spec("scorekeeper.strategy") is None, reason="no strategy advisor"
)
def test_real_advisor_through_the_api(app: Flask, client: FlaskClient, new_table: NewTable) -> None:
    app.config["ADVICE_WAIT_S"] = 30.0
    t = new_table(["Ann", "Bob"], opening_minimum=0)
    t.throw(1, 5, 2, 3, 4, 4)
    advice = t.state["turn"]["advice"]
    assert advice is not None and advice["best"]["keep"] in ([1], [1, 5])
    assert isinstance(advice["message"], str) and advice["message"]
    r = client.get("/api/suggest?dice=1,5,2,3,4,4&turn_total=0&banked=0")
    assert r.status_code == 200 and r.json["advice"]["best"]["keep"] == advice["best"]["keep"]
    bad = client.get("/api/suggest?dice=1,5&turn_total=x")
    assert bad.status_code == 400 and "whole number" in bad.json["message"]


def test_the_stream_resends_a_version_when_its_advice_is_ready(
    app: Flask, client: FlaskClient, new_table: NewTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.config.update(ADVICE_WAIT_S=0.0, STREAM_SECONDS=10, STREAM_POLL_S=0.05)

    def slow(**kwargs: Any) -> Any:
        time.sleep(0.2)
        return {"message": "bank"}

    _use(monkeypatch, slow)
    t = new_table(["Ann", "Bob"])
    t.throw(1, 2, 3, 4, 6, 6)
    r = client.get(f"/api/games/{t.id}/stream", buffered=False)
    chunks = iter(r.response)
    assert next(chunks).startswith(b"retry:")
    assert next(chunks).startswith(b"id: 1p\n")
    again = next(chunks).decode()
    assert again.startswith("id: 1\n")
    assert '"advice":{"message":"bank"}' in again
    r.close()
