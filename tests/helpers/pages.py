"""Page helpers for the browser tests: viewport sizes, API calls, taps, waits and checks."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any

from helpers.browser import Server, Tab

TABLET = (768, 1024)
PHONE = (390, 844)
PROJECTOR = (1280, 720)
LAPTOP = (1280, 800)

TRANSFERRED_JS = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  let total = nav.transferSize || nav.encodedBodySize;
  for (const r of performance.getEntriesByType("resource")) {
    if (r.name.includes("/stream")) continue;
    total += r.transferSize || r.encodedBodySize;
  }
  return total;
}"""


def api(server: Server, path: str, body: Any = None, token: str | None = None) -> Any:
    """One JSON request to the server (GET without a body, POST with one)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.url + path, data=data, headers=headers)
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.load(resp)


def new_game(server: Server, players: list[str], preset: str, **overrides: Any) -> tuple[str, str]:
    """Create a game through the API; returns its id and control token."""
    game = api(
        server,
        "/api/games",
        {"players": players, "teams": None, "rules": {"preset": preset, "overrides": overrides}},
    )
    return game["id"], game["control_token"]


def quick_scores(server: Server, game_id: str, token: str, points: tuple[int, ...]) -> int:
    """Each turn's points typed in, from version 0, through the API; the version after."""
    version = 0
    for p in points:
        body = {"version": version, "type": "quick_score", "points": p}
        version = api(server, f"/api/games/{game_id}/actions", body, token)["version"]
    return version


def kb(tab: Tab) -> float:
    """Kilobytes the page's first load transferred (document and every asset)."""
    return round(tab.page.evaluate(TRANSFERRED_JS) / 1024, 1)


ARROW_OR_FUNCTION = re.compile(r"\s*(async\s+)?(\([^()]*\)|\w+)\s*=>|\s*function\b")
"""A function's text, which ``Boolean(...)`` would call always true."""


def wait_js(tab: Tab, expression: str, timeout: float = 5.0) -> None:
    """Poll a JavaScript expression until it is true (the pages' CSP forbids Playwright's
    string predicates, which need eval; ``evaluate`` goes through the debugger instead).
    """
    if ARROW_OR_FUNCTION.match(expression):
        raise ValueError(f"give wait_js an expression, not a function (always true): {expression}")
    deadline = time.monotonic() + timeout
    while not tab.page.evaluate(f"() => Boolean({expression})"):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        time.sleep(0.02)


def wait_version(tab: Tab, version: int) -> None:
    """Wait until the page's game client has reached ``version``."""
    wait_js(tab, f"window.scorekeeperClient && window.scorekeeperClient.version >= {version}")


def wait_enabled(tab: Tab, selector: str) -> None:
    """Wait until the button at ``selector`` is enabled: a key pressed on the page while its
    button is still disabled (a request settling) does nothing."""
    wait_js(tab, f"!document.querySelector({selector!r}).disabled")


def tap_throw(tab: Tab, dice: list[int]) -> None:
    """Enter a throw on the dice pad by tapping faces, then submit it."""
    page = tab.page
    for v in dice:
        page.click(f"#pad button[data-face='{v}']")
    page.click("#pad-submit")


def choose_keep(tab: Tab, dice: list[int]) -> None:
    """Select the keep option with exactly these dice (opening the other options if needed)."""
    page = tab.page
    page.wait_for_selector("#keeps-section:not([hidden])")
    sel = f".keep[data-keep='{','.join(map(str, sorted(dice)))}']"
    if not page.is_visible(sel):
        page.click("#keeps-more")
    page.click(sel)
    assert page.get_attribute(sel, "aria-pressed") == "true"


def dismiss_flash(tab: Tab, big: str) -> None:
    """The full-screen flash shows ``big``; tap OK."""
    page = tab.page
    page.wait_for_selector("#flash:not([hidden])", timeout=5000)
    assert big in page.inner_text("#flash-big")
    page.click("#flash-close")
    page.wait_for_selector("#flash", state="hidden")


def text(tab: Tab, selector: str) -> str:
    """The visible text of an element."""
    return str(tab.page.inner_text(selector))


SMALL_TARGETS_JS = """() => [...document.querySelectorAll('button, .btn, input, select, summary')]
  .filter((el) => el.offsetParent !== null)
  .map((el) => [el, ['checkbox', 'radio'].includes(el.type) ? el.labels[0] : el])
  .map(([el, target]) => [el, target.getBoundingClientRect()])
  .filter(([el, r]) => r.height < 44 || r.width < 44)
  .map(([el, r]) => `${el.id || el.textContent.trim().slice(0, 20)} ${r.width}x${r.height}`)"""


def touch_targets_too_small(tab: Tab) -> list[str]:
    """Visible controls (a checkbox with its label) smaller than 44 x 44 px."""
    return list(tab.page.evaluate(SMALL_TARGETS_JS))


def open_play_page(server: Server, tab: Tab, game_id: str, token: str) -> None:
    """Open the play page the way the board's QR code links it (the token in the fragment)."""
    tab.page.goto(f"{server.url}/play/{game_id}#t={token}")
    tab.page.wait_for_selector("#pad button[data-face='1']:not([disabled])")
    assert "#t=" not in tab.page.url  # the token is kept, then taken out of the address bar


# Each visible, enabled control scrolled to the middle of the screen: is it the element found
# at its own centre (or inside it)? Returns the ones something else covers.
COVERED_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('button, .btn, input, select, summary, a')) {
    const r0 = el.getBoundingClientRect();
    if (!r0.width || !r0.height || el.closest('[hidden]') || el.disabled) continue;
    if (getComputedStyle(el).visibility === 'hidden') continue;
    const shut = el.closest('details:not([open])');
    if (shut && el !== shut.querySelector('summary')) continue;  // folded away
    el.scrollIntoView({block: 'center', inline: 'center'});
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue;
    const hit = document.elementFromPoint(x, y);
    if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) {
      const name = (e) => `${e.tagName}#${e.id}.${e.className}`;
      out.push(`${name(el)} under ${name(hit)}`);
    }
  }
  window.scrollTo(0, 0);
  return out;
}"""
WIDE_JS = "() => document.documentElement.scrollWidth - innerWidth"


def open_setup_page(page: Any, url: str, *, options: bool = True) -> None:
    """The setup page of the app at ``url`` with Ann and Bob named and, unless told, the rule
    options open."""
    page.goto(url + "/")
    page.wait_for_selector("#presets input[value='standard']")
    page.fill("#players li:nth-child(1) input.name", "Ann")
    page.fill("#players li:nth-child(2) input.name", "Bob")
    if options:
        page.click("#options-box summary")


def set_option(page: Any, name: str, value: str) -> None:
    """Type ``value`` into the setup page's rule option ``name``, as a player leaves the field."""
    page.fill(f"#opt-{name}", value)
    page.dispatch_event(f"#opt-{name}", "change")
