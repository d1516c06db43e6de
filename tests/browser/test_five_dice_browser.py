"""A five-dice game (``dice=5``) from the setup page to the play page and the board (360x740
and 1920x1080): the option is offered first among the rules, the six-dice options say they do
not apply, a contradiction (a six-dice farkle bonus) is refused in the server's words naming
both options, and the pad, the keeps, hot dice and the board count five dice.
Screenshots: test-artifacts/five-dice-*.png."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import COVERED_JS, WIDE_JS, api, choose_keep, set_option, tap_throw

pytestmark = pytest.mark.browser


def _advised(tab: Tab) -> None:
    """Wait for the advisor's pick (the keep shown first then stays put)."""
    tab.page.wait_for_function(
        "() => /Best/.test(document.querySelector('#keeps-best').textContent)", timeout=20000
    )


@pytest.mark.parametrize(("width", "height"), [(360, 740), (1920, 1080)])
def test_five_dice_from_setup_to_the_board(
    live_server: Server, open_tab: Callable[..., Tab], width: int, height: int
) -> None:
    tab = open_tab(width, height)
    page = tab.page
    page.goto(live_server.url + "/")
    page.wait_for_selector("#presets input[value='zilch-online']")
    page.fill("#players li:nth-child(1) input.name", "Ann")
    page.fill("#players li:nth-child(2) input.name", "Bob")
    page.check("#presets input[value='zilch-online']")
    page.click("#options-box summary")
    first = page.locator("#options .option").first
    assert first.get_attribute("data-name") == "dice"
    page.select_option("#opt-dice", "5")
    assert "Five dice never show this" in page.inner_text("#help-three_pairs")
    assert "turn it off to play with 5 dice" in page.inner_text("#help-six_dice_farkle_bonus")
    page.locator("#opt-dice").scroll_into_view_if_needed()
    assert page.evaluate(WIDE_JS) <= 0
    assert page.evaluate(COVERED_JS) == []
    tab.shot(f"five-dice-setup-{width}")
    page.click("#start")
    page.wait_for_function(
        "() => /needs dice=6/.test(document.querySelector('#setup-message').textContent)"
    )
    said = page.inner_text("#setup-message")
    assert "six_dice_farkle_bonus=500" in said and "set dice=6 or turn" in said
    set_option(page, "six_dice_farkle_bonus", "0")
    assert "Needs six dice." in page.inner_text("#help-six_dice_farkle_bonus")
    page.click("#start")
    page.wait_for_url("**/play/**")
    game_id = page.url.rsplit("/", 1)[1]
    assert api(live_server, f"/api/games/{game_id}")["rules"]["dice"] == 5
    page.wait_for_selector("#pad button[data-face='1']:not([disabled])")
    assert page.inner_text("#pad-title") == "Enter the throw of 5 dice"
    assert page.inner_text("#dice-left") == "5"
    tap_throw(tab, [1, 5, 5, 2, 3])
    _advised(tab)
    choose_keep(tab, [1, 5, 5])
    assert page.inner_text("#act-throw").startswith("Keep and throw 2")
    page.click("#act-throw")
    page.wait_for_function("() => document.querySelector('#dice-left').textContent === '2'")
    tap_throw(tab, [1, 1])
    _advised(tab)
    choose_keep(tab, [1, 1])
    assert page.inner_text("#act-throw").startswith("Hot dice! Keep and throw all 5")
    tab.shot(f"five-dice-play-{width}")
    page.click("#act-throw")
    page.wait_for_function("() => document.querySelector('#dice-left').textContent === '5'")
    assert "5 dice" in page.inner_text("#pad-title")
    for face in (2, 3, 4, 6, 6):
        page.click(f"#pad button[data-face='{face}']")
    assert page.inner_text("#pad-count") == "5 of 5 entered"
    assert page.is_disabled("#pad button[data-face='6']")  # no sixth die
    tab.shot(f"five-dice-pad-{width}")
    assert page.evaluate(WIDE_JS) <= 0
    board = open_tab(width, height)
    board.page.goto(f"{live_server.url}/board/{game_id}")
    board.page.wait_for_function(
        "() => /5 dice to throw/.test(document.querySelector('#bt-sub').textContent)"
    )
    board.shot(f"five-dice-board-{width}")
    # the two refusals of the contradiction (the setup, and the handicap's win chances)
    refused = "the server responded with a status of 400"
    assert len(tab.errors) == 2 and all(refused in e for e in tab.errors)
    assert board.errors == []
