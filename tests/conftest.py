"""Shared fixtures: a fresh app (and database) per test, flaskr style, and games played on it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable, start_game

from scorekeeper.web import create_app


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Callable[..., Flask]]:
    """Build test apps on a fresh SQLite file and cache folder: ``make_app(**config)``, the
    config keys over those; the cameras they started stop after the test."""
    made: list[Flask] = []

    def make(**config: Any) -> Flask:
        app = create_app(
            {
                "TESTING": True,
                "DATABASE": str(tmp_path / "games.sqlite3"),
                "CACHE_DIR": str(tmp_path / "cache"),
                **config,
            }
        )
        made.append(app)
        return app

    yield make
    for app in made:
        camera = app.extensions.get("camera")
        if camera is not None:
            camera.stop()


@pytest.fixture
def app(make_app: Callable[..., Flask]) -> Flask:
    """A test app on a fresh SQLite file and a fresh cache folder."""
    return make_app()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of the app."""
    return app.test_client()


@pytest.fixture
def no_advice(app: Flask) -> None:
    """The app without the advisor: for tests about the game (advice has its own tests)."""
    app.config["ADVICE"] = False


@pytest.fixture
def new_table(client: FlaskClient) -> NewTable:
    """Start a game through the API: ``new_table(players, preset="standard", teams=None,
    **overrides)`` returns its :class:`~helpers.table.Table`."""
    return partial(start_game, client)
