"""Rules no game could be played out under, refused on the setup page in the server's words
naming the options (360x740 and 1920x1080): an exact target below the opening minimum.
Screenshots: test-artifacts/setup-unplayable-*.png (whole page, and the view at the refusal)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import COVERED_JS, WIDE_JS, open_setup_page, set_option

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("width", "height"), [(360, 740), (1920, 1080)])
def test_an_exact_target_below_the_opening_minimum_is_refused_on_setup(
    live_server: Server, open_tab: Callable[..., Tab], width: int, height: int
) -> None:
    tab = open_tab(width, height)
    page = tab.page
    open_setup_page(page, live_server.url)
    page.check("#opt-exact_target")
    set_option(page, "target", "400")
    page.click("#start")
    page.wait_for_function(
        "() => /is above the target=400/.test(document.querySelector('#setup-message').textContent)"
    )
    said = page.inner_text("#setup-message")
    assert "opening_minimum=500" in said and "exact_target" in said
    page.locator("#setup-message").scroll_into_view_if_needed()
    assert page.evaluate(WIDE_JS) <= 0
    assert page.evaluate(COVERED_JS) == []
    page.locator("#start").scroll_into_view_if_needed()  # the refusal as seen, next to Start
    tab.shot(f"setup-unplayable-view-{width}", full_page=False)
    tab.shot(f"setup-unplayable-{width}")
    assert "/play/" not in page.url
    page.fill("#opt-target", "500")  # a first bank of exactly 500 may open: playable
    page.dispatch_event("#opt-target", "change")
    page.click("#start")
    page.wait_for_url("**/play/**")
