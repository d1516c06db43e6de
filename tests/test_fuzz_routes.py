"""Random requests at every route of the app (issue 31, item 11): at least 10,000 bodies and
queries, seeded, and not one answer of 5xx nor one traceback in the log.

The routes come from ``app.url_map``, so a route added later is thrown at too. The advisor and
the win-chance solver are replaced by instant fakes (their answers are not what this checks;
a real solve takes CPU minutes), everything else is the real app on a real SQLite file.
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper.web import api_advice, jobs

BATCH = 20
EXAMPLES = 500  # of BATCH requests each: 10,000 requests
FIELDS = [
    "dice", "rules", "set", "limit", "dice_left", "throw", "turn_total", "banked", "on_board",
    "streak", "beat", "compensation", "scores", "solve", "players", "t", "format",
]  # fmt: skip
BODY_KEYS = [
    "version", "type", "dice", "source", "points", "name", "team", "player", "undoes",
    "redoes", "turn", "actions", "players", "teams", "rules", "start_scores", "preset",
    "overrides", "recorded", "game", "area", "x0", "y0", "x1", "y1", "into", "reason",
    "order", "confirm", "rolloff", "format",
]  # fmt: skip
ACTION_TYPES = [
    "throw", "keep", "bank", "quick_score", "join", "leave", "undo", "redo", "correct", "roll",
    "adjust",
]  # fmt: skip
NASTY = ["", "²", "①", "٣", "9" * 5000, "-1", "1e9", "%FF%FE", "\x00", "\ud800", "a\n", "1,1,5"]

ALPHABET = "aZ09_-.,=/%?&#\n\t \x00²①٣é😀\ud800"


def _text(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return rng.choice(NASTY)
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 10)))


def _number(rng: random.Random) -> int | float:
    pick = rng.random()
    if pick < 0.5:
        return rng.randint(-2, 9)
    if pick < 0.8:
        return rng.randint(-(10**6), 10**6)
    if pick < 0.9:
        return rng.choice([10**30, -(10**30), 2**63])
    return rng.uniform(-1e9, 1e9)


def _json(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.random()
    if depth < 4 and pick < 0.25:
        return [_json(rng, depth + 1) for _ in range(rng.randint(0, 6))]
    if depth < 4 and pick < 0.45:
        return {_text(rng): _json(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return rng.choice([None, True, False, _number(rng), _text(rng)])


def _shaped(rng: random.Random, game_id: str) -> dict[str, Any]:
    body: dict[str, Any] = {k: _json(rng, 2) for k in rng.sample(BODY_KEYS, rng.randint(0, 5))}
    if rng.random() < 0.6:
        body["type"] = rng.choice(ACTION_TYPES)
        body["version"] = rng.randint(-1, 4)
    if rng.random() < 0.5:
        body["dice"] = [rng.randint(0, 7) for _ in range(rng.randint(0, 7))]
    if rng.random() < 0.3:
        body["players"] = [_text(rng) or "Ann" for _ in range(rng.randint(0, 9))]
    if rng.random() < 0.2:
        body["recorded"] = rng.choice([None, [rng.randint(1, 6)], _json(rng)])
        body["game"] = rng.choice([game_id, _text(rng)])
    return body


def _body(rng: random.Random, game_id: str) -> tuple[bytes | None, str | None]:
    """A body and its Content-Type: JSON shaped like the API's, any JSON, or any bytes."""
    ctype = rng.choice(["application/json"] * 3 + ["text/plain", "image/jpeg", "multipart/x"])
    kind = rng.choice(["none", "shaped", "shaped", "json", "bytes", "deep"])
    if kind == "none":
        return None, rng.choice([ctype, None])
    if kind == "bytes":
        return rng.randbytes(rng.randint(0, 200)), ctype
    if kind == "deep":
        depth = rng.randint(1, 3000)
        return ("[" * depth + "]" * depth).encode(), ctype
    value = _shaped(rng, game_id) if kind == "shaped" else _json(rng)
    return json.dumps(value).encode("utf-8", "surrogatepass"), ctype


def _encode(value: str) -> bytes:
    return value.encode("utf-8", "surrogatepass")


def random_request(
    rng: random.Random, routes: list[tuple[str, list[str]]], game: dict[str, str]
) -> dict[str, Any]:
    """One request: a route of the app with its path fields filled, a method, a query, a body."""
    rule, methods = rng.choice(routes)

    def path_value(_: re.Match[str]) -> str:
        pick = rng.random()
        value = game["id"] if pick < 0.6 else _text(rng) or "x"
        return quote(_encode(value), safe="")

    url = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", path_value, rule)
    method = rng.choice(methods) if rng.random() < 0.9 else rng.choice(["GET", "POST", "PUT"])
    query = [
        (rng.choice(FIELDS) if rng.random() < 0.8 else _text(rng), _text(rng))
        for _ in range(rng.randint(0, 4))
    ]
    body, ctype = _body(rng, game["id"]) if method != "GET" else (None, None)
    headers: dict[str, str] = {}
    if rng.random() < 0.5:
        headers["Authorization"] = "Bearer " + rng.choice([game["token"], "x", ""])
    if rng.random() < 0.2:
        headers["Origin"] = rng.choice(["http://localhost", "http://evil:81", "null"])
    qs = urlencode([(_encode(k), _encode(v)) for k, v in query])
    return {
        "method": method,
        "path": url + ("?" + qs if qs else ""),
        "data": body,
        "content_type": ctype,
        "headers": headers,
    }


def _routes(app: Flask) -> list[tuple[str, list[str]]]:
    out = []
    for rule in app.url_map.iter_rules():
        methods = sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})
        out.append((rule.rule, methods or ["GET"]))
    return sorted(out)


@pytest.fixture
def fuzz_app(make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch) -> Flask:
    """The app as served (errors answered, not raised), with instant fake solvers."""
    monkeypatch.setattr(api_advice, "advisor", lambda: lambda **_: {"message": "fake"})
    monkeypatch.setattr(jobs, "_solve", lambda *_: None)
    return make_app(
        TESTING=False,
        CAMERA="none",
        ADVICE=False,
        WINPROB_WORKER="thread",
        STREAM_SECONDS=0.01,
        STREAM_KEEPALIVE_S=0.01,
    )


def test_random_requests_at_every_route_never_5xx(
    fuzz_app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    client: FlaskClient = fuzz_app.test_client()
    made = client.post("/api/games", json={"players": ["Ann", "Bob"]}).get_json()
    game = {"id": made["id"], "token": made["control_token"]}
    routes = _routes(fuzz_app)
    assert len(routes) >= 25  # every blueprint registered
    statuses: dict[int, int] = {}
    sent = [0]

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.randoms(use_true_random=False))
    def throw(rng: random.Random) -> None:
        for req in (random_request(rng, routes, game) for _ in range(BATCH)):
            resp = client.open(**req)
            try:
                if resp.mimetype.startswith(("text/event-stream", "multipart/x-mixed")):
                    body = b""
                else:
                    body = resp.get_data()
                assert resp.status_code < 500, (req["method"], req["path"][:120], body[:300])
            finally:
                resp.close()
            statuses[resp.status_code] = statuses.get(resp.status_code, 0) + 1
            sent[0] += 1

    with caplog.at_level(logging.WARNING):
        throw()
    assert sent[0] >= EXAMPLES * BATCH
    print(sorted(statuses.items()))
    assert statuses.get(200, 0) > sent[0] // 10  # not all refused at the door
    tracebacks = [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert not tracebacks, tracebacks[0].getMessage()
