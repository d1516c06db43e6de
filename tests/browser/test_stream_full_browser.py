"""A page whose live stream the server refuses because it is full says so in the server's words
(issue 31, item 12), on the production server (``web/server.py``), at 360x740 and 1920x1080."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers.browser import Server, Tab, serve_in_thread
from helpers.pages import wait_js

from scorekeeper.web import create_app
from scorekeeper.web.server import ServerLimits, make_server

pytestmark = pytest.mark.browser


@pytest.fixture
def full_server(tmp_path: Path) -> Iterator[Server]:
    """The app allowing one live stream per device on the production server."""
    app = create_app(
        {
            "DATABASE": str(tmp_path / "games.sqlite3"),
            "CACHE_DIR": str(tmp_path / "cache"),
            "CAMERA": "none",
            "ADVICE": False,
            "MAX_STREAMS": 4,
            "MAX_STREAMS_PER_CLIENT": 1,
        }
    )
    server = make_server(app, "127.0.0.1", 0, ServerLimits(threads=12))
    port = server.socket.getsockname()[1]
    thread, closing = serve_in_thread(server)
    try:
        yield Server(f"http://127.0.0.1:{port}", tmp_path / "games.sqlite3")
    finally:
        closing.set()
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=3)
        server.close()
        thread.join(timeout=5)


def test_a_page_refused_a_stream_says_why(
    full_server: Server, open_tab: Callable[..., Tab]
) -> None:
    request = urllib.request.Request(
        full_server.url + "/api/games",
        data=json.dumps({"players": ["Ann", "Bob"]}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as resp:
        game_id = json.loads(resp.read())["id"]
    first = open_tab(1920, 1080)
    first.page.goto(f"{full_server.url}/play/{game_id}")
    # the page's modules (win chances, review) follow the game through its one stream
    wait_js(first, "window.scorekeeperClient && window.scorekeeperClient.connected === true")
    for size, name in (((360, 740), "360x740"), ((1920, 1080), "1920x1080")):
        tab = open_tab(*size)
        tab.page.goto(f"{full_server.url}/play/{game_id}")
        wait_js(tab, "document.querySelector('#banner').textContent.includes('Live updates')")
        words = tab.page.text_content("#banner") or ""
        assert "already has 1 live view open" in words and "Retrying" in words
        assert tab.page.is_visible("#banner")
        tab.shot(f"play-stream-full-{name}")
        assert not [e for e in first.errors if "503" in e]  # the first page never refused
        tab.page.close()
    first.page.close()  # its slot is freed: a new page gets its live updates (after at most
    # two of its retries, 1 and 2 s apart; tests/test_server_limits.py times the slot itself)
    again = open_tab(1920, 1080)
    again.page.goto(f"{full_server.url}/play/{game_id}")
    connected = "window.scorekeeperClient && window.scorekeeperClient.connected === true"
    wait_js(again, connected, timeout=15)
