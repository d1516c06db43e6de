"""The review in headless Chromium: the end-of-game cards on the play page and the board, and
the players page with its charts."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import api

pytestmark = pytest.mark.browser

RULES = {"preset": "minimal", "overrides": {"target": 1000, "final_round": False}}


def _finished_game(server: Server) -> tuple[str, str]:
    """Ann banks 150 from 1 2 3 4 5 6 (two blunders), Bob farkles, Ann throws 1 1 1 5 5 2."""
    game = api(server, "/api/games", {"players": ["Ann", "Bob"], "rules": RULES})
    game_id, token, version = game["id"], game["control_token"], 0
    for action in (
        {"type": "throw", "dice": [1, 5, 2, 3, 4, 6]},
        {"type": "keep", "dice": [1, 5]},
        {"type": "bank"},
        {"type": "throw", "dice": [2, 3, 4, 6, 6, 3]},
        {"type": "throw", "dice": [1, 1, 1, 5, 5, 2]},
        {"type": "keep", "dice": [1, 1, 1, 5, 5]},
        {"type": "bank"},
    ):
        body = {"version": version, **action}
        version = api(server, f"/api/games/{game_id}/actions", body, token)["version"]
    return game_id, token


def test_review_cards_and_players_page(live_server: Server, open_tab: Callable[..., Tab]) -> None:
    game_id, token = _finished_game(live_server)
    play = open_tab(768, 1024)
    play.page.goto(f"{live_server.url}/play/{game_id}#t={token}")
    play.page.wait_for_selector("#review:not([hidden]) .review-card", timeout=20000)
    cards = play.page.locator("#review .review-card")
    assert cards.count() == 2
    ann = play.page.locator("#review .review-card[data-player='Ann']").inner_text()
    assert "Decision accuracy" in ann and "banked 150" in ann and "best was to throw 4 dice" in ann
    assert play.page.locator("#review .review-card[data-player='Ann'] svg path").count() == 2
    assert "Luckiest throw" in play.page.locator("#review").inner_text()
    play.shot("review-play")

    board = open_tab(1280, 720)
    board.page.goto(f"{live_server.url}/board/{game_id}")
    board.page.wait_for_selector("#review:not([hidden]) .review-card", timeout=20000)
    assert board.page.locator("#review .review-card").count() == 2
    board.shot("review-board")

    players = open_tab(1280, 800)
    players.page.goto(f"{live_server.url}/players")
    players.page.wait_for_selector(".players-table tr[data-player='Ann']", timeout=20000)
    assert players.page.locator("#players-charts svg").count() == 2
    players.shot("players")
    for tab in (play, board, players):
        assert not tab.errors, tab.errors
