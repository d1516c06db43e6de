"""New games per address: a sliding window, 429 in words with Retry-After beyond it."""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask

from scorekeeper.web.ratelimit import WindowLimiter

BODY = {"players": ["Ann", "Bob"]}


def test_a_device_starting_too_many_games_is_told_when_to_try_again(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(GAMES_PER_WINDOW=3, GAMES_WINDOW_S=600)
    client = app.test_client()
    for _ in range(3):
        assert client.post("/api/games", json=BODY).status_code == 201
    refused = client.post("/api/games", json=BODY)
    assert refused.status_code == 429
    assert refused.json is not None
    assert refused.json["error"] == "too_many_requests"
    assert "started 3 games in the last 10 minutes" in refused.json["message"]
    assert 590 <= int(refused.headers["Retry-After"]) <= 600
    # a rematch is a new game too; another address is not affected
    other = client.post("/api/games", json=BODY, environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert other.status_code == 201
    assert len(client.get("/api/games").json["games"]) == 4


def test_a_refused_setup_does_not_count(make_app: Callable[..., Flask]) -> None:
    client = make_app(GAMES_PER_WINDOW=1).test_client()
    assert client.post("/api/games", json={"players": []}).status_code == 400
    assert client.post("/api/games", json=BODY).status_code == 201


def test_the_window_slides() -> None:
    now = [0.0]
    limiter = WindowLimiter(clock=lambda: now[0])
    assert limiter.take("a", 2, 10) == 0
    now[0] = 3
    assert limiter.take("a", 2, 10) == 0
    assert limiter.take("a", 2, 10) == 7  # until the first leaves the window
    assert limiter.take("b", 2, 10) == 0
    now[0] = 10.5
    assert limiter.take("a", 2, 10) == 0
    assert limiter.take("a", 2, 10) == 2.5
