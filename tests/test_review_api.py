"""The game review through the API and the CLI, on games played through the API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorekeeper.cli import main
from scorekeeper.review import service
from scorekeeper.review.evaluate import QUICK_ONLY
from scorekeeper.review.service import IN_PROGRESS, clear_reviews
from scorekeeper.rules import Rules
from scorekeeper.winprob import solve_winprob

RULES = {"preset": "minimal", "overrides": {"target": 1000, "final_round": False}}


@pytest.fixture(autouse=True)
def _no_advice(app: Flask) -> None:
    app.config["ADVICE"] = False


class Play:
    """A game played through the API with its control token."""

    def __init__(self, client: FlaskClient, players: list[str], rules: Any = None) -> None:
        self.client = client
        r = client.post("/api/games", json={"players": players, "rules": rules or RULES})
        assert r.status_code == 201, r.json
        body = r.get_json()
        self.id, self.token, self.version = body["id"], body["control_token"], body["version"]
        self.rules: dict[str, Any] = body["rules"]

    def act(self, kind: str, **fields: Any) -> dict[str, Any]:
        """One action; asserts it is accepted."""
        r = self.client.post(
            f"/api/games/{self.id}/actions",
            json={"version": self.version, "type": kind, **fields},
            headers={"Authorization": f"Bearer {self.token}"},
        )
        assert r.status_code == 200, r.json
        self.version = r.get_json()["version"]
        return dict(r.get_json())

    def review(self) -> dict[str, Any]:
        """The review JSON (asserts 200)."""
        r = self.client.get(f"/api/games/{self.id}/review")
        assert r.status_code == 200, r.json
        return dict(r.get_json())


def _played(client: FlaskClient) -> Play:
    """Ann banks 150 from her first throw (keeping the 5 too), Bob quick-scores 500, Ann wins."""
    g = Play(client, ["Ann", "Bob"])
    g.act("throw", dice=[1, 5, 2, 3, 4, 6])
    g.act("keep", dice=[1, 5])
    g.act("bank")
    g.act("quick_score", points=500)
    g.act("throw", dice=[1, 1, 1, 5, 5, 2])
    g.act("keep", dice=[1, 1, 1, 5, 5])
    g.act("bank")
    return g


def test_finished_game_review(client: FlaskClient) -> None:
    g = _played(client)
    body = g.review()
    assert body["id"] == g.id and body["version"] == g.version
    assert body["status"] == "final" and body["message"] is None
    ann, bob = body["players"]
    assert ann["judged_decisions"] == 4  # two keeps and two banks (the second wins: best)
    assert ann["grades"]["best"] == 2
    first = [d for d in body["turns"][0]["decisions"]]
    assert [d["kind"] for d in first] == ["keep", "bank_or_throw"]
    assert first[0]["taken"] == "kept 1 5 for 150" and first[0]["best"] == "keep the 1 for 100"
    assert first[0]["grade"] != "best" and first[0]["cost"] > 0
    assert first[1]["taken"] == "banked 150" and first[1]["best"] == "throw 4 dice"
    assert first[1]["grade"] == "blunder"
    assert ann["biggest_mistake"]["taken"] == "banked 150"
    assert "best was to throw 4 dice" in ann["biggest_mistake"]["words"]
    assert 0 < ann["accuracy"] < 100
    assert ann["points_lost"] == pytest.approx(sum(d["cost"] for d in first), abs=0.2)
    assert bob["judged_decisions"] == 0 and bob["accuracy"] is None and bob["quick_turns"] == 1
    assert body["turns"][1]["quick"] and body["turns"][1]["dice"] is None
    for turn in body["turns"]:
        if not turn["quick"]:
            assert turn["dice"] + turn["choices"] == pytest.approx(turn["difference"], abs=1e-9)
    assert body["luckiest_throw"]["dice"] == [1, 1, 1, 2, 5, 5]
    assert [c["score"] for c in ann["chart"]] == [0, 150, 1250]
    assert body["win_chance"] == "not_yet_available"
    assert "not yet available" in body["win_chance_message"]


def test_undo_invalidates_the_cached_review(client: FlaskClient) -> None:
    g = _played(client)
    assert g.review()["status"] == "final"
    g.act("undo")
    body = g.review()
    assert body["status"] == "in_progress" and body["message"] == IN_PROGRESS
    assert body["version"] == g.version
    assert body["turns"][-1]["complete"] is False
    g.act("throw", dice=[2])  # the bank undone: Ann throws her last die and farkles
    body = g.review()
    assert body["turns"][-1]["complete"] is True and body["turns"][-1]["result"] == 0


def test_quick_scores_only_and_unknown_game(client: FlaskClient) -> None:
    g = Play(client, ["Ann", "Bob", "Cy"])
    g.act("quick_score", points=300)
    body = g.review()
    assert body["message"] == QUICK_ONLY
    assert body["win_chance"] == "two_players_only"
    r = client.get("/api/games/nosuchgame/review")
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"


def test_win_chance_costs_once_the_table_exists(app: Flask, client: FlaskClient) -> None:
    rules = {"preset": "minimal", "overrides": {"target": 500, "final_round": False}}
    g = Play(client, ["Ann", "Bob"], rules)
    g.act("throw", dice=[1, 5, 2, 3, 4, 6])
    g.act("keep", dice=[1, 5])
    g.act("bank")
    assert g.review()["win_chance"] == "not_yet_available"
    solve_winprob(Rules.from_dict(g.rules), Path(app.config["CACHE_DIR"]) / "winprob")
    body = g.review()
    assert body["win_chance"] == "available" and body["win_chance_message"] is None
    keep, bank = body["turns"][0]["decisions"]
    assert keep["win_cost"] is not None and bank["win_cost"] is not None
    assert bank["win_cost"] > 0
    assert body["players"][0]["win_chance_lost"] == pytest.approx(
        keep["win_cost"] + bank["win_cost"], abs=1e-5
    )


def test_cli_review(app: Flask, client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    g = _played(client)
    db, cache = app.config["DATABASE"], app.config["CACHE_DIR"]
    assert main(["review", g.id, "--db", db, "--cache-dir", cache, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["status"] == "final" and body["players"][0]["name"] == "Ann"
    assert main(["review", g.id, "--db", db, "--cache-dir", cache]) == 0
    text = capsys.readouterr().out
    assert "Ann: accuracy" in text and "biggest mistake: Turn 1" in text
    assert main(["review", "nosuchgame", "--db", db, "--cache-dir", cache]) == 2
    assert "no game has the id" in capsys.readouterr().err
    missing = str(Path(db).with_name("none.sqlite3"))
    assert main(["review", g.id, "--db", missing]) == 2


def test_a_finished_review_is_computed_once(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = _played(client)
    first = g.review()
    clear_reviews()  # a new process: the memory is empty, the database keeps the review

    def fail(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("reviewed again")

    monkeypatch.setattr(service, "review_events", fail)
    assert g.review() == first
    g.act("undo")  # a new version: reviewed afresh
    with pytest.raises(AssertionError, match="reviewed again"):
        g.review()


def test_the_review_reads_a_corrected_turn(client: FlaskClient) -> None:
    g = _played(client)
    turns = g.review()["turns"]
    assert turns[0]["score_after"] == 150
    fixed = [
        {"type": "throw", "dice": [1, 1, 5, 2, 3, 4]},
        {"type": "keep", "dice": [1, 1, 5]},
        {"type": "bank"},
    ]
    g.act("correct", turn=1, actions=fixed)  # a new version: reviewed afresh
    body = g.review()
    first = body["turns"][0]
    assert first["score_after"] == 250 and first["throws"][0]["dice"] == [1, 1, 2, 3, 4, 5]
    assert body["turns"][2]["score_after"] == turns[2]["score_after"] + 100
