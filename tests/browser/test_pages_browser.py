"""The pages in headless Chromium against the real server: whole games by taps (tablet and
phone), the live board, setup with a roll-off, stale versions, a lost connection, read-only.

Screenshots go to test-artifacts/; measured figures to test-artifacts/figures.json.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.browser import Server, Tab, record_figure
from helpers.pages import (
    LAPTOP,
    PHONE,
    PROJECTOR,
    TABLET,
    api,
    choose_keep,
    dismiss_flash,
    kb,
    new_game,
    open_play_page,
    open_setup_page,
    quick_scores,
    set_option,
    tap_throw,
    text,
    touch_targets_too_small,
    wait_enabled,
    wait_js,
    wait_version,
)

pytestmark = pytest.mark.browser


def open_setup(server: Server, open_tab: Callable[..., Tab]) -> Tab:
    """The setup page in a tablet-sized tab, its presets shown and the first two players
    named Ann and Bob."""
    tab = open_tab(*TABLET)
    open_setup_page(tab.page, server.url, options=False)
    return tab


def test_setup_with_a_preset_overrides_teams_and_a_roll_off(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    tab = open_setup(live_server, open_tab)
    page = tab.page
    page.click("#add-player")
    page.fill("#players li:nth-child(3) input.name", "<img src=x onerror=alert(1)>")
    page.check("#teams-toggle")
    page.fill("#players li:nth-child(1) input.team", "Red")
    page.fill("#players li:nth-child(2) input.team", "Blue")
    page.fill("#players li:nth-child(3) input.team", "Red")
    page.check("#presets input[value='zilch-online']")
    set_option(page, "target", "5000")
    page.click("#options-box summary")
    assert page.input_value("#opt-bank_minimum") == "300"  # the zilch-online preset's value
    set_option(page, "opening_minimum", "350")
    page.check("#opt-toxic_twos")
    page.select_option("#opt-hot_dice", "must_roll")
    assert "4 changed from zilch-online" in text(tab, "#changed-count")  # with the target
    assert page.locator(".option.changed").count() == 3
    # A bad value is refused in words and not used.
    set_option(page, "bank_minimum", "333")
    assert "multiple of 50" in text(tab, "#setup-message")
    set_option(page, "bank_minimum", "300")

    # Roll-off: Ann and Bob tie on 5 and throw again; Bob's 6 beats Ann's 3.
    page.click("#rolloff-open")
    page.click("[aria-label='Ann threw 5']")
    page.click("[aria-label='Bob threw 5']")
    page.click("[aria-label='<img src=x onerror=alert(1)> threw 2']")
    assert "Tie" in text(tab, "#rolloff-status")
    assert page.locator(".rolloff-row").count() == 2
    page.click("[aria-label='Ann threw 3']")
    page.click("[aria-label='Bob threw 6']")
    assert "Bob threw 6 and goes first" in text(tab, "#rolloff-status")
    names = page.eval_on_selector_all("#players input.name", "els => els.map(e => e.value)")
    assert names == ["Bob", "<img src=x onerror=alert(1)>", "Ann"]
    assert touch_targets_too_small(tab) == []
    tab.shot("setup-tablet")
    record_figure("first_load_kb_home", kb(tab))

    page.click("#start")
    page.wait_for_url("**/play/**")
    game_id = page.url.rsplit("/", 1)[1]
    game = api(live_server, f"/api/games/{game_id}")
    assert game["preset"] == "zilch-online"
    rules = game["rules"]
    assert (rules["target"], rules["opening_minimum"], rules["toxic_twos"]) == (5000, 350, True)
    assert (rules["hot_dice"], rules["bank_minimum"], rules["multiples"]) == (
        "must_roll",
        300,
        "doubling",
    )
    st = game["state"]
    assert [p["name"] for p in st["players"]] == ["Bob", "<img src=x onerror=alert(1)>", "Ann"]
    assert [p["team"] for p in st["players"]] == ["Blue", "Red", "Red"]
    evil = "<img src=x onerror=alert(1)>"
    assert st["rolloff"] == {  # the roll-off is kept in the game's log
        "rounds": [{"Ann": 5, "Bob": 5, evil: 2}, {"Ann": 3, "Bob": 6}],
        "first": "Bob",
    }
    page.wait_for_selector("#turn:not([hidden])")
    assert text(tab, "#turn-title") == "Bob's turn"
    # The markup-looking name is shown as text, never made into an element.
    assert page.locator("#scores img").count() == 0
    assert "<img src=x onerror=alert(1)>" in text(tab, "#scores")
    assert "Teams: Blue" in text(tab, "#teams-line")

    # Back home, the game is listed to resume (this browser holds its control token).
    page.goto(live_server.url + "/")
    page.wait_for_selector("#resume:not([hidden])")
    row = page.locator("#games li", has_text="Bob")
    assert row.locator("a", has_text="Resume").get_attribute("href") == f"/play/{game_id}"
    assert tab.errors == []


# Lines per player row: its controls' tops, sorted, break into a new line where they jump 20 px.
ROW_LINES_JS = """() => [...document.querySelectorAll('#players .player-row')].map(row => {
    const tops = [...row.children].map(c => c.getBoundingClientRect().top).sort((a, b) => a - b);
    return 1 + tops.slice(1).filter((t, i) => t - tops[i] > 20).length;
})"""


def test_setup_on_a_phone_keeps_each_player_on_one_line(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    """At 390 px a player's seat, name and move/remove buttons share a line; with teams and
    starting points on, the row takes two lines, never a stray button on a line of its own."""
    tab = open_tab(*PHONE)
    page = tab.page
    page.goto(live_server.url + "/")
    page.wait_for_selector("#presets input[value='standard']")
    assert page.evaluate(ROW_LINES_JS) == [1, 1]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    page.check("#teams-toggle")
    page.check("#starts-toggle")
    assert page.evaluate(ROW_LINES_JS) == [2, 2]
    assert touch_targets_too_small(tab) == []
    assert tab.errors == []


def test_setup_refuses_to_start_on_a_number_it_did_not_take(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    """A target or option typed but refused (negative, too big, not a multiple of 50, in the
    closed "every option" box) stops the start with the reason, where the game had started on
    the value the refused one replaced; fixed, the game starts on it."""
    tab = open_setup(live_server, open_tab)
    page = tab.page
    before = len(api(live_server, "/api/games")["games"])
    for value in ("-5", "99999999999", "1234"):
        page.fill("#opt-target", value)
        page.click("#start")  # the change event fires as the field loses focus
        wait_js(tab, "document.querySelector('#setup-message').textContent.includes('target')")
        assert f"target: {value} is not accepted" in text(tab, "#setup-message")
        assert page.get_attribute("#opt-target", "aria-invalid") == "true"
    set_option(page, "target", "3000")
    page.click("#options-box summary")
    page.fill("#opt-bank_minimum", "75")
    page.click("#options-box summary")  # closed again, with the refused value inside
    page.click("#start")
    assert "bank minimum: 75 is not accepted" in text(tab, "#setup-message")
    assert page.evaluate("() => document.querySelector('#options-box').open")  # shown to fix
    assert page.evaluate("() => document.activeElement.id") == "opt-bank_minimum"
    tab.shot("setup-refused-number")
    assert len(api(live_server, "/api/games")["games"]) == before  # no game was started
    page.fill("#opt-bank_minimum", "100")
    page.click("#start")
    page.wait_for_url("**/play/**")
    rules = api(live_server, f"/api/games/{page.url.rsplit('/', 1)[1]}")["rules"]
    assert (rules["target"], rules["bank_minimum"]) == (3000, 100)
    assert tab.errors == []


def test_setup_applies_the_fair_handicap(live_server: Server, open_tab: Callable[..., Tab]) -> None:
    """The fair-handicap line's "Start Bob on 300 points" sends start_scores; the play page
    shows Bob on 300, not on the board yet."""
    from scorekeeper.rules import find_rules
    from scorekeeper.winprob import solve_winprob

    rules = find_rules("standard", {"target": 1000})
    solved = solve_winprob(rules, live_server.db.parent / "cache" / "winprob")
    fair = solved.fair_compensation()  # 300 (solves the handicaps, kept in the cache)
    tab = open_setup(live_server, open_tab)
    page = tab.page
    page.check("#presets input[value='standard']")
    set_option(page, "target", "1000")
    page.wait_for_selector("#winprob-apply", timeout=5000)
    label = page.locator("label.apply-handicap")
    assert label.inner_text().strip() == f"Start Bob on {fair} points"
    page.check("#winprob-apply")
    assert page.is_checked("#starts-toggle")
    assert page.input_value("#players li:nth-child(2) input.start") == str(fair)
    assert page.input_value("#players li:nth-child(1) input.start") == "0"
    wait_js(tab, "document.querySelector('#winprob-apply')?.checked === true")
    assert touch_targets_too_small(tab) == []
    tab.shot("setup-handicap")
    page.click("#start")
    page.wait_for_url("**/play/**")
    game_id = page.url.rsplit("/", 1)[1]
    st = api(live_server, f"/api/games/{game_id}")["state"]
    assert [(p["score"], p["start_score"], p["on_board"]) for p in st["players"]] == [
        (0, 0, False),
        (fair, fair, False),
    ]
    page.wait_for_selector("#turn:not([hidden])")
    bob = page.locator("#scores li", has_text="Bob")
    assert bob.locator(".pscore").inner_text() == str(fair)
    assert f"started on {fair}" in bob.locator(".pflags").inner_text()
    assert "not on the board" in bob.locator(".pflags").inner_text()
    # The live chance is the handicap position's (Bob off the board on 300), not approximate.
    ann = round(100 * solved.p_start(fair))
    wait_js(tab, f"document.querySelector('#winprob')?.textContent.includes('Ann {ann}%')")
    assert "approximate" not in text(tab, "#winprob")
    assert tab.errors == []


def play_whole_game_by_taps(tab: Tab, kind: str, board: Tab | None = None) -> None:
    """Ann and Bob, standard rules, target 1,000: the opening minimum refused then met, a
    farkle, hot dice, an undo, the final round with must-beat, and the winner. ``board``, when
    given, is the projector page, checked live along the way.
    """
    page = tab.page

    def on_board(expression: str, timeout: float = 1.0) -> None:
        if board is not None:
            wait_js(board, expression, timeout)

    # Ann: a mistake on the pad is fixed, the opening minimum refuses a bank, then a farkle.
    for v in (1, 2, 3, 4, 6, 5):
        page.click(f"#pad button[data-face='{v}']")
    page.click("[aria-label='Remove the 5 (die 6)']")
    assert page.is_disabled("#pad-submit")
    page.click("#pad button[data-face='6']")
    assert page.is_disabled("#pad button[data-face='1']")  # six dice entered: the pad is full
    tab.shot(f"play-{kind}-pad")
    page.click("#pad-submit")
    choose_keep(tab, [1])
    assert page.is_disabled("#act-bank")
    assert "needs 500 in one turn to get on the board" in text(tab, "#why-bank")
    tab.shot(f"play-{kind}-keeps")
    page.click("#act-throw")
    wait_version(tab, 2)
    assert text(tab, "#dice-left") == "5" and text(tab, "#need") == "400"
    tap_throw(tab, [5, 2, 3, 4, 6])
    choose_keep(tab, [5])
    page.click("#act-throw")
    wait_version(tab, 4)
    tap_throw(tab, [2, 3, 4, 6])
    page.wait_for_selector("#flash:not([hidden])")
    tab.shot(f"play-{kind}-farkle")
    dismiss_flash(tab, "FARKLE!")
    wait_js(tab, "document.querySelector('#live-urgent').textContent.includes('Farkle!')")
    assert text(tab, "#turn-title") == "Bob's turn"
    on_board("document.querySelector('#bt-who').textContent.includes('Bob')")

    # Bob: hot dice, an undo, then a bank that starts the final round.
    tap_throw(tab, [1, 1, 1, 5, 5, 2])
    # The advisor's pick is highlighted with its reason. It may arrive after the throw (longer
    # on a busy machine), and until this throw is on the page the keeps shown are Ann's.
    wait_version(tab, 6)
    this_throw = "document.querySelector(\".keep[data-keep='1,1,1,5,5']\")"
    advice = "document.querySelector('#keeps-best .advice')?.textContent"
    wait_js(tab, f"{this_throw} && {advice}?.startsWith('Advice:')", 30)
    assert "Best" in text(tab, "#keeps-best")
    tab.shot(f"play-{kind}-advice")
    choose_keep(tab, [1, 1, 1, 5, 5])
    page.click("#act-throw")
    wait_version(tab, 7)
    tap_throw(tab, [5])
    choose_keep(tab, [5])
    assert "Hot dice" in text(tab, "#act-throw")
    page.click("#act-throw")
    dismiss_flash(tab, "HOT DICE!")
    assert text(tab, "#turn-total") == "1,150" and text(tab, "#dice-left") == "6"
    page.click("#undo")
    wait_version(tab, 10)
    page.wait_for_selector("#keeps-section:not([hidden])")
    assert text(tab, "#turn-total") == "1,100"
    wait_js(tab, "document.querySelector('#live').textContent.startsWith('Undid')")
    choose_keep(tab, [5])
    page.click("#act-bank")
    dismiss_flash(tab, "FINAL ROUND!")
    assert "Final round! Beat Bob's 1,150" in text(tab, "#final-banner")
    if board is not None:
        board.page.wait_for_selector("#final-banner:not([hidden])", timeout=1000)
        board.shot("board-final-round")
        sizes = board.page.eval_on_selector_all(
            ".bname, .bscore", "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))"
        )
        assert len(sizes) == 4 and min(sizes) >= 48

    # Ann's last turn: must beat 1,150, so 1,000 cannot be banked; then 1,500 wins.
    tap_throw(tab, [1, 1, 1, 2, 3, 4])
    choose_keep(tab, [1, 1, 1])
    assert page.is_disabled("#act-bank")
    assert "must beat 1,150" in text(tab, "#why-bank")
    tab.shot(f"play-{kind}-final-round")
    page.click("#act-throw")
    tap_throw(tab, [5, 5, 5])
    choose_keep(tab, [5, 5, 5])
    page.click("#act-bank")
    dismiss_flash(tab, "WINNER")
    page.wait_for_selector("#winner:not([hidden])")
    assert "Ann wins!" in text(tab, "#winner")
    assert page.is_hidden("#turn")
    tab.shot(f"play-{kind}-winner")
    if board is not None:
        board.page.wait_for_selector("#board-winner:not([hidden])", timeout=1000)
        assert "Ann wins!" in text(board, "#board-winner")
        wait_js(board, "document.querySelector('#flash').hidden", 4.0)
        board.shot("board-winner")
        assert board.page.locator("#chart svg path").count() >= 2


# The board has drawn a game state (and fitted itself after it). Not `zoom !== undefined`:
# setting the QR address at load fits the still-empty board before the state arrives.
BOARD_DRAWN = "window.scorekeeperMetrics.updates.length > 0"

FITS_JS = """() => {
    const inside = (el) => { const r = el.getBoundingClientRect();
        return r.top >= 0 && r.left >= 0
            && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1; };
    return [document.documentElement.scrollHeight <= innerHeight + 1,
        [...document.querySelectorAll('#board-scores li')].every(inside),
        inside(document.querySelector('.qr-box')), window.scorekeeperMetrics.zoom];
}"""


@pytest.mark.parametrize("players", [2, 10, 16])
def test_the_board_fits_a_720p_projector(
    live_server: Server, open_tab: Callable[..., Tab], players: int
) -> None:
    names = [f"P{i}" for i in range(players)]
    if players > 2:
        names[0] = "Maximiliana Wolfeschlegelsteinhausen"
    game_id, token = new_game(live_server, names, "standard")
    quick_scores(live_server, game_id, token, (600, 0, 750)[:players])
    board = open_tab(*PROJECTOR)
    board.page.goto(f"{live_server.url}/board/{game_id}")
    wait_js(board, BOARD_DRAWN)
    fits_page, cards_seen, qr_seen, zoom = board.page.evaluate(FITS_JS)
    assert fits_page and cards_seen and qr_seen  # nobody scrolls a projector
    assert zoom == 1 if players == 2 else 0.4 <= zoom < 1  # shrunk only when it must be
    flash_zoom = board.page.evaluate("() => document.querySelector('#flash').style.zoom")
    # the flash keeps its full size (style.zoom holds about six digits)
    assert float(flash_zoom or 1) * zoom == pytest.approx(1, rel=1e-4)
    board.page.set_viewport_size({"width": 1920, "height": 1080})  # a bigger screen: back up
    wait_js(board, f"window.scorekeeperMetrics.zoom > {zoom}" if zoom < 1 else "true")
    assert board.page.evaluate(FITS_JS)[:3] == [True, True, True]
    board.shot(f"board-fit-{players}")
    assert board.errors == []


def test_whole_game_by_taps_on_a_tablet_with_the_board_live(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard", target=1000)
    board = open_tab(*PROJECTOR)
    board.page.goto(f"{live_server.url}/board/{game_id}")
    wait_js(board, "document.querySelector('#bt-who').textContent.includes('Ann')")
    record_figure("first_load_kb_board", kb(board))
    tab = open_tab(*TABLET)
    open_play_page(live_server, tab, game_id, token)
    record_figure("first_load_kb_play", kb(tab))
    assert touch_targets_too_small(tab) == []

    play_whole_game_by_taps(tab, "tablet", board)

    # Figures: action-to-screen on the tablet, action-to-board on the projector.
    actions = tab.page.evaluate("window.scorekeeperMetrics.actions")
    updates: dict[int, int] = {}
    for u in board.page.evaluate("window.scorekeeperMetrics.updates"):
        updates.setdefault(u["version"], u["wall"])  # first paint of each version
    ms = [a["ms"] for a in actions]
    delays = [updates[a["version"]] - a["wall"] for a in actions if a["version"] in updates]
    record_figure(
        "tablet_action_to_screen_ms",
        {"n": len(ms), "p50": statistics.median(ms), "max": max(ms), "all": ms},
    )
    record_figure(
        "board_action_to_screen_ms",
        {"n": len(delays), "p50": statistics.median(delays), "max": max(delays)},
    )
    assert len(delays) >= len(actions) - 2  # the board saw (nearly) every version live

    history = open_tab(*TABLET)
    history.page.goto(f"{live_server.url}/history/{game_id}")
    history.page.wait_for_selector("table.log")
    assert history.page.locator("#log tbody tr").count() == 3
    cells = history.page.eval_on_selector_all(
        "#sheet tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )
    assert cells == [["1", "F / 0", "+1,150 / 1,150"], ["2", "+1,500 / 1,500", ""]]
    csv = history.page.get_attribute("#csv", "href")
    assert csv == f"/api/games/{game_id}/export.csv"
    record_figure("first_load_kb_history", kb(history))
    history.shot("history-tablet")
    assert tab.errors == [] and board.errors == [] and history.errors == []


def test_whole_game_by_taps_on_a_phone(live_server: Server, open_tab: Callable[..., Tab]) -> None:
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard", target=1000)
    tab = open_tab(*PHONE)
    open_play_page(live_server, tab, game_id, token)
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    assert touch_targets_too_small(tab) == []
    play_whole_game_by_taps(tab, "phone")
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    assert tab.errors == []
    # the history's tables are wider than a phone: they scroll inside their cards, not the page
    history = open_tab(*PHONE)
    history.page.goto(f"{live_server.url}/history/{game_id}")
    history.page.wait_for_selector("table.log")
    assert history.page.evaluate("document.querySelector('#log table').scrollWidth") > PHONE[0] - 80
    assert history.page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    history.shot("history-phone")
    assert history.errors == []
    # so does the blank score sheet's, with six players' columns
    history.page.goto(f"{live_server.url}/sheet?players=Ann,Bob,Cy,Dee,Eve,Fay")
    assert history.page.evaluate("document.querySelector('.sheet-table').scrollWidth") > PHONE[0]
    assert history.page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    assert history.errors == []


def test_keyboard_and_quick_score_on_a_laptop(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    game_id, token = new_game(live_server, ["Cy", "Dee"], "no-combos", target=500)
    tab = open_tab(*LAPTOP)
    page = tab.page
    open_play_page(live_server, tab, game_id, token)

    # Cy: a six-dice farkle gets seed 000's celebration (closed with Escape).
    page.keyboard.type("223446")
    page.keyboard.press("Enter")
    page.wait_for_selector("#flash:not([hidden])")
    assert "SIX-DIE FARKLE!" in text(tab, "#flash-big")
    assert "wiggle" in text(tab, "#flash-text")
    tab.shot("play-laptop-six-die-farkle")
    page.keyboard.press("Escape")
    page.wait_for_selector("#flash", state="hidden")

    # Dee by keyboard: digits and Enter throw, space keeps and throws, u undoes, b banks.
    page.keyboard.type("152346")
    wait_enabled(tab, "#pad-submit")  # the farkle has settled
    page.keyboard.press("Enter")
    page.wait_for_selector("#keeps-section:not([hidden])")
    tab.shot("play-laptop-keeps")
    wait_enabled(tab, "#act-throw")
    page.keyboard.press("Space")
    wait_version(tab, 3)
    page.keyboard.press("u")
    wait_version(tab, 4)
    page.wait_for_selector("#keeps-section:not([hidden])")
    order = page.eval_on_selector_all(
        "#keeps-best .keep, #keeps-other .keep", "els => els.map(e => e.dataset.keep)"
    )
    page.keyboard.press(str(order.index("1,5") + 1))  # option N by its digit: keep 1 and 5
    wait_js(tab, "document.querySelector('#act-bank').textContent.includes('150')")
    wait_enabled(tab, "#act-bank")  # named before the undo's request has settled
    page.keyboard.press("b")
    wait_version(tab, 6)
    assert text(tab, "#turn-title") == "Cy's turn"
    assert "150" in text(tab, "#scores li:nth-child(2)")

    # Cy types a turn's points; Dee's quick farkle ends the final round.
    page.check("#quick-toggle")
    page.fill("#quick-points", "275")
    page.click("#quick-submit")
    wait_js(tab, "document.querySelector('#message').textContent.includes('multiple of 50')")
    page.fill("#quick-points", "600")
    page.click("#quick-submit")
    dismiss_flash(tab, "FINAL ROUND!")
    assert "Beat Cy's 600" in text(tab, "#final-banner")
    page.click("#quick-farkle")
    wait_js(tab, "document.querySelector('#flash-big').textContent.includes('WINNER')")
    assert "A farkle on the last turn" in text(tab, "#flash-text")
    dismiss_flash(tab, "WINNER")  # the game's end outranks the farkle that ended it
    page.wait_for_selector("#winner:not([hidden])")
    assert "Cy wins!" in text(tab, "#winner")
    tab.shot("play-laptop-winner")
    assert tab.errors == []


def test_stale_version_lost_connection_and_read_only(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    game_id, token = new_game(live_server, ["Eve", "Fay"], "standard")
    first = open_tab(*TABLET)
    second = open_tab(*TABLET)
    for tab in (first, second):
        tab.page.goto(f"{live_server.url}/play/{game_id}#t={token}")
        tab.page.wait_for_selector("#pad button[data-face='1']:not([disabled])")
    # The second tablet's live stream lags; the first tablet acts meanwhile.
    second.page.evaluate("window.scorekeeperClient.source.close()")
    tap_throw(first, [1, 1, 1, 5, 2, 3])
    wait_version(first, 1)
    assert second.page.evaluate("window.scorekeeperClient.version") == 0
    tap_throw(second, [2, 2, 3, 3, 4, 6])  # entered on the old state: refused as stale
    wait_js(second, "document.querySelector('#message').textContent.includes('acted first')")
    assert second.page.evaluate("window.scorekeeperClient.version") == 1
    second.page.wait_for_selector("#keeps-section:not([hidden])")  # now shows the first's throw
    assert api(live_server, f"/api/games/{game_id}")["version"] == 1  # nothing doubled

    # A lost connection: the banner says so, and the action works once it is back. (The live
    # stream stays closed while offline: the emulation does not cut a stream already open, whose
    # late first event would say "connected" and hide the banner mid-check.)
    second.page.context.set_offline(True)
    second.page.click("#act-throw")
    wait_js(second, "document.querySelector('#banner').textContent.includes('cannot be reached')")
    assert second.page.is_visible("#banner")
    second.shot("play-tablet-offline")
    second.page.context.set_offline(False)
    second.page.click("#act-throw")
    wait_version(second, 2)
    second.page.wait_for_selector("#banner", state="hidden")
    second.page.evaluate("window.scorekeeperClient.stream()")

    # A latecomer joins and plays after the others; a player leaves.
    first.page.click("#table-tools summary")
    first.page.fill("#join-name", "Gus <i>")
    first.page.click("#join-submit")
    wait_version(first, 3)
    assert first.page.locator("#scores li").count() == 3
    assert "Gus <i>" in text(first, "#scores li:nth-child(3)")
    first.page.select_option("#leave-who", "Fay")
    first.page.click("#leave-submit")
    wait_version(first, 4)
    assert "left the game" in text(first, "#scores li:nth-child(2)")

    # A device without the control token only watches.
    watcher = open_tab(*TABLET)
    watcher.page.goto(f"{live_server.url}/play/{game_id}")
    watcher.page.wait_for_selector("#readonly-note:not([hidden])")
    assert watcher.page.is_disabled("#pad button[data-face='1']")
    assert watcher.page.is_disabled("#undo")
    sheet = open_tab(*TABLET)
    sheet.page.goto(f"{live_server.url}/sheet?players=Eve,Fay")
    sheet.shot("sheet-blank")
    record_figure("first_load_kb_sheet", kb(sheet))

    expected = ("409", "ERR_INTERNET_DISCONNECTED", "Failed to fetch")
    unexpected = [e for e in second.errors if not any(x in e for x in expected)]
    assert unexpected == [] and first.errors == [] and watcher.errors == [] and sheet.errors == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(port: int, db: Path) -> subprocess.Popen[bytes]:
    """``scorekeeper serve`` as its own process group (its background solvers die with it,
    :func:`_kill`); returns once it answers. A port still held for a moment after a kill is
    tried again; a server that does not start fails with the end of what it printed."""
    log = db.with_name(f"serve-{port}-{time.monotonic_ns()}.log")
    deadline = time.monotonic() + 30
    while True:
        argv = ["serve", "--port", str(port), "--db", str(db), "--camera", "none"]
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "scorekeeper", *argv],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=1).close()
                return proc
            except OSError:
                time.sleep(0.1)
        _kill(proc)
        said = log.read_text(errors="replace")
        if "in use" not in said or time.monotonic() >= deadline:
            raise AssertionError(f"scorekeeper serve did not start: {said[-1500:]}")
        time.sleep(0.5)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """kill -9 a server started by :func:`_serve`, with any process it started."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def test_board_reconnects_by_itself_after_the_server_restarts(
    tmp_path: Path, open_tab: Callable[..., Tab]
) -> None:
    port, db = _free_port(), tmp_path / "games.sqlite3"
    server = Server(f"http://127.0.0.1:{port}", db)
    proc = _serve(port, db)
    try:
        game_id, token = new_game(server, ["Gil", "Hal"], "standard")
        board = open_tab(*PROJECTOR)
        board.page.goto(f"{server.url}/board/{game_id}")
        wait_js(board, "document.querySelector('#bt-who').textContent.includes('Gil')")
        _kill(proc)  # kill -9: the stream drops at once
        board.page.wait_for_selector("#banner:not([hidden])", timeout=6000)
        assert "Connection" in text(board, "#banner")
        board.shot("board-connection-lost")
        proc = _serve(port, db)
        api(
            server,
            f"/api/games/{game_id}/actions",
            {"version": 0, "type": "quick_score", "points": 650},
            token,
        )
        wait_js(board, "document.querySelector('#bt-who').textContent.includes('Hal')", 12.0)
        board.page.wait_for_selector("#banner", state="hidden")
        assert "650" in text(board, "#board-scores")
    finally:
        _kill(proc)
    # what a kill -9 does to requests in flight: refused, cut short or empty
    expected = (
        "ERR_CONNECTION_",
        "ERR_INCOMPLETE_CHUNKED_ENCODING",
        "ERR_EMPTY_RESPONSE",
        "ERR_CONTENT_LENGTH_MISMATCH",
    )
    assert [e for e in board.errors if not any(x in e for x in expected)] == []


