"""Live and export views of a game: ``GET /api/games/<id>/stream`` (server-sent events),
``GET /api/games/<id>/events``, ``GET /api/games/<id>/export.csv`` and ``export.json``.

A stream sends ``event: state`` with ``{"id", "version", "state"}`` (the same body as
``GET /api/games/<id>``) at once and then after each new version (and once more, same
version, when advice that was pending is ready), a ``: keepalive`` comment
every ``STREAM_KEEPALIVE_S`` seconds, and closes after ``STREAM_SECONDS`` so the browser's
``EventSource`` reconnects (``retry: 1000``). Each stream holds a server thread, so at most
``MAX_STREAMS`` run at once, ``MAX_STREAMS_PER_CLIENT`` from one address (503 with words and
``Retry-After`` beyond); ``scorekeeper serve`` runs a thread for each on top of those for
requests, so streams never starve the API. A stream whose client left ends within
:data:`CHECK_S` and frees its slot. Streams wake on commits in this process (streams of one
game share one read of its version and one serialised event per version) and also poll the
database each ``STREAM_POLL_S`` (other processes' commits).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import ServiceUnavailable

from scorekeeper.errors import GameNotFoundError
from scorekeeper.game import replay
from scorekeeper.game.export import game_csv, game_export
from scorekeeper.store import CHANGES, connect, read_log, snapshot, version_of
from scorekeeper.web.api import advice_settings, game_json, sse_response
from scorekeeper.web.api_advice import advice_known
from scorekeeper.web.db import db_path, get_db

bp = Blueprint("api_stream", __name__, url_prefix="/api")
log = logging.getLogger(__name__)

DEFAULT_MAX_STREAMS = 16
DEFAULT_MAX_STREAMS_PER_CLIENT = 8
CHECK_S = 0.5
"""How often a stream looks whether its client has left (its slot is then free at once)."""
_slots_lock = threading.Lock()


class StreamSlots:
    """Counts one app's open event streams, in all and by client address; each holds a
    server thread until it closes."""

    def __init__(self) -> None:
        self.open = 0
        self.by_client: dict[str, int] = {}

    def take(
        self, client: str, limit: int, per_client: int, what: str = "live views"
    ) -> str | None:
        """Take a slot for ``client``; or, when ``limit`` streams are open in all or
        ``per_client`` from this client, take none and say why (naming them ``what``)."""
        with _slots_lock:
            mine = self.by_client.get(client, 0)
            if mine >= per_client:
                return (
                    f"this device ({client}) already has {mine}"
                    f" {what if mine != 1 else what.removesuffix('s')} open, the most one"
                    " device may; close one (a tab or window) and retry"
                )
            if self.open >= limit:
                return f"all {limit} {what} this server allows are open; retry in a few seconds"
            self.open += 1
            self.by_client[client] = mine + 1
            return None

    def release(self, client: str) -> None:
        """Give ``client``'s slot back (called once, when the server closes the response)."""
        with _slots_lock:
            self.open -= 1
            left = self.by_client.get(client, 1) - 1
            if left > 0:
                self.by_client[client] = left
            else:
                self.by_client.pop(client, None)


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


_latest: dict[str, tuple[int, bool, str]] = {}  # game id -> its newest event (version, pending)
_versions: dict[str, tuple[int, float, int]] = {}  # game id -> (CHANGES.count, read at, version)
_shared_lock = threading.Lock()
SHARED_GAMES = 512  # games whose newest version and event are shared, before starting over


def _sse(snap_body: dict[str, Any]) -> str:
    """The event for one game body."""
    data = json.dumps(snap_body, separators=(",", ":"))
    return f"id: {_event_id(snap_body)}\nevent: state\ndata: {data}\n\n"


def _current_version(conn: Any, game_id: str, count: int, poll: float) -> int:
    """The game's version. Streams woken by the same commit share one read of it, and a read
    at most ``poll`` seconds old (other processes' commits are seen within ``poll``)."""
    now = time.monotonic()
    hit = _versions.get(game_id)  # without the lock: most streams find it here
    if hit is not None and hit[0] == count and now - hit[1] < poll:
        return hit[2]
    with _shared_lock:  # one stream reads; the others woken with it wait and share it
        hit = _versions.get(game_id)
        if hit is not None and hit[0] == count and now - hit[1] < poll:
            return hit[2]
        version = version_of(conn, game_id)
        if len(_versions) >= SHARED_GAMES:
            _versions.clear()
        _versions[game_id] = (count, time.monotonic(), version)
        return version


def _event(conn: Any, game_id: str, version: int, settings: Any) -> tuple[int, bool, str]:
    """(version, advice pending, event text) of the game now: worked out once per version
    (and once more when its advice arrives) for every stream watching the game."""

    def usable(hit: tuple[int, bool, str] | None) -> bool:
        return (
            hit is not None and hit[0] >= version and not (hit[1] and advice_known(game_id, hit[0]))
        )

    hit = _latest.get(game_id)  # without the lock: most streams find it here
    if usable(hit):
        assert hit is not None
        return hit
    with _shared_lock:  # one stream works it out; the others woken with it wait and share it
        hit = _latest.get(game_id)
        if usable(hit):
            assert hit is not None
            return hit
        body = game_json(snapshot(conn, game_id), settings)
        made = (body["version"], bool(body["state"]["turn"]["advice_pending"]), _sse(body))
        if len(_latest) >= SHARED_GAMES:
            _latest.clear()
        _latest[game_id] = made
        return made


@bp.get("/games/<game_id>/stream")
def stream(game_id: str) -> Response:
    """Server-sent events: the game's state now and after every new version."""
    cfg = current_app.config
    first = snapshot(get_db(), game_id)  # 404 before the stream starts
    seconds = float(cfg["STREAM_SECONDS"])
    keepalive = float(cfg["STREAM_KEEPALIVE_S"])
    poll = float(cfg["STREAM_POLL_S"])
    slots = _slots()
    client = request.remote_addr or "?"
    refusal = slots.take(
        client,
        int(cfg["MAX_STREAMS"]),
        int(cfg.get("MAX_STREAMS_PER_CLIENT", DEFAULT_MAX_STREAMS_PER_CLIENT)),
    )
    if refusal is not None:
        exc = ServiceUnavailable(refusal)
        exc.retry_after = 5
        raise exc
    path = db_path()
    last_id = request.headers.get("Last-Event-ID", "")
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
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
            start = last = polled = time.monotonic()
            seen = CHANGES.count
            woke = True
            while True:
                now = time.monotonic()
                if gone():  # the client left: free the slot now, not at the next write
                    return
                fresh = now - polled >= poll
                if woke or fresh or pending:
                    version = _current_version(conn, game_id, seen, poll)
                    polled = now if fresh else polled
                    if version != sent or (pending and advice_known(game_id, version)):
                        sent, pending, text = _event(conn, game_id, version, settings)
                        yield text
                        last = now
                if now - last >= keepalive:
                    yield ": keepalive\n\n"
                    last = now
                left = seconds - (now - start)
                if left <= 0:
                    return
                count = CHANGES.wait(seen, min(CHECK_S, left, keepalive))
                woke, seen = count != seen, count
        except (GameNotFoundError, sqlite3.OperationalError) as exc:
            # the game is gone, or the database cannot be read now: end the stream (the
            # browser reconnects in a second and gets the answer in words)
            log.info("stream of game %s ended: %s", game_id, exc)
        finally:
            conn.close()

    # The server closes the response even when the client left before the first chunk.
    response = sse_response(events())
    response.call_on_close(lambda: slots.release(client))
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
