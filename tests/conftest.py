"""Shared fixtures: a fresh app (and database) per test, flaskr style."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

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