def test_tie_break_then_end_the_game_by_two_taps(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    """A tie at the target starts a tie-break (banner and flash on the page, live); "End the
    game" needs a second tap, then the page shows who won and locks the controls."""
    rules = {"opening_minimum": 0, "target": 1000, "final_round_must_beat": False}
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard", **rules)
    tab = open_tab(*TABLET)
    open_play_page(live_server, tab, game_id, token)
    page = tab.page
    # Ann reaches the target, Bob ties it in the final round
    version = quick_scores(live_server, game_id, token, (1000, 1000))
    wait_version(tab, version)
    dismiss_flash(tab, "TIE-BREAK!")
    assert "Tie-break! Score to beat: 1,000." in text(tab, "#final-banner")
    assert text(tab, "#turn-title") == "Ann's turn"
    tab.shot("play-tablet-tie-break")
    # One tap only arms the button; nothing is sent.
    page.click("#table-tools summary")
    page.click("#end-game")
    assert "Tap again" in text(tab, "#end-game")
    time.sleep(0.3)
    assert api(live_server, f"/api/games/{game_id}")["version"] == version
    page.click("#end-game")
    wait_version(tab, version + 1)
    tab.shot("play-tablet-ended")
    dismiss_flash(tab, "WINNER!")
    page.wait_for_selector("#winner:not([hidden])")
    # ended while tied: the tied leaders share the win
    assert "Ann and Bob share the win!" in text(tab, "#winner")
    assert page.is_hidden("#turn") and page.is_disabled("#end-game")
    wait_js(tab, "document.title.startsWith('Game over')")
    assert tab.errors == []


def test_a_game_won_on_a_last_farkle_flashes_the_winner(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    """Bob farkles his final-round turn and Ann wins: the play page and the board flash the
    winner (saying how the last turn went), not the farkle."""
    rules = {"opening_minimum": 0, "target": 1000}
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard", **rules)
    version = quick_scores(live_server, game_id, token, (1000,))
    tab, board = open_tab(*TABLET), open_tab(*PROJECTOR)
    open_play_page(live_server, tab, game_id, token)
    board.page.goto(f"{live_server.url}/board/{game_id}")
    wait_js(board, BOARD_DRAWN)
    tap_throw(tab, [2, 3, 4, 6, 2, 3])  # Bob's last turn: a farkle
    wait_version(tab, version + 1)
    for page in (tab, board):
        page.page.wait_for_selector("#flash:not([hidden])", timeout=5000)
        assert "WINNER" in text(page, "#flash-big")
        assert text(page, "#flash-text") == "A farkle on the last turn. Ann wins with 1,000."
    tab.shot("play-tablet-won-on-a-farkle")
    board.shot("board-won-on-a-farkle")
    dismiss_flash(tab, "WINNER")
    assert tab.errors == [] and board.errors == []


def test_team_totals_lead_the_board_and_are_named_at_the_end(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    """A team game: the board shows each team's total as big as a player's score, highest
    first with the leader marked, live; at the end the winner banner, the play page and the
    history say which team has the highest total (seed 000's team prize)."""
    game = api(
        live_server,
        "/api/games",
        {
            "players": ["Ann", "Bob", "Cy", "Dee"],
            "teams": ["Red", "Blue", "Red", "Blue"],
            "rules": {"preset": "standard", "overrides": {"opening_minimum": 0, "target": 1000}},
        },
    )
    game_id, token = game["id"], game["control_token"]
    board = open_tab(*PROJECTOR)
    board.page.goto(f"{live_server.url}/board/{game_id}")
    wait_js(board, BOARD_DRAWN)
    teams = "#board-teams li"
    version = quick_scores(live_server, game_id, token, (300, 700, 350))
    wait_js(board, "document.querySelectorAll('#board-teams li').length === 2")
    wait_js(board, "document.querySelector('#board-teams').textContent.includes('650')")
    cards = board.page.eval_on_selector_all(teams, "els => els.map(e => e.innerText)")
    assert cards[0].startswith("▲ Blue") and "700" in cards[0] and "Bob + Dee" in cards[0]
    assert cards[1].startswith("Red") and "650" in cards[1] and "Ann + Cy" in cards[1]
    sizes = board.page.eval_on_selector_all(
        ".tname, .tscore", "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))"
    )
    assert len(sizes) == 4 and min(sizes) >= 48
    label = board.page.get_attribute("#board-teams", "aria-label")
    assert label == "Team Blue leads with 700."
    # Dee, then Ann to the target; the final round's three farkles end it
    for points in (400, 1000, 0, 0, 0):
        body = {"version": version, "type": "quick_score", "points": points}
        version = api(live_server, f"/api/games/{game_id}/actions", body, token)["version"]
    wait_js(board, "!document.querySelector('#board-winner').hidden")
    line = "Team Red wins with 1,650."  # the state's team_winner
    assert line in text(board, "#board-winner")
    assert board.page.eval_on_selector_all(teams, "els => els.map(e => e.innerText)")[0].startswith(
        "★ Red"
    )
    board.shot("board-teams-over")
    tab = open_tab(*TABLET)
    tab.page.goto(f"{live_server.url}/play/{game_id}")
    tab.page.wait_for_selector("#winner:not([hidden])")
    assert line in text(tab, "#winner")
    tab.page.goto(f"{live_server.url}/history/{game_id}")
    tab.page.wait_for_selector("#teams-summary:not([hidden])")
    assert text(tab, "#teams-summary") == (
        "Teams: Red 1,650 (Ann + Cy) · Blue 1,100 (Bob + Dee). " + line
    )
    team_row = tab.page.eval_on_selector_all(
        "#sheet tr.team-row td", "els => els.map(e => e.textContent)"
    )
    assert team_row == ["Red 1,650", "Blue 1,100", "Red 1,650", "Blue 1,100"]
    assert tab.errors == [] and board.errors == []


def test_toxic_twos_wipe_the_score_on_the_page(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    """With toxic twos on, four 2s tapped on the pad flash TOXIC TWOS! and wipe the thrower's
    banked score; the other player's turn follows."""
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard", toxic_twos=True)
    tab = open_tab(*TABLET)
    open_play_page(live_server, tab, game_id, token)
    version = quick_scores(live_server, game_id, token, (600, 550))
    wait_version(tab, version)
    assert text(tab, "#turn-title") == "Ann's turn"
    tap_throw(tab, [2, 2, 2, 2, 3, 4])
    tab.shot("play-tablet-toxic-twos")
    dismiss_flash(tab, "TOXIC TWOS!")
    state = api(live_server, f"/api/games/{game_id}")["state"]
    assert [p["score"] for p in state["players"]] == [0, 550]
    assert text(tab, "#turn-title") == "Bob's turn"
    assert text(tab, "#scores").split("\n")[:2] == ["Ann", "0"]
    # no win chances under these rules, said in a player's words
    wait_js(tab, "document.querySelector('#winprob')?.textContent.includes('house rules')")
    assert text(tab, "#winprob") == (
        "Chances to win are not worked out under these house rules: toxic_twos (scores can fall)."
    )
    assert tab.errors == []
