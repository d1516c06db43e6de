"""triple_addon from the setup page to the play page and the history (360x740 and 1920x1080):
the option is set in the rule editor, a later 6 after three 6s is offered as "6 on the
earlier triple" with the turn's note, and the history names it.
Screenshots: test-artifacts/triple-addon-*.png."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import COVERED_JS, WIDE_JS, api, open_setup_page, set_option

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", [(360, 740), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_later_six_adds_100_on_the_page(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    tab = open_tab(*size)
    page = tab.page
    open_setup_page(page, live_server.url)
    for name, value in (("triple_addon", "100"), ("opening_minimum", "0")):
        set_option(page, name, value)
    assert "earlier in the turn" in page.inner_text("#help-triple_addon")
    page.locator("#opt-triple_addon").scroll_into_view_if_needed()
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"triple-addon-setup-{size[0]}x{size[1]}")
    page.click("#start")
    page.wait_for_url("**/play/**")
    game_id = page.url.rsplit("/", 1)[1]
    assert api(live_server, f"/api/games/{game_id}")["rules"]["triple_addon"] == 100
    token = page.evaluate(f"() => localStorage.getItem('scorekeeper.token.{game_id}')")
    assert token
    version = api(live_server, f"/api/games/{game_id}")["version"]
    for action in (
        {"type": "throw", "dice": [6, 6, 6, 2, 3, 4]},
        {"type": "keep", "dice": [6, 6, 6]},
        {"type": "throw", "dice": [6, 2, 3]},
    ):
        path = f"/api/games/{game_id}/actions"
        version = api(live_server, path, {"version": version, **action}, token)["version"]
    page.wait_for_function(
        "() => /on the earlier triple/.test(document.querySelector('#keeps-best').textContent)"
    )
    page.wait_for_function(
        "() => /not exact: triple_addon/.test(document.querySelector('#keeps-best').textContent)"
    )
    assert "100" in page.inner_text("#keeps-best")
    note = page.inner_text("#turn-note")
    assert "Kept as three of a kind this turn: 6s" in note and "adds 100" in note
    assert page.evaluate(WIDE_JS) <= 0
    assert page.evaluate(COVERED_JS) == []
    tab.shot(f"triple-addon-play-{size[0]}x{size[1]}")
    page.goto(f"{live_server.url}/board/{game_id}")
    page.wait_for_function(
        "() => /kept as three of a kind: 6s/.test(document.querySelector('#bt-sub').textContent)"
    )
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"triple-addon-board-{size[0]}x{size[1]}")
    path = f"/api/games/{game_id}/actions"
    version = api(live_server, path, {"version": version, "type": "keep", "dice": [6]}, token)[
        "version"
    ]
    api(live_server, path, {"version": version, "type": "bank"}, token)
    page.goto(f"{live_server.url}/history/{game_id}")
    row = page.locator("#log tr[data-turn='1']")
    row.wait_for()
    assert "(6 on the earlier triple)" in row.inner_text()
    assert "banked 700" in row.inner_text()
    tab.shot(f"triple-addon-history-{size[0]}x{size[1]}")
    assert tab.errors == []
