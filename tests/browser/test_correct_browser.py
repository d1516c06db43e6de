"""Correcting a past throw from the history page, at a phone's, a tablet's and a projector's
size: the editor starts from the turn as entered, the server's refusal shows before anything is
saved, a legal correction shows the new totals, and once saved the history marks the turn and
every total after it is replayed. Screenshots go to test-artifacts/correct-*.png.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import COVERED_JS, WIDE_JS, api, new_game, wait_enabled, wait_js

pytestmark = pytest.mark.browser

SIZES = [(360, 740), (768, 1024), (1920, 1080)]


def _play(server: Server) -> tuple[str, str]:
    """Ann banks 150 (1 5 of 1 5 2 3 4 6), Bob quick-scores 300, Ann banks 1,000."""
    game_id, token = new_game(server, ["Ann", "Bob"], "standard", opening_minimum=0)
    version = 0
    for action in (
        {"type": "throw", "dice": [1, 5, 2, 3, 4, 6]},
        {"type": "keep", "dice": [1, 5]},
        {"type": "bank"},
        {"type": "quick_score", "points": 300},
        {"type": "throw", "dice": [1, 1, 1, 2, 3, 4]},
        {"type": "keep", "dice": [1, 1, 1]},
        {"type": "bank"},
    ):
        body = {"version": version, **action}
        version = api(server, f"/api/games/{game_id}/actions", body, token)["version"]
    return game_id, token


def _check(tab: Tab, name: str) -> None:
    assert tab.page.evaluate(WIDE_JS) <= 0, f"{name}: the page scrolls sideways"
    assert tab.page.evaluate(COVERED_JS) == [], f"{name}: a control is covered"
    tab.shot(name)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_correct_a_past_throw_from_the_history(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id, token = _play(live_server)
    watcher = open_tab(*size)  # without the control token: no Correct buttons
    watcher.page.goto(f"{live_server.url}/history/{game_id}")
    watcher.page.wait_for_selector("table.log")
    assert watcher.page.locator(".correct-btn").count() == 0

    tab = open_tab(*size)
    page = tab.page
    page.goto(f"{live_server.url}/history/{game_id}#t={token}")
    page.wait_for_selector(".correct-btn[data-turn='1']")
    assert page.locator(".correct-btn").count() == 3
    page.click(".correct-btn[data-turn='1']")
    page.wait_for_selector("#correct-box:not([hidden])")
    # the editor starts from the turn as it was entered
    assert page.input_value("#correct-rows li .c-dice") == "1 2 3 4 5 6"
    assert page.input_value("#correct-rows li .c-keep") == "1 5"
    wait_js(
        tab,
        "/Ann 1,150 \\(unchanged\\)/.test(document.querySelector('#correct-preview').textContent)",
    )

    # an illegal keep: the server's refusal shows before saving, and Save stays off
    page.fill("#correct-rows li .c-dice", "1 1 5 2 3 4")
    page.fill("#correct-rows li .c-keep", "2")
    wait_js(tab, "/Refused/.test(document.querySelector('#correct-preview').textContent)")
    assert "not a legal keep" in page.inner_text("#correct-preview")
    assert page.is_disabled("#correct-save")
    _check(tab, f"correct-refused-{size[0]}")

    page.fill("#correct-rows li .c-keep", "1 1 5")
    wait_enabled(tab, "#correct-save")
    said = page.inner_text("#correct-preview")
    assert "Ann 1,150 → 1,250" in said and "Bob 300 (unchanged)" in said
    _check(tab, f"correct-preview-{size[0]}")

    page.click("#correct-save")
    page.wait_for_selector("#correct-box", state="hidden")
    wait_js(tab, "/corrected/.test(document.querySelector('#log-message').textContent)")
    row = page.locator("#log tr[data-turn='1']")
    assert "corrected" in (row.get_attribute("class") or "")
    assert "was 1 2 3 4 5 6 kept 1 5 (150), bank 150" in row.inner_text()
    assert "Ann 1,250" in page.inner_text("#summary")
    assert page.locator("#log tr[data-turn='3'] td").last.inner_text() == "1,250"
    _check(tab, f"correct-saved-{size[0]}")
    # a quick-scored turn is corrected by its points; Cancel leaves everything as it was
    page.click(".correct-btn[data-turn='2']")
    assert page.input_value("#correct-points") == "300" and page.is_hidden("#correct-dice")
    page.fill("#correct-points", "250")
    wait_js(tab, "/Bob 300 → 250/.test(document.querySelector('#correct-preview').textContent)")
    page.click("#correct-cancel")
    page.wait_for_selector("#correct-box", state="hidden")
    state = api(live_server, f"/api/games/{game_id}")
    assert state["state"]["history"][0]["corrected"]["was"]["banked"] == 150
    assert state["state"]["history"][1]["banked"] == 300 and state["version"] == 8
    assert tab.errors == [] and watcher.errors == []
