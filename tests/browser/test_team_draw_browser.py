"""Teams drawn by dice on the setup page at 360x740: the draw fills each player's team, says
who threw what, and the started game records it. Screenshot: test-artifacts/team-draw-360.png.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import COVERED_JS, api

pytestmark = pytest.mark.browser


def test_teams_drawn_by_dice_from_the_setup_page(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    tab = open_tab(360, 740)
    page = tab.page
    page.goto(live_server.url + "/")
    page.wait_for_selector("#presets input[value='standard']")
    page.click("#add-player")
    page.click("#add-player")
    for i, name in enumerate(["Ann", "Bob", "Cy", "Dee"], 1):
        page.fill(f"#players li:nth-child({i}) input.name", name)
    assert page.is_hidden("#team-draw")
    page.check("#teams-toggle")
    page.select_option("#team-count", "2")
    page.click("#team-draw-btn")
    page.wait_for_selector("#team-draw-result:not([hidden])")
    teams = page.eval_on_selector_all("#players input.team", "els => els.map(e => e.value)")
    assert sorted(teams) == ["Team 1", "Team 1", "Team 2", "Team 2"]
    result = page.inner_text("#team-draw-result")
    assert result.startswith("Drawn by dice (highest first, dealt in turn):")
    assert all(name in result for name in ("Ann", "Bob", "Cy", "Dee"))
    assert page.evaluate("() => document.documentElement.scrollWidth - innerWidth") <= 0
    assert page.evaluate(COVERED_JS) == []
    tab.shot("team-draw-360")
    page.click("#start")
    page.wait_for_url("**/play/**")
    game_id = page.url.rsplit("/", 1)[1]
    state = api(live_server, f"/api/games/{game_id}")["state"]
    assert [p["team"] for p in state["players"]] == teams
    assert sorted(state["team_draw"]["order"]) == ["Ann", "Bob", "Cy", "Dee"]
    assert tab.errors == []
