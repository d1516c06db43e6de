"""Game night's end: ranked standings and "Play again" on the play page and the board, and a
game deleted from the games list; at a phone's, a tablet's and a projector's size.
Screenshots go to test-artifacts/tables-*.png.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import api, new_game, open_play_page, quick_scores, set_option

pytestmark = pytest.mark.browser

SIZES = [(360, 740), (768, 1024), (1920, 1080)]
WIDE_JS = "() => document.documentElement.scrollWidth - innerWidth"


def _finished(server: Server) -> tuple[str, str]:
    """A three-player game ended with Ann and Cy level on 1,000: 1st, 1st, 3rd."""
    game_id, token = new_game(server, ["Ann", "Bob", "Cy"], "zilch", target=2500)
    version = quick_scores(server, game_id, token, (1000, 400, 1000))
    api(server, f"/api/games/{game_id}/actions", {"version": version, "type": "end"}, token)
    return game_id, token


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_standings_and_play_again(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id, token = _finished(live_server)
    tab = open_tab(*size)
    page = tab.page
    page.goto(f"{live_server.url}/play/{game_id}#t={token}")
    page.wait_for_selector("#winner:not([hidden]) .standings li")
    rows = page.locator("#winner .standings li").all_inner_texts()
    assert [" ".join(r.split()) for r in rows] == ["1st Ann 1,000", "1st Cy 1,000", "3rd Bob 400"]
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"tables-standings-{size[0]}")

    page.click("#winner button.rematch[data-order='rotate']")
    page.wait_for_url(lambda url: "/play/" in url and game_id not in url)
    page.wait_for_selector("#pad button[data-face='1']:not([disabled])")  # controls the rematch
    new_id = page.url.rsplit("/", 1)[-1]
    game = api(live_server, f"/api/games/{new_id}")
    assert [p["name"] for p in game["state"]["players"]] == ["Bob", "Cy", "Ann"]
    assert game["preset"] == "zilch" and game["rules"]["target"] == 2500
    assert page.inner_text("#turn-title").startswith("Bob")
    page.goto(live_server.url + "/")  # setup on this device starts from the rematch's rules
    page.wait_for_selector("#players input.name")
    assert page.is_checked("#presets input[value='zilch']")
    assert page.input_value("#opt-target") == "2500"
    assert not tab.errors, tab.errors


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_board_and_history_show_standings_and_only_the_host_gets_a_rematch(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id, token = _finished(live_server)
    tab = open_tab(*size)
    page = tab.page
    page.goto(f"{live_server.url}/board/{game_id}")
    page.wait_for_selector("#board-winner:not([hidden]) .standings li")
    assert page.locator("#board-winner .standings li").count() == 3
    assert page.locator("#board-winner button.rematch").count() == 0  # only watching
    if size[0] >= 768:  # a projector does not scroll: the review added at the end fits too
        page.wait_for_selector("#review .review-card")
        page.wait_for_function("() => document.documentElement.scrollHeight <= innerHeight + 1")
        tab.shot(f"tables-board-review-{size[0]}", full_page=False)
    page.goto(f"{live_server.url}/play/{game_id}")
    page.wait_for_selector("#winner:not([hidden]) .standings li")
    assert page.locator("#winner button.rematch").count() == 0
    page.goto(f"{live_server.url}/history/{game_id}")
    page.wait_for_selector("#standings-box:not([hidden]) .standings li")
    assert page.locator("#standings .standings li").count() == 3
    # a board holding the token (from the QR code's address) offers the rematch
    page.goto(f"{live_server.url}/board/{game_id}#t={token}")
    page.wait_for_selector("#board-winner button.rematch")
    tab.shot(f"tables-board-{size[0]}")
    assert page.evaluate(WIDE_JS) <= 0
    page.click("#board-winner button.rematch[data-order='keep']")
    page.wait_for_url(lambda url: "/board/" in url and game_id not in url)
    new_id = page.url.split("#")[0].rsplit("/", 1)[-1]
    names = [p["name"] for p in api(live_server, f"/api/games/{new_id}")["state"]["players"]]
    assert names == ["Ann", "Bob", "Cy"]
    assert not tab.errors, tab.errors


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_delete_a_game_from_the_games_list(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id, token = new_game(live_server, ["Dora", "Eli"], "standard")
    tab = open_tab(*size)
    page = tab.page
    open_play_page(live_server, tab, game_id, token)  # this browser now holds the token
    page.goto(live_server.url + "/")
    button = page.locator(f"#games button.delete-game[data-game='{game_id}']")
    button.wait_for()
    button.click()
    page.wait_for_selector(".confirm-delete")
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"tables-delete-{size[0]}")
    page.dblclick(".confirm-delete button.danger")  # a double tap deletes once, and says so
    button.wait_for(state="detached")
    assert page.inner_text("#games-msg") == "Deleted the game of Dora, Eli."
    assert page.locator(".confirm-delete .error").count() == 0
    ids = [g["id"] for g in api(live_server, "/api/games?limit=500")["games"]]
    assert game_id not in ids
    page.goto(f"{live_server.url}/board/{game_id}")
    page.wait_for_function(
        "() => document.querySelector('#bt-who').textContent.includes('no game')"
    )
    assert not [e for e in tab.errors if "404" not in e], tab.errors


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_saved_house_rules_in_setup(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    name = f"Friday {size[0]}"
    tab = open_tab(*size)
    page = tab.page
    page.goto(live_server.url + "/")
    page.check("#presets input[value='zilch']")
    set_option(page, "target", "4000")
    page.fill("#ruleset-name", name)
    page.click("#ruleset-save")
    page.wait_for_selector(f"#ruleset-msg:has-text('Saved \"{name}\"')")
    saved = {r["name"]: r for r in api(live_server, "/api/rulesets")["rulesets"]}
    assert saved[name]["preset"] == "zilch" and saved[name]["overrides"] == {"target": 4000}

    page.check("#presets input[value='standard']")  # a fresh choice, then the saved set
    page.select_option("#ruleset-pick", name)
    page.wait_for_selector("#ruleset-msg:has-text('Using')")
    assert page.is_checked("#presets input[value='zilch']")
    assert page.input_value("#opt-target") == "4000"
    href = page.get_attribute("#ruleset-export", "href")
    assert href and "export?name=" in href
    tab.shot(f"tables-rulesets-{size[0]}")
    assert page.evaluate(WIDE_JS) <= 0

    bad = {"name": "Bad", "preset": "standard", "overrides": {"bogus_option": 1}}
    page.set_input_files(
        "#ruleset-import",
        files=[
            {"name": "bad.json", "mimeType": "application/json", "buffer": json.dumps(bad).encode()}
        ],
    )
    page.wait_for_selector("#ruleset-msg:has-text('bogus_option')")
    good = {**api(live_server, href.replace(live_server.url, "")), "name": f"Imported {size[0]}"}
    good["overrides"] = {"opening_minimum": 500}
    page.set_input_files(
        "#ruleset-import",
        files=[
            {
                "name": "good.json",
                "mimeType": "application/json",
                "buffer": json.dumps(good).encode(),
            }
        ],
    )
    page.wait_for_selector(f"#ruleset-msg:has-text('Imported \"Imported {size[0]}\"')")
    assert page.input_value("#opt-opening_minimum") == "500"
    assert not [e for e in tab.errors if "400" not in e], tab.errors  # the bad file's answer


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_setup_starts_from_the_last_rules_used(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    tab = open_tab(*size)
    page = tab.page
    page.goto(live_server.url + "/")
    page.fill("#players li:nth-child(1) input.name", "Gus")
    page.fill("#players li:nth-child(2) input.name", "Hal")
    page.check("#presets input[value='original']")
    set_option(page, "target", "6000")
    page.click("#options-box summary")
    page.check("#opt-toxic_twos")
    page.click("#start")
    page.wait_for_url("**/play/**")
    page.goto(live_server.url + "/")  # the next game's setup
    page.wait_for_selector("#players input.name")
    names = page.eval_on_selector_all("#players input.name", "els => els.map(e => e.value)")
    assert names == ["Gus", "Hal"]
    assert page.is_checked("#presets input[value='original']")
    assert page.input_value("#opt-target") == "6000"
    assert page.is_checked("#opt-toxic_twos")
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"tables-setup-last-rules-{size[0]}")
    assert not tab.errors, tab.errors
