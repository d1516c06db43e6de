"""The Flask app: ``create_app(test_config=None)`` builds it from the blueprints in ``BLUEPRINTS``.

Each module in ``BLUEPRINTS`` has a module-level ``bp`` (a ``flask.Blueprint``). Add a line to
register a new one. Errors under ``/api/`` are answered as ``{"error": code, "message": words}``.
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Mapping
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from scorekeeper.errors import (
    ControlTokenError,
    GameNotFoundError,
    GameRuleError,
    ScorekeeperError,
    StaleVersionError,
)

BLUEPRINTS = (
    "scorekeeper.web.api",
    "scorekeeper.web.api_stream",
    "scorekeeper.web.pages",
    "scorekeeper.web.camera_api",
    "scorekeeper.web.api_winprob",
    "scorekeeper.web.api_review",
    "scorekeeper.web.players",
)

MAX_BODY_BYTES = 64 * 1024


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app; ``test_config`` overrides config keys (e.g. ``DATABASE``)."""
    app = Flask(__name__, instance_relative_config=False)
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY_BYTES, JSON_SORT_KEYS=False)
    if test_config:
        app.config.update(test_config)
    for name in BLUEPRINTS:
        app.register_blueprint(importlib.import_module(name).bp)
    _register_error_handlers(app)
    return app


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def _register_error_handlers(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        if not _wants_json():
            return exc
        code = (exc.name or "error").lower().replace(" ", "_")
        resp = jsonify(error=code, message=exc.description)
        for key, value in exc.get_headers():
            if key.lower() != "content-type":
                resp.headers[key] = value  # e.g. Retry-After, Allow
        return resp, exc.code or 500

    @app.errorhandler(sqlite3.OperationalError)
    def database_busy(exc: sqlite3.OperationalError) -> Any:
        app.logger.warning("database error: %s", exc)
        resp = jsonify(
            error="database_busy", message=f"the game database could not be used ({exc}); retry"
        )
        resp.headers["Retry-After"] = "1"
        return resp, 503

    @app.errorhandler(ScorekeeperError)
    def domain_error(exc: ScorekeeperError) -> Any:
        code, status = error_status(exc)
        return jsonify(error=code, message=str(exc)), status


def error_status(exc: ScorekeeperError) -> tuple[str, int]:
    """The JSON error code and HTTP status of a domain error (400 unless more specific)."""
    if isinstance(exc, ControlTokenError):
        return ("missing_token", 401) if exc.missing else ("wrong_token", 403)
    for cls, answer in _STATUS.items():
        if isinstance(exc, cls):
            return answer
    return "bad_request", 400


_STATUS: dict[type[ScorekeeperError], tuple[str, int]] = {
    GameNotFoundError: ("not_found", 404),
    StaleVersionError: ("stale_version", 409),
    GameRuleError: ("not_allowed", 422),
}
