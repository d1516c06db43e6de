"""Live and export views of a game: ``GET /api/games/<id>/stream`` (server-sent events),
``GET /api/games/<id>/events``, ``GET /api/games/<id>/export.csv`` and ``export.json``.

A stream sends ``event: state`` with ``{"id", "version", "state"}`` (the same body as
``GET /api/games/<id>``) at once and then after each new version (and once more, same
version, when advice that was pending is ready), a ``: keepalive`` comment
every ``STREAM_KEEPALIVE_S`` seconds, and closes after ``STREAM_SECONDS`` so the browser's
``EventSource`` reconnects (``retry: 1000``). Each stream holds a server thread, so at most
``MAX_STREAMS`` run at once (503 with ``Retry-After`` beyond); ``scorekeeper serve`` runs
more threads than that, so streams never starve the API. Streams wake on commits in this
process and also poll the database each ``STREAM_POLL_S`` (other processes' commits).
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import ServiceUnavailable

from scorekeeper.cache import LRU
from scorekeeper.game import replay
from scorekeeper.game.export import game_csv, game_export
from scorekeeper.store import CHANGES, connect, read_log, snapshot, version_of
from scorekeeper.web.api import advice_settings, game_json, sse_response
from scorekeeper.web.api_advice import advice_known
from scorekeeper.web.db import db_path, get_db

bp = Blueprint("api_stream", __name__, url_prefix="/api")

DEFAULT_MAX_STREAMS = 16
_slots_lock = threading.Lock()


class StreamSlots:
    """Counts one app's open event streams; each holds a server thread until it closes."""

    def __init__(self) -> None:
        self.open = 0

    def take(self, limit: int) -> bool:
        """Take a slot unless ``limit`` streams are open already."""
        with _slots_lock:
            if self.open >= limit:
                return False
            self.open += 1
            return True

    def release(self) -> None:
        """Give a slot back (called once, when the server closes the response)."""
        with _slots_lock:
            self.open -= 1


def _slots() -> StreamSlots:
    slots = current_app.extensions.get("scorekeeper_stream_slots")
    if slots is None:
        with _slots_lock:
            slots = current_app.extensions.setdefault("scorekeeper_stream_slots", StreamSlots())
    assert isinstance(slots, StreamSlots)
    return slots


def open_streams() -> int:
    """How many event streams of the current app are open."""
    return _slots().open


def _event_id(snap_body: dict[str, Any]) -> str:
    """The event id: the version, with ``p`` appended while its advice is pending."""
    pending = snap_body["state"]["turn"]["advice_pending"]
    return f"{snap_body['version']}{'p' if pending else ''}"


PAYLOADS = 64  # recent events kept, by (game id, version, advice pending)
_payloads: LRU[tuple[str, int, bool], str] = LRU(PAYLOADS)


def _sse(snap_body: dict[str, Any]) -> str:
    """The event for one game body; shared by every stream of the game (serialised once)."""
    key = (snap_body["id"], snap_body["version"], snap_body["state"]["turn"]["advice_pending"])

    def serialise() -> str:
        data = json.dumps(snap_body, separators=(",", ":"))
        return f"id: {_event_id(snap_body)}\nevent: state\ndata: {data}\n\n"

    return _payloads.get_or_make(key, serialise)


@bp.get("/games/<game_id>/stream")
def stream(game_id: str) -> Response:
    """Server-sent events: the game's state now and after every new version."""
    cfg = current_app.config
    first = snapshot(get_db(), game_id)  # 404 before the stream starts
    seconds = float(cfg["STREAM_SECONDS"])
    keepalive = float(cfg["STREAM_KEEPALIVE_S"])
    poll = float(cfg["STREAM_POLL_S"])
    slots = _slots()
    if not slots.take(int(cfg["MAX_STREAMS"])):
        exc = ServiceUnavailable("too many live streams are open; retry in a few seconds")
        exc.retry_after = 5
        raise exc
    path = db_path()
    last_id = request.headers.get("Last-Event-ID", "")
    first_body = game_json(first)
    settings = dataclasses.replace(advice_settings(), wait=0.0)  # it resends when ready

    def events() -> Iterator[str]:
        conn = connect(path)
        try:
            yield "retry: 1000\n\n"
            sent = first.version if last_id == _event_id(first_body) else -1
            pending = first_body["state"]["turn"]["advice_pending"]
            if sent < 0:
                yield _sse(first_body)
                sent = first.version
            start = last = time.monotonic()
            seen = CHANGES.count
            while True:
                version = version_of(conn, game_id)
                now = time.monotonic()
                if version != sent or (pending and advice_known(game_id, version)):
                    body = game_json(snapshot(conn, game_id), settings)
                    yield _sse(body)
                    sent, last = body["version"], now
                    pending = body["state"]["turn"]["advice_pending"]
                elif now - last >= keepalive:
                    yield ": keepalive\n\n"
                    last = now
                left = seconds - (now - start)
                if left <= 0:
                    return
                seen = CHANGES.wait(seen, min(poll, left, keepalive))
        finally:
            conn.close()

    # The server closes the response even when the client left before the first chunk.
    response = sse_response(events())
    response.call_on_close(slots.release)
    return response


@bp.get("/games/<game_id>/events")
def events_log(game_id: str) -> Any:
    """The game's raw event log (the create event first)."""
    version, _, events = read_log(get_db(), game_id)
    return jsonify(id=game_id, version=version, events=events)


@bp.get("/games/<game_id>/export.json")
def export_json(game_id: str) -> Response:
    """Everything about the game as one JSON download."""
    version, created, events = read_log(get_db(), game_id)
    body = game_export(game_id, version, created, events, replay(events))
    resp = jsonify(body)
    resp.headers["Content-Disposition"] = f'attachment; filename="farkle-{game_id}.json"'
    return resp


@bp.get("/games/<game_id>/export.csv")
def export_csv(game_id: str) -> Response:
    """The turn-by-turn log as a CSV download."""
    _, _, events = read_log(get_db(), game_id)
    resp = Response(game_csv(replay(events)), mimetype="text/csv")
    resp.headers["Content-Disposition"] = f'attachment; filename="farkle-{game_id}.csv"'
    return resp
