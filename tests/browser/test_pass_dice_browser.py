"""Passing dice on a phone (360x740): set up with pass_dice, bank, and the next player's choice
between taking over and fresh dice, with the advice. Screenshots: test-artifacts/pass-*.png.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import (
    COVERED_JS,
    WIDE_JS,
    api,
    choose_keep,
    open_setup_page,
    set_option,
    tap_throw,
    wait_enabled,
    wait_js,
    wait_version,
)

pytestmark = pytest.mark.browser


def test_pass_dice_from_setup_to_the_take_over_choice(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    tab = open_tab(360, 740)
    page = tab.page
    open_setup_page(page, live_server.url)
    page.check("#opt-pass_dice")
    set_option(page, "opening_minimum", "0")
    page.locator("#opt-pass_dice").scroll_into_view_if_needed()
    assert "take over the banked total" in page.inner_text("#help-pass_dice")
    tab.shot("pass-setup-360")
    page.click("#start")
    page.wait_for_url("**/play/**")
    game_id = page.url.rsplit("/", 1)[1]
    game = api(live_server, f"/api/games/{game_id}")
    assert game["rules"]["pass_dice"] is True
    page.wait_for_selector("#pad button[data-face='1']:not([disabled])")

    # Ann keeps three 1s and banks 1,000 with three dice left
    tap_throw(tab, [1, 1, 1, 2, 3, 4])
    choose_keep(tab, [1, 1, 1])
    page.click("#act-bank")
    page.wait_for_selector("#pass-section:not([hidden])")
    assert page.inner_text("#pass-title") == "Ann banked 1,000 and passes 3 dice"
    assert page.is_hidden("#pad-section") and page.is_hidden("#actions")
    wait_js(tab, "document.querySelector('#pass-advice').textContent.startsWith('Advice')",
            timeout=30)  # fmt: skip
    assert "Take over 1000 with 3 dice" in page.inner_text("#pass-advice")
    assert page.inner_text("#pass-take") == "Take over 1,000, throw 3 dice (advised)"
    assert "primary" in (page.get_attribute("#pass-take", "class") or "")
    assert page.evaluate(WIDE_JS) <= 0
    assert page.evaluate(COVERED_JS) == []
    tab.shot("pass-choice-360")

    page.set_viewport_size({"width": 1920, "height": 1080})  # the same choice on a laptop
    assert page.evaluate(COVERED_JS) == [] and page.evaluate(WIDE_JS) <= 0
    tab.shot("pass-choice-1920")
    page.set_viewport_size({"width": 360, "height": 740})
    board = open_tab(1280, 720)
    board.page.goto(f"{live_server.url}/board/{game_id}")
    wait_js(board, "document.querySelector('#bt-sub').textContent.includes('passes')")
    assert "Ann passes 1,000 and 3 dice: take over or throw fresh?" in board.page.inner_text(
        "#bt-sub"
    )
    page.click("#pass-take")
    wait_js(board, "document.querySelector('#bt-sub').textContent.includes('took over')")
    assert board.errors == []
    page.wait_for_selector("#pad-section:not([hidden])")
    assert page.inner_text("#turn-total") == "1,000" and page.inner_text("#dice-left") == "3"
    assert "Took over Ann's 1,000" in page.inner_text("#turn-note")
    assert page.is_disabled("#act-bank")
    tap_throw(tab, [5, 2, 3])
    choose_keep(tab, [5])
    page.click("#act-bank")
    wait_version(tab, 7)
    state = api(live_server, f"/api/games/{game_id}")["state"]
    assert [p["score"] for p in state["players"]] == [1000, 1050]
    assert state["turn"]["passed"] == {"total": 1050, "dice": 2, "from": "Bob"}
    page.wait_for_selector("#pass-section:not([hidden])")
    wait_enabled(tab, "#pass-fresh")  # the bank has settled
    page.keyboard.press("b")  # no bank before the choice: the key does nothing
    page.keyboard.press("f")  # the keyboard's choice: fresh dice
    page.wait_for_selector("#pad-section:not([hidden])")
    assert page.inner_text("#turn-total") == "0" and page.inner_text("#dice-left") == "6"
    tab.shot("pass-fresh-360")
    assert tab.errors == []
