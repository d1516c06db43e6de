"""The scoring options in the setup page's rule editor (360x740 and 1920x1080): a full house,
four of a kind with a pair worth three pairs (a number or the word), the triple multiplier;
the game starts with them and the play page offers the keeps they score.
Screenshots: test-artifacts/rule-options-*.png.
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
)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("width", "height"), [(360, 740), (1920, 1080)])
def test_scoring_options_from_setup_to_the_keeps(
    live_server: Server, open_tab: Callable[..., Tab], width: int, height: int
) -> None:
    tab = open_tab(width, height)
    page = tab.page
    open_setup_page(page, live_server.url)
    for name, value in (
        ("full_house", "250"),
        ("triple_multiplier", "200"),
        ("bank_max_dice_left", "2"),
    ):
        set_option(page, name, value)
    # four of a kind + a pair: the word disables the number, unticking it brings a number back
    page.check("#opt-four_kind_pair-three_pairs")
    assert page.is_disabled("#opt-four_kind_pair")
    page.uncheck("#opt-four_kind_pair-three_pairs")
    assert page.is_enabled("#opt-four_kind_pair")
    assert page.input_value("#opt-four_kind_pair") == "1500"
    page.check("#opt-four_kind_pair-three_pairs")
    assert page.input_value("#opt-four_kind_pair") == ""
    assert "worth three pairs" in page.inner_text("#help-four_kind_pair")
    assert "(4 changed from standard)" in page.inner_text("#changed-count")
    assert page.get_attribute("#opt-bank_max_dice_left", "step") == "1"
    page.locator("#opt-four_kind_pair").scroll_into_view_if_needed()
    assert page.evaluate(WIDE_JS) <= 0
    assert page.evaluate(COVERED_JS) == []
    tab.shot(f"rule-options-setup-{width}")
    page.click("#start")
    page.wait_for_url("**/play/**")
    game_id = page.url.rsplit("/", 1)[1]
    rules = api(live_server, f"/api/games/{game_id}")["rules"]
    assert (rules["full_house"], rules["triple_multiplier"], rules["four_kind_pair"]) == (
        250,
        200,
        "three_pairs",
    )
    assert rules["bank_max_dice_left"] == 2
    page.wait_for_selector("#pad button[data-face='1']:not([disabled])")
    tap_throw(tab, [3, 3, 3, 4, 4, 2])
    page.wait_for_selector("#keeps-best li")
    listed = page.inner_text("#keeps-best")
    assert "full house" in listed and "850" in listed  # three 3s at 200 each + 250
    tab.shot(f"rule-options-play-{width}")
    # the next game's setup starts from these house rules, the word included
    page.goto(live_server.url + "/")
    page.wait_for_selector("#opt-four_kind_pair-three_pairs", state="attached")
    assert page.is_checked("#opt-four_kind_pair-three_pairs")
    assert page.input_value("#opt-full_house") == "250"
    assert tab.errors == []


@pytest.mark.parametrize(("width", "height"), [(360, 740), (1920, 1080)])
def test_turn_options_from_setup_to_a_refused_bank(
    live_server: Server, open_tab: Callable[..., Tab], width: int, height: int
) -> None:
    tab = open_tab(width, height)
    page = tab.page
    open_setup_page(page, live_server.url)
    set_option(page, "opening_minimum", "0")
    set_option(page, "bank_max_dice_left", "2")
    page.select_option("#opt-tie_break", "full_round")
    page.check("#opt-exact_target")
    page.select_option("#opt-exact_overshoot", "bust")
    page.check("#opt-farkle_keeps_points")
    assert "lost (bust)" in page.inner_text("#help-exact_overshoot")
    page.locator("#opt-exact_overshoot").scroll_into_view_if_needed()
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"turn-options-setup-{width}")
    page.click("#start")
    page.wait_for_url("**/play/**")
    game_id = page.url.rsplit("/", 1)[1]
    rules = api(live_server, f"/api/games/{game_id}")["rules"]
    assert (rules["bank_max_dice_left"], rules["tie_break"], rules["exact_overshoot"]) == (
        2,
        "full_round",
        "bust",
    )
    page.wait_for_selector("#pad button[data-face='1']:not([disabled])")
    tap_throw(tab, [1, 5, 2, 3, 4, 6])
    choose_keep(tab, [1])
    page.wait_for_selector("#keeps-section:not([hidden])")
    assert page.is_disabled("#act-bank") or "2 dice or fewer" in page.inner_text("#actions")
    assert "2 dice or fewer left" in page.inner_text("body")
    assert page.evaluate(COVERED_JS) == []
    tab.shot(f"turn-options-play-{width}")
    assert tab.errors == []
