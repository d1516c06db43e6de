"""The Flask app: ``create_app(test_config=None)`` builds it from its blueprints, flaskr style.

``create_app`` sets every config key the app reads, with its default, then applies
``test_config``; a new blueprint is one import and one ``register_blueprint`` line. Errors under
``/api/`` are answered as ``{"error": code, "message": words}``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from flask import Flask, jsonify, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException, NotFound

from scorekeeper.errors import (
    ControlTokenError,
    GameNotFoundError,
    GameRuleError,
    RequestFieldError,
    RulesetNotFoundError,
    ScorekeeperError,
    SolverBusyError,
    StaleUndoError,
    StaleVersionError,
    TeachStoreError,
)
from scorekeeper.store import default_db_path
from scorekeeper.web import guard
from scorekeeper.web.params import id_field, parse_json

MAX_BODY_BYTES = 64 * 1024


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app; ``test_config`` overrides config keys (e.g. ``DATABASE``)."""
    # Imported here, as flaskr does, so that a worker process importing one module of this
    # package (the advisor's, the solver's) does not load every blueprint and the camera.
    from scorekeeper.camera.frames import MAX_UPLOAD_BYTES
    from scorekeeper.camera.teaching import teach_mode
    from scorekeeper.web import (
        api,
        api_review,
        api_stream,
        api_winprob,
        camera_api,
        pages,
        players,
        ratelimit,
        rulesets,
    )

    app = Flask(__name__, instance_relative_config=False)
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        JSON_SORT_KEYS=False,
        DATABASE=str(default_db_path()),
        CACHE_DIR=None,  # None: the user's cache folder
        PUBLIC_URL=None,  # None: the address the request came to, or this machine's LAN address
        ADVICE=True,
        ADVICE_WAIT_S=0.02,
        ADVICE_WORKER="thread",  # or "process", as ``serve`` uses
        WINPROB_WORKER="process",  # or "thread"
        STREAM_SECONDS=300,
        STREAM_KEEPALIVE_S=15,
        STREAM_POLL_S=1.0,
        MAX_STREAMS=api_stream.DEFAULT_MAX_STREAMS,
        MAX_STREAMS_PER_CLIENT=api_stream.DEFAULT_MAX_STREAMS_PER_CLIENT,
        GAMES_PER_WINDOW=ratelimit.DEFAULT_GAMES_PER_WINDOW,  # 0: no limit
        GAMES_WINDOW_S=ratelimit.DEFAULT_WINDOW_S,
        CAMERA=None,  # None: "none" when testing, else "auto"
        CAMERA_LOG=None,  # None: beside DATABASE
        CAMERA_TEACH=True,  # keep crops of corrected and taught dice
        CAMERA_TEACH_DIR=None,  # None: <db>-teach beside DATABASE
        CAMERA_TEACH_ADAPT="marks",  # "marks", "read" (serve --read-taught) or "off"; model card
        CAMERA_MAX_STREAMS=4,
        CAMERA_MAX_STREAMS_PER_CLIENT=2,
        CAMERA_MAX_UPLOAD_BYTES=MAX_UPLOAD_BYTES,
        PHOTO_MAX_UPLOAD_BYTES=camera_api.PHOTO_MAX_BYTES,
        CAMERA_STREAM_FPS=15.0,
        CAMERA_UPLOAD_FPS=12.0,
        CAMERA_THREADS=1,
        CAMERA_SCORE_THRESHOLD=None,  # None: the model's own
        CAMERA_READER_FACTORY=None,  # None: the ONNX dice reader
        CAMERA_SETTLE=None,
        CAMERA_SOURCE_FACTORY=None,
        CAMERA_CAPTURE_OPTIONS=None,
        CAMERA_DEMO_OPTIONS=None,
    )
    if test_config:
        app.config.update(test_config)
    # refused here, with the accepted values, rather than when the camera first starts
    app.config["CAMERA_TEACH_ADAPT"] = teach_mode(app.config["CAMERA_TEACH_ADAPT"])
    app.register_blueprint(api.bp)
    app.register_blueprint(api_stream.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(camera_api.bp)
    app.register_blueprint(api_winprob.bp)
    app.register_blueprint(api_review.bp)
    app.register_blueprint(players.bp)
    app.register_blueprint(rulesets.bp)
    app.json = StrictJSONProvider(app)
    app.url_value_preprocessor(_check_path_ids)
    guard.init_app(app)
    _register_error_handlers(app)
    return app


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, reading bodies through :func:`params.parse_json` (bounded nesting, no
    lone surrogates), so any view's ``request.get_json()`` is as safe as ``json_body()``."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        """Parse ``s`` as :func:`params.parse_json` does."""
        return parse_json(s)


PATH_IDS = {"game_id": "game id", "pid": "proposal id"}
"""Path fields that hold an id, checked whole (``/play/abc%0A`` is no id) before any view."""


def _check_path_ids(endpoint: str | None, values: dict[str, Any] | None) -> None:
    for field, name in PATH_IDS.items():
        raw = (values or {}).get(field)
        if isinstance(raw, str):
            try:
                id_field(name, raw)
            except RequestFieldError as exc:
                raise NotFound(str(exc)) from None


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
        resp = jsonify(error=code, message=str(exc))
        if status == 503:
            resp.headers["Retry-After"] = "60"
        return resp, status


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
    RulesetNotFoundError: ("not_found", 404),
    StaleVersionError: ("stale_version", 409),
    StaleUndoError: ("stale_undo", 409),
    GameRuleError: ("not_allowed", 422),
    SolverBusyError: ("solver_busy", 503),
    TeachStoreError: ("insufficient_storage", 507),
}
