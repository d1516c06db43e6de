"""Browser-test helpers: where Chromium is, the served app, a tab, measured figures."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = Path(os.environ.get("SCOREKEEPER_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


UNSTICK_CSS = (
    ".banner, .play .topbar, .dock { position: static !important; box-shadow: none !important; }"
)
"""The pages' sticky bars, laid out in the page's flow for a full-page screenshot."""


@dataclass
class Server:
    """A running app: its base URL and database path."""

    url: str
    db: Path


def serve_in_thread(server: Any) -> tuple[threading.Thread, threading.Event]:
    """Run a waitress ``server`` in a daemon thread; set the event before closing the server, and
    the error its loop may raise on the closed socket is taken as the expected end."""
    closing = threading.Event()

    def run() -> None:
        try:
            server.run()
        except (OSError, ValueError):
            if not closing.is_set():
                raise

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, closing


@dataclass
class Tab:
    """A page plus the console errors and page errors it has shown."""

    page: Any
    errors: list[str] = field(default_factory=list)
    transferred: dict[str, int] = field(default_factory=dict)

    def shot(self, name: str, *, full_page: bool = True) -> Path:
        """Save a screenshot as test-artifacts/NAME-WxH.png (the viewport's size) and note the
        test that took it in test-artifacts/screenshots.json; return its path."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{shot_name(name, self.page.viewport_size)}.png"
        # a whole page in one picture: the bars that stick to the screen's edges are drawn where
        # they stand in the page, not over whatever the last scroll left under them
        style = UNSTICK_CSS if full_page else None
        self.page.screenshot(path=str(path), full_page=full_page, style=style)
        _index_shot(path.name, os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0])
        return path


def shot_name(name: str, viewport: dict[str, int] | None) -> str:
    """NAME with the viewport's size as its last part: "undo-360" at 360x740 is
    "undo-360x740"; a name that already ends in the size keeps it."""
    if not viewport:
        return name
    width, height = viewport["width"], viewport["height"]
    size = f"{width}x{height}"
    for tail in (f"-{size}", f"-{width}"):
        if name.endswith(tail):
            name = name[: -len(tail)]
            break
    return f"{name}-{size}"


def _index_shot(file: str, test: str) -> None:
    """Record which test wrote a screenshot (test-artifacts/screenshots.json, file -> test)."""
    path = ARTIFACTS / "screenshots.json"
    try:
        data = json.loads(path.read_text()) if path.exists() else {}
    except ValueError:
        data = {}
    data[file] = test
    path.write_text(json.dumps(data, indent=1, sort_keys=True))


def record_figure(name: str, value: Any) -> None:
    """Append a measured figure to test-artifacts/figures.json (reported in the README)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "figures.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[name] = value
    path.write_text(json.dumps(data, indent=2, sort_keys=True))
