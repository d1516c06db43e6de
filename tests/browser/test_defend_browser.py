"""The "defend your win" final round on the play page and the board: a player a final-round
farkle put out is marked out, and the banner names them. Screenshot: test-artifacts/defend-360.png.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import new_game, open_play_page, quick_scores, text, wait_js, wait_version

pytestmark = pytest.mark.browser


def test_a_player_put_out_is_marked_on_the_play_page_and_the_board(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    game_id, token = new_game(
        live_server,
        ["Ann", "Bob", "Cy"],
        "standard",
        opening_minimum=0,
        target=1000,
        final_round_defend=True,
    )
    version = quick_scores(live_server, game_id, token, (1000, 0))  # Ann 1,000; Bob out
    tab = open_tab(360, 740)
    open_play_page(live_server, tab, game_id, token)
    wait_version(tab, version)
    assert "Out: Bob." in text(tab, "#final-banner")
    flags = tab.page.eval_on_selector_all(".pflags", "els => els.map(e => e.textContent)")
    assert flags[1].startswith("out of the final round") and "out" not in flags[0] + flags[2]
    tab.shot("defend-360")
    board = open_tab(1280, 720)
    board.page.goto(f"{live_server.url}/board/{game_id}")
    wait_js(board, "document.querySelectorAll('#board-scores .bflags').length >= 1")
    assert "out of the final round" in text(board, "#board-scores")
    assert tab.errors == [] and board.errors == []
