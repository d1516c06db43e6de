"""Shared fixtures: a fresh app (and database) per test, flaskr style, and games played on it."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.table import NewTable, start_game

from scorekeeper.web import create_app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    """A test app on a fresh SQLite file and a fresh cache folder."""
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "games.sqlite3"),
            "CACHE_DIR": str(tmp_path / "cache"),
        }
    )
    yield app


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
