"""Undo on the play page: the button names what it takes back, a double tap takes back one
action, the page says what was undone with a Redo until the next action; at a phone's, a
tablet's and a projector's size. Screenshots go to test-artifacts/undo-*.png.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import (
    api,
    choose_keep,
    new_game,
    open_play_page,
    tap_throw,
    wait_js,
    wait_version,
)

pytestmark = pytest.mark.browser

SIZES = [(360, 740), (768, 1024), (1920, 1080)]
IN_VIEW_JS = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; }"""
WIDE_JS = "() => document.documentElement.scrollWidth - innerWidth"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_undo_says_what_it_undid_and_redo_puts_it_back(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard")
    tab = open_tab(*size)
    page = tab.page
    open_play_page(live_server, tab, game_id, token)
    assert page.is_disabled("#undo")  # nothing to undo yet
    # a short name is not cut in the turn's title
    assert page.evaluate(
        "() => { const n = document.querySelector('#turn-title .tname');"
        " return n.scrollWidth <= n.clientWidth; }"
    )
    tap_throw(tab, [1, 5, 2, 3, 4, 6])
    choose_keep(tab, [1, 5])
    page.click("#act-throw")
    wait_version(tab, 2)
    assert page.get_attribute("#undo", "aria-label") == "Undo: Ann kept 1 5, 150"

    page.dblclick("#undo")  # a double tap: one undo
    page.wait_for_selector("#undo-bar:not([hidden])")
    page.wait_for_timeout(400)  # let a second request, were one sent, land
    events = api(live_server, f"/api/games/{game_id}/events")["events"]
    assert [e["type"] for e in events] == ["create", "throw", "keep", "undo"]
    assert page.inner_text("#undo-text") == "Undid: Ann kept 1 5, 150"
    assert page.is_visible("#keeps-section")  # the throw is still there, waiting for a keep
    assert page.get_attribute("#undo", "aria-label") == "Undo: Ann threw 1 2 3 4 5 6"
    assert page.evaluate(WIDE_JS) <= 0
    # where the player is (the keeps, scrolled down on a phone): "Undid" with Redo in the sticky
    # top bar, and the word on the second tap in view too
    page.locator("#keeps-section").scroll_into_view_if_needed()
    page.wait_for_function(
        "() => /Already undone/.test(document.querySelector('#message').textContent)"
    )
    assert page.evaluate(IN_VIEW_JS, "#redo"), "Redo is out of view"
    if size[0] < 560:  # a phone: the message sticks to the bottom with the turn's buttons
        assert page.evaluate(IN_VIEW_JS, "#message"), "the second tap's message is out of view"
    tab.shot(f"undo-undid-{size[0]}", full_page=False)

    page.click("#redo")
    page.wait_for_selector("#undo-bar", state="hidden")
    assert page.inner_text("#turn-total") == "150"
    assert page.get_attribute("#undo", "aria-label") == "Undo: Ann kept 1 5, 150"

    page.click("#undo")
    page.wait_for_selector("#undo-bar:not([hidden])")
    choose_keep(tab, [1])  # the next action: nothing to redo any more
    page.click("#act-throw")
    page.wait_for_selector("#undo-bar", state="hidden")
    assert page.inner_text("#turn-total") == "100"

    # another tablet acts and then this page's stale Redo is refused with words: the page
    # shows the bar from an undo made elsewhere, and the game moves on before the tap
    state = api(live_server, f"/api/games/{game_id}")
    undone = api(live_server, f"/api/games/{game_id}/actions",
                 {"version": state["version"], "type": "undo",
                  "undoes": state["state"]["undoable"]["version"]}, token)  # fmt: skip
    wait_version(tab, undone["version"])
    page.wait_for_selector("#undo-bar:not([hidden])")
    page.evaluate("() => window.scorekeeperClient.source.close()")  # it misses the news
    api(live_server, f"/api/games/{game_id}/actions",
        {"version": undone["version"], "type": "keep", "dice": [5]}, token)  # fmt: skip
    page.click("#redo")
    wait_js(tab, "/game moved on/.test(document.querySelector('#message').textContent)")
    assert page.is_hidden("#undo-bar")  # the page now shows the current state
    tab.shot(f"undo-redo-refused-{size[0]}")
    # the browser logs each refusal (the double tap's second undo, the stale redo); no others
    assert [e for e in tab.errors if "status of 409" not in e] == []
