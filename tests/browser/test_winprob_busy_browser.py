"""The play page's win chances when the server is too busy to work them out (503 with
Retry-After): it says so in words and asks again when told, instead of going quiet until the
next throw. Screenshot: test-artifacts/winprob-busy-360.png."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from helpers.browser import Server, Tab
from helpers.pages import new_game, open_play_page

pytestmark = pytest.mark.browser


def test_a_busy_solver_is_said_and_asked_again(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard")
    tab = open_tab(360, 740)
    page = tab.page
    refused: list[str] = []
    seen = False

    # busy until the test has seen the page say so (a single refusal's 1 s of "busy" can pass
    # unseen on a loaded machine), then the solver answers
    def busy_until_seen(route: Any) -> None:
        if seen:
            route.continue_()
            return
        refused.append(route.request.url)
        route.fulfill(
            status=503,
            headers={"Retry-After": "1", "Content-Type": "application/json"},
            body=json.dumps({"error": "solver_busy", "message": "too many solves wait"}),
        )

    page.route("**/winprob", busy_until_seen)
    open_play_page(live_server, tab, game_id, token)
    box = page.locator("#winprob")
    box.wait_for(state="visible")
    page.wait_for_function(
        "() => /server is busy/.test(document.querySelector('#winprob').textContent)"
    )
    assert "asking again in 1 s" in box.inner_text()
    tab.shot("winprob-busy-360")
    seen = True
    # asked again after a second: now it works them out (or has them)
    page.wait_for_function(
        "() => !/server is busy/.test(document.querySelector('#winprob').textContent)",
        timeout=10_000,
    )
    assert len(refused) >= 1
