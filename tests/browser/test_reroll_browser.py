"""reroll_last_pair on the play page and the history (360x740 and 1920x1080): a non-scoring
pair on the last two dice says to throw them again, Bank stays off, and the history names it.
Screenshots: test-artifacts/reroll-*.png."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import WIDE_JS, api, new_game, open_play_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", [(360, 740), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_pair_is_thrown_again_on_the_page(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id, token = new_game(
        live_server, ["Ann", "Bob"], "standard", opening_minimum=0, reroll_last_pair=True
    )
    version = 0
    for action in (
        {"type": "throw", "dice": [1, 1, 1, 5, 2, 3]},
        {"type": "keep", "dice": [1, 1, 1, 5]},
        {"type": "throw", "dice": [3, 3]},
    ):
        path = f"/api/games/{game_id}/actions"
        version = api(live_server, path, {"version": version, **action}, token)["version"]
    tab = open_tab(*size)
    page = tab.page
    open_play_page(live_server, tab, game_id, token)
    note = page.locator("#turn-note")
    page.wait_for_function(
        "() => /throw the two dice again/.test(document.querySelector('#turn-note').textContent)"
    )
    assert "a second one farkles" in note.inner_text()
    assert page.locator("#act-bank").is_disabled()
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"reroll-play-{size[0]}x{size[1]}")
    page.goto(f"{live_server.url}/history/{game_id}")
    api(live_server, f"/api/games/{game_id}/actions",
        {"version": version, "type": "throw", "dice": [4, 4]}, token)  # fmt: skip
    page.reload()
    row = page.locator("#log tr[data-turn='1']")
    row.wait_for()
    assert "(pair: thrown again)" in row.inner_text()
    assert "farkle, 1,050 lost" in row.inner_text()
    tab.shot(f"reroll-history-{size[0]}x{size[1]}")
