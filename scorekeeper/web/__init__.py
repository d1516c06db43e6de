"""The Flask app: ``create_app(test_config=None)`` builds it from the blueprints in ``BLUEPRINTS``.

Each module in ``BLUEPRINTS`` has a module-level ``bp`` (a ``flask.Blueprint``). Add a line to
register a new one. Errors under ``/api/`` are answered as ``{"error": code, "message": words}``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from scorekeeper.errors import ScorekeeperError

BLUEPRINTS = ("scorekeeper.web.api",)

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
        return jsonify(error=code, message=exc.description), exc.code or 500

    @app.errorhandler(ScorekeeperError)
    def domain_error(exc: ScorekeeperError) -> Any:
        return jsonify(error="bad_request", message=str(exc)), 400
