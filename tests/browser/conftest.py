"""Browser-test fixtures: the real app on waitress in a thread, and headless Debian Chromium.

Without ``/usr/bin/chromium`` the browser tests skip with the reason, unless
``SCOREKEEPER_REQUIRE_BROWSER=1`` (CI), where they fail instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from helpers.browser import CHROMIUM, LAUNCH_ARGS, Server, Tab, serve_in_thread


def _missing_browser(reason: str) -> None:
    if os.environ.get("SCOREKEEPER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"SCOREKEEPER_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The real app (every blueprint) served by waitress on a free loopback port."""
    from waitress import create_server  # type: ignore[import-untyped,unused-ignore]

    from scorekeeper.web import create_app

    tmp = tmp_path_factory.mktemp("browser")
    db = tmp / "games.sqlite3"
    app = create_app(
        {
            "DATABASE": str(db),
            "CACHE_DIR": str(tmp / "cache"),
            "PUBLIC_URL": None,
            "CAMERA": "none",
            # Streams of closed pages end at their next write: keep-alives find them soon.
            "STREAM_KEEPALIVE_S": 2,
            # every tab comes from 127.0.0.1, and on a loaded machine closed pages' streams take
            # a while to end: the limits (tested in test_server_limits and
            # test_stream_full_browser) would refuse a new page's stream with a 503
            "MAX_STREAMS": 80,
            "MAX_STREAMS_PER_CLIENT": 80,
            "GAMES_PER_WINDOW": 0,  # every game of the suite comes from one address
        }
    )
    server = create_server(app, host="127.0.0.1", port=0, threads=96)  # streams + requests
    port = server.socket.getsockname()[1]  # type: ignore[union-attr]
    thread, closing = serve_in_thread(server)
    try:
        yield Server(f"http://127.0.0.1:{port}", db)
    finally:
        closing.set()
        # Streams of closed pages end at their next keep-alive; then stop the workers.
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=3)  # type: ignore[union-attr]
        server.close()
        thread.join(timeout=5)
        _stop_background_solvers()


def _stop_background_solvers() -> None:
    """Stop the win-chance solves the pages started, so the test run can exit at once
    (a running solve would otherwise be awaited at interpreter exit).
    """
    try:
        from scorekeeper.web import jobs
    except ImportError:
        return
    jobs.stop_background_solves()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Headless Debian Chromium through Playwright (never a downloaded browser)."""
    if not CHROMIUM.exists():
        _missing_browser(f"{CHROMIUM} is missing (apt-get install chromium chromium-driver)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing_browser("Playwright for Python is not installed (pip install playwright)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _failed_resource(msg: Any) -> str | None:
    """The path of the resource a "Failed to load resource" console line is about, else None."""
    url = str((msg.location or {}).get("url", ""))
    return urlsplit(url).path if "Failed to load resource" in msg.text and url else None


def _solver_busy(msg: Any) -> bool:
    """The browser's own line for a win-chance request the server refused as busy (503): on a
    loaded machine the suite's many rule sets fill the solver's queue, and the page says so in
    words and asks again (``test_winprob_busy_browser``); not a fault of the page."""
    path = _failed_resource(msg)
    return path is not None and "status of 503" in msg.text and path.endswith("/winprob")


def _console_error(msg: Any) -> str:
    """A console error line as collected, naming the resource a failed load was about."""
    path = _failed_resource(msg)
    return f"console {msg.type}: {msg.text}" + (f" ({path})" if path else "")


@pytest.fixture
def open_tab(chromium: Any) -> Iterator[Callable[..., Tab]]:
    """Open pages in fresh browser contexts; every console error is collected."""
    contexts: list[Any] = []

    def opener(width: int = 768, height: int = 1024, *, context: Any = None) -> Tab:
        if context is None:
            context = chromium.new_context(
                viewport={"width": width, "height": height}, device_scale_factor=1
            )
            contexts.append(context)
        page = context.new_page()
        tab = Tab(page)
        page.on(
            "console",
            lambda msg: (
                tab.errors.append(_console_error(msg))
                if msg.type == "error" and not _solver_busy(msg)
                else None
            ),
        )
        page.on("pageerror", lambda exc: tab.errors.append(f"page error: {exc}"))
        return tab

    yield opener
    for ctx in contexts:
        ctx.close()
