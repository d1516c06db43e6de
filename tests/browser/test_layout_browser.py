"""Layouts that hold: the longest names a game takes, at a phone's, a tablet's and a projector's
size, on every game page: no sideways scrolling, no control hidden under another, names cut
with an ellipsis (the full name on hover), and the advised action as the primary button.

Screenshots go to test-artifacts/layout-*.png.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import COVERED_JS, WIDE_JS, api, new_game, open_play_page

from scorekeeper.game.actions import MAX_NAME

pytestmark = pytest.mark.browser

SIZES = [(360, 740), (768, 1024), (1920, 1080)]
LONG = ("Bartholomew Maximilian Featherstonehaugh" + "x" * MAX_NAME)[:MAX_NAME]


def _check(tab: Tab, name: str) -> None:
    page = tab.page
    assert page.evaluate(WIDE_JS) <= 0, f"{name}: the page scrolls sideways"
    assert page.evaluate(COVERED_JS) == [], f"{name}: a control is covered"
    tab.shot(name)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_long_names_fit_every_game_page(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id, token = new_game(live_server, [LONG, "Ann", "Bob"], "standard")
    tab = open_tab(*size)
    page = tab.page
    open_play_page(live_server, tab, game_id, token)
    # the turn's title cuts the name but keeps "'s turn"; the full name is on hover
    title = page.locator("#turn-title .tname")
    assert title.get_attribute("title") == LONG
    assert page.locator("#turn-title").inner_text().endswith("'s turn")
    assert page.locator("#scores .pname").first.get_attribute("title") == LONG
    _check(tab, f"layout-play-pad-{size[0]}")
    # before anything is banked, the action bar never covers the pad's keys
    for face in range(1, 7):
        key = page.locator(f"#pad button[data-face='{face}']")
        key.scroll_into_view_if_needed()
        box = key.bounding_box()
        assert box is not None
        hit = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('#pad') !== null",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert hit, f"the {face} key is covered"

    api(live_server, f"/api/games/{game_id}/actions", {"version": 0, "type": "throw",
        "dice": [1, 5, 2, 3, 4, 6]}, token)  # fmt: skip
    page.wait_for_selector("#keeps-section:not([hidden])")
    page.wait_for_function("() => /advised/.test(document.querySelector('#act-throw').textContent)")
    # the advised action (throwing on with hot dice) is the primary button, named in words
    assert "primary" in (page.locator("#act-throw").get_attribute("class") or "")
    assert "primary" not in (page.locator("#act-bank").get_attribute("class") or "")
    _check(tab, f"layout-play-keep-{size[0]}")

    for path in (f"/history/{game_id}", f"/board/{game_id}"):
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        assert LONG in page.content() or page.locator(f"[title='{LONG}']").count() > 0
        _check(tab, f"layout-{path.split('/')[1]}-{size[0]}")
    assert tab.errors == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_an_advised_bank_is_the_primary_button_and_in_view(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard")
    tab = open_tab(*size)
    page = tab.page
    open_play_page(live_server, tab, game_id, token)
    # three 1s and two 5s, one die left: the advisor keeps them all and banks 1,100
    api(live_server, f"/api/games/{game_id}/actions", {"version": 0, "type": "throw",
        "dice": [1, 1, 1, 5, 5, 2]}, token)  # fmt: skip
    page.wait_for_function("() => /advised/.test(document.querySelector('#act-bank').textContent)")
    bank, throw = page.locator("#act-bank"), page.locator("#act-throw")
    assert "primary" in (bank.get_attribute("class") or "")
    assert "primary" not in (throw.get_attribute("class") or "")
    assert "(advised)" in bank.inner_text() and "(advised)" not in throw.inner_text()
    # the advised keep leads the options, marked in words, not by colour alone
    best = page.locator("#keeps-best").inner_text()
    assert best.startswith("Best") and "Advice: Keep 1 1 1 5 5 and bank" in best
    # without scrolling, the advised action is on screen and nothing lies over it
    box = bank.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size[1]
    hit = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('#act-bank') !== null",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert hit, "the advised bank is covered"
    _check(tab, f"layout-play-bank-advised-{size[0]}")
    # banked from a page scrolled down: the next player's turn is brought into view
    bank.scroll_into_view_if_needed()
    bank.click()
    page.wait_for_function("() => /^Bob/.test(document.querySelector('#turn-title').textContent)")
    top = page.evaluate("() => document.querySelector('#turn-title').getBoundingClientRect().top")
    below = page.evaluate("() => document.querySelector('.topbar').getBoundingClientRect().bottom")
    assert below <= top < size[1], "the new turn's title is out of view"
    assert tab.errors == []
