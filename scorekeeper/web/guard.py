"""Checks on every state-changing API request: same origin, and JSON sent as JSON.

A page served from another origin (another port of the same host counts: cookies do not tell
ports apart) could otherwise post a form or a ``text/plain`` body that the game takes as an
action, carried by the control cookie. Browsers send ``Origin`` with every such post and cannot
send ``application/json`` across origins without a preflight this app never answers.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
UPLOAD_PATHS = frozenset({"/api/camera/frame", "/api/camera/photo"})
"""Routes whose body is an image, not JSON (they read and check the image themselves)."""


def _origin_of(url: str) -> str:
    """The host and port of ``url`` (the scheme is left out: ``serve --https`` puts a TLS
    front before the app, so the page is https while the app sees http on the same address)."""
    parts = urlsplit(url)
    return parts.netloc.lower()


def refusal() -> ResponseReturnValue | None:
    """The answer refusing this request, or None when it may go on."""
    if request.method in SAFE_METHODS or not request.path.startswith("/api/"):
        return None
    origin = request.headers.get("Origin")
    if origin is not None and _origin_of(origin) != _origin_of(request.host_url):
        message = f"requests from {origin} may not change games here (cross-origin)"
        return jsonify(error="cross_origin", message=message), 403
    has_body = bool(request.content_length) or "chunked" in request.headers.get(
        "Transfer-Encoding", ""
    )
    if has_body and request.path not in UPLOAD_PATHS and request.mimetype != "application/json":
        sent = request.mimetype or "no Content-Type"
        message = f"the body must be sent as Content-Type: application/json, not {sent}"
        return jsonify(error="unsupported_media_type", message=message), 415
    return None


def init_app(app: Flask) -> None:
    """Check every API request before its view runs."""
    app.before_request(refusal)
