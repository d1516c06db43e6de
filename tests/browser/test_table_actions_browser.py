"""Issue 30's table conveniences on the play page: "Roll for me" (and the r key) throws the
app's fair virtual dice for the dice not set aside, and "Adjust a score" takes points with a
reason into the history; at a phone's and a projector's size. Screenshots go to
test-artifacts/table-*.png.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import (
    COVERED_JS,
    WIDE_JS,
    api,
    new_game,
    open_play_page,
    wait_js,
    wait_version,
)

pytestmark = pytest.mark.browser

SIZES = [(360, 740), (1920, 1080)]


def _close_flash(tab: Tab) -> None:
    if tab.page.is_visible("#flash"):
        tab.page.click("#flash-close")
        tab.page.wait_for_selector("#flash", state="hidden")


def _check(tab: Tab, name: str) -> None:
    assert tab.page.evaluate(WIDE_JS) <= 0, f"{name}: the page scrolls sideways"
    assert tab.page.evaluate(COVERED_JS) == [], f"{name}: a control is covered"
    tab.shot(name)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_roll_for_me_and_adjust_a_score(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard")
    actions = f"/api/games/{game_id}/actions"
    api(live_server, actions, {"version": 0, "type": "throw", "dice": [1, 5, 2, 3, 4, 6]}, token)
    api(live_server, actions, {"version": 1, "type": "keep", "dice": [1]}, token)
    tab = open_tab(*size)
    page = tab.page
    open_play_page(live_server, tab, game_id, token)
    wait_version(tab, 2)
    roll = page.locator("#roll-btn")
    assert roll.inner_text().strip().startswith("Roll 5 dice for me")
    _check(tab, f"table-roll-before-{size[0]}")

    page.keyboard.press("r")  # the r key rolls the 5 dice not set aside
    wait_version(tab, 3)
    events = api(live_server, f"/api/games/{game_id}/events")["events"]
    rolled = events[-1]
    assert rolled["type"] == "throw" and rolled["source"] == "app"
    assert len(rolled["dice"]) == 5
    _close_flash(tab)
    state = api(live_server, f"/api/games/{game_id}")["state"]
    if state["phase"] == "keep":  # the turn goes on from the rolled dice: keeps, advice
        assert "virtual dice" in page.inner_text("#turn-sub")
        page.wait_for_selector("#keeps-section:not([hidden])")
        assert page.locator("#keeps-best .keep").count() >= 1
    _check(tab, f"table-rolled-{size[0]}")

    # Adjust a score: refused in the dialog without a reason, then taken with one
    page.click("#adjust-open")
    page.wait_for_selector("#adjust-dialog[open]")
    page.select_option("#adjust-player", "Ann")
    page.fill("#adjust-points", "-1")
    page.click("#adjust-save")
    assert "Give a reason" in page.inner_text("#adjust-error")
    page.fill("#adjust-reason", "sang the farkle song")
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"table-adjust-dialog-{size[0]}")
    page.click("#adjust-save")
    page.wait_for_selector("#adjust-dialog[open]", state="detached")
    state = api(live_server, f"/api/games/{game_id}")["state"]
    assert state["adjustments"][-1]["reason"] == "sang the farkle song"
    assert state["players"][0]["score"] == -1
    assert page.get_attribute("#undo", "aria-label") == "Undo: Ann -1 (sang the farkle song)"
    _close_flash(tab)
    _check(tab, f"table-adjusted-{size[0]}")

    page.goto(f"{live_server.url}/board/{game_id}")
    wait_js(tab, "document.querySelector('#recent').textContent.includes('farkle song')")
    assert "Ann -1 (sang the farkle song) → -1" in page.inner_text("#recent")
    page.goto(f"{live_server.url}/history/{game_id}")
    page.wait_for_selector("#log tr.adjustment")
    row = page.inner_text("#log tr.adjustment")
    assert "sang the farkle song" in row and "-1" in row
    _check(tab, f"table-history-{size[0]}")
    assert tab.errors == []  # a busy win-chance solver's 503 is left out by open_tab


def test_a_watching_device_can_neither_roll_nor_adjust(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    game_id, _token = new_game(live_server, ["Ann", "Bob"], "standard")
    tab = open_tab(360, 740)
    tab.page.goto(f"{live_server.url}/play/{game_id}")
    tab.page.wait_for_selector("#pad button[data-face='1']")
    tab.page.wait_for_selector("#readonly-note:not([hidden])")
    assert tab.page.is_disabled("#roll-btn")
    assert tab.page.is_hidden("#adjust-open")
    assert tab.errors == []
