"""One farkle, one figure (issue 31, item 6): a turn that scored 150 and then farkled reads
"farkle, 150 lost" on the history page, the board, the CSV and the JSON export, at a phone's,
a tablet's and a projector's size. Screenshots go to test-artifacts/numbers-*.png.
"""

from __future__ import annotations

import csv
import io
import urllib.request
from collections.abc import Callable

import pytest
from helpers.browser import Server, Tab
from helpers.pages import WIDE_JS, api, new_game

pytestmark = pytest.mark.browser

SIZES = [(360, 740), (768, 1024), (1920, 1080)]
WORDS = "farkle, 150 lost"


def _farkled(server: Server) -> str:
    """Ann keeps 1 and 5 (150), then throws four dice that score nothing."""
    game_id, token = new_game(server, ["Ann", "Bob"], "standard", opening_minimum=0)
    version = 0
    for action in (
        {"type": "throw", "dice": [1, 5, 2, 3, 3, 6]},
        {"type": "keep", "dice": [1, 5]},
        {"type": "throw", "dice": [2, 3, 4, 6]},
    ):
        path = f"/api/games/{game_id}/actions"
        version = api(server, path, {"version": version, **action}, token)["version"]
    return game_id


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_farkle_reads_the_same_everywhere(
    live_server: Server, open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    game_id = _farkled(live_server)
    tab = open_tab(*size)
    page = tab.page
    page.goto(f"{live_server.url}/history/{game_id}")
    row = page.locator("#log tr[data-turn='1']")
    row.wait_for()
    assert WORDS in row.inner_text()
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"numbers-history-{size[0]}x{size[1]}")

    page.goto(f"{live_server.url}/board/{game_id}")
    page.wait_for_selector("#recent li")
    assert WORDS in page.locator("#recent").inner_text()
    assert page.evaluate(WIDE_JS) <= 0
    tab.shot(f"numbers-board-{size[0]}x{size[1]}")

    url = f"{live_server.url}/api/games/{game_id}/export.csv"
    with urllib.request.urlopen(url, timeout=10) as resp:
        rows = list(csv.DictReader(io.StringIO(resp.read().decode())))
    turn = next(r for r in rows if r.get("result"))
    assert turn["result"] == WORDS and turn["points"] == "150"
    exported = api(live_server, f"/api/games/{game_id}/export.json")
    assert exported["state"]["history"][0]["result"] == WORDS
    assert [e for e in tab.errors if e.startswith("page error")] == []
