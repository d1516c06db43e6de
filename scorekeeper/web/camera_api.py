"""The camera API (``/api/camera...``): status, the latest reading, the MJPEG live view, uploads.

The app's camera is chosen by the config key ``CAMERA``: ``auto`` (a webcam if one opens,
else none, the demo camera a ``POST /api/camera/demo`` away), ``none``, ``demo``, ``tablet``,
a webcam index or a stream URL. Under
``TESTING`` it defaults to ``none`` so tests start no threads unless they ask.
The service starts on the first camera request and never blocks a request on the device.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from scorekeeper.camera.frames import MAX_UPLOAD_BYTES, decode_upload
from scorekeeper.camera.log import CameraLog, log_path_for
from scorekeeper.camera.reading import read_throw, to_die
from scorekeeper.camera.service import UPLOAD_FPS, CameraService, default_reader_factory
from scorekeeper.camera.settle import Area, count_message
from scorekeeper.camera.states import SourceKind
from scorekeeper.camera.teach_store import TeachStore, teach_dir_for
from scorekeeper.camera.teaching import Teaching
from scorekeeper.errors import CameraError, TeachStoreError
from scorekeeper.store import default_db_path
from scorekeeper.vision.imageio import decode_image
from scorekeeper.web.api import json_body, require_control
from scorekeeper.web.api_stream import StreamSlots
from scorekeeper.web.params import game_id_field, opt_int_arg, text_arg

bp = Blueprint("camera_api", __name__, url_prefix="/api/camera")

_LOCK = threading.Lock()
BOUNDARY = "frame"
MAX_THROW_KEY = 80
PHOTO_MAX_BYTES = 16 * 1024 * 1024
"""Default ``PHOTO_MAX_UPLOAD_BYTES``: a phone's JPEG photo, even at 48 megapixels."""
PHOTO_MAX_PIXELS = 16_000_000
"""The most pixels of a photo decoded: a larger JPEG is decoded 2, 4 or 8 times smaller (a
48-megapixel phone photo as 12), a larger PNG, WebP, BMP or TIFF is refused, so one photo's
pixels take at most 48 MB."""


def camera_log_path(app: Flask) -> Path:
    """Where the app's camera log lives: ``CAMERA_LOG``, else beside ``DATABASE``."""
    if app.config.get("CAMERA_LOG"):
        return Path(app.config["CAMERA_LOG"])
    return log_path_for(app.config.get("DATABASE") or default_db_path())


def camera_service(app: Flask | None = None) -> CameraService:
    """The app's camera service, created and started on first use."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    svc: CameraService | None = app.extensions.get("camera")
    if svc is not None:
        return svc
    with _LOCK:
        svc = app.extensions.get("camera")
        if svc is None:
            svc = _build_service(app)
            app.extensions["camera"] = svc
            app.extensions["camera_streams"] = StreamSlots()
            svc.start()
            atexit.register(svc.stop)
    return svc


def _build_service(app: Flask) -> CameraService:
    cfg = app.config
    source = cfg.get("CAMERA") or (SourceKind.NONE if app.testing else SourceKind.AUTO)
    threshold = cfg.get("CAMERA_SCORE_THRESHOLD")  # None: the model's own
    reader_factory = cfg.get("CAMERA_READER_FACTORY") or default_reader_factory(
        threads=int(cfg.get("CAMERA_THREADS", 1)),
        score_threshold=None if threshold is None else float(threshold),
    )
    return CameraService(
        str(source),
        reader_factory=reader_factory,
        log=CameraLog(camera_log_path(app)),
        settle=cfg.get("CAMERA_SETTLE"),
        source_factory=cfg.get("CAMERA_SOURCE_FACTORY"),
        capture_options=cfg.get("CAMERA_CAPTURE_OPTIONS"),
        demo_options=cfg.get("CAMERA_DEMO_OPTIONS"),
        max_upload_fps=float(cfg.get("CAMERA_UPLOAD_FPS", UPLOAD_FPS)),
        teaching=Teaching(
            TeachStore(teach_dir(app)) if cfg.get("CAMERA_TEACH", True) else None,
            adapt=cfg.get("CAMERA_TEACH_ADAPT", "marks"),
        ),
    )


def teach_dir(app: Flask) -> Path:
    """Where the app's taught dice live: ``CAMERA_TEACH_DIR``, else beside ``DATABASE``."""
    if app.config.get("CAMERA_TEACH_DIR"):
        return Path(app.config["CAMERA_TEACH_DIR"])
    return teach_dir_for(app.config.get("DATABASE") or default_db_path())


def _dice_left() -> int | None:
    return opt_int_arg(request.args, "dice_left", 0, 6)


def _reading_answer(
    svc: CameraService, dice_left: int | None, began_after: int | None = None
) -> dict[str, Any]:
    """The newest reading as JSON; its proposal only if settled after frame ``began_after``
    (the frame the named throw began after), so dice already lying there are never offered."""
    reading = svc.latest()
    st = svc.status()
    if reading is None:
        body: dict[str, Any] = {
            "frame_id": 0,
            "stable": False,
            "motion": 0.0,
            "dice": [],
            "count": 0,
            "ignored": [],
            "proposal": None,
        }
    else:
        body = reading.to_dict(dice_left)
        offered = svc.offered(reading.proposal, began_after)
        body["before_throw"] = reading.proposal is not None and offered is None
        if offered is None:
            body["proposal"] = None
        else:
            svc.note_shown(offered, dice_left)
    body.update(status=st["status"], message=st["message"], source=st["source"])
    return body


@bp.get("")
def status() -> Any:
    """``GET /api/camera``: ``{"source", "status": ok|no_camera|error, "message", ...}``."""
    return jsonify(camera_service().status())


def _throw_key() -> str | None:
    return text_arg(request.args, "throw", "", MAX_THROW_KEY) or None


@bp.get("/latest")
def latest() -> Any:
    """``GET /api/camera/latest[?dice_left=N[&throw=KEY]]``: the newest reading and any
    proposal. ``throw`` names the throw the game waits for: only a proposal settled after the
    key was first seen is offered, and a new key asks the built-in demo to throw the dice."""
    dice_left = _dice_left()
    svc = camera_service()
    return jsonify(_reading_answer(svc, dice_left, _throw_began(svc, dice_left)))


def _throw_began(svc: CameraService, dice_left: int | None) -> int | None:
    """The frame the throw named by the ``throw`` key began after (None: no key)."""
    key = _throw_key()
    if key is None:
        return None
    if not dice_left:
        raise CameraError("throw needs dice_left, the number of dice to throw (1 to 6)")
    return svc.ask_throw(dice_left, key)


@bp.post("/demo")
def start_demo() -> Any:
    """``POST /api/camera/demo`` ``{}``: start the built-in demo camera where ``auto`` found no
    webcam (409 otherwise); answers the status."""
    if not isinstance(json_body(), dict):
        raise CameraError("send a JSON object, {}")
    svc = camera_service()
    try:
        svc.start_demo()
    except CameraError as exc:
        return jsonify(error="conflict", message=str(exc)), 409
    return jsonify(svc.status())


def _upload(name: str, limit: int) -> bytes:
    """The request's upload: the form file ``name``, else the whole body, of at most ``limit``
    bytes (the app's 64 KB limit does not apply here).

    :raises RequestEntityTooLarge: for a larger one (413, named as the ``name``).
    :raises CameraError: for none (400, naming both ways to send one).
    """
    if (request.content_length or 0) > limit:
        raise RequestEntityTooLarge(
            f"the {name} is {request.content_length} bytes; at most {limit} are accepted"
        )
    request.max_content_length = limit
    if name in request.files:
        data = bytes(request.files[name].read(limit + 1))
    else:
        data = request.get_data(cache=False)
    if not data:
        raise CameraError(
            f"the {name} upload is empty; send one JPEG or PNG {name} as the body"
            f" (Content-Type image/jpeg or image/png) or as the form file '{name}'"
        )
    return data


def _too_many(message: str) -> tuple[Response, int]:
    """A 429 answer that asks to try again in a second."""
    resp = jsonify(error="too_many_requests", message=message)
    resp.headers["Retry-After"] = "1"
    return resp, 429


@bp.post("/frame")
def frame() -> Any:
    """``POST /api/camera/frame[?dice_left=N[&throw=KEY]]``: one JPEG/PNG from the tablet;
    answers like ``latest``."""
    svc = camera_service()
    dice_left = _dice_left()
    if svc.kind != SourceKind.TABLET:
        return jsonify(
            error="conflict",
            message=f"the camera source is {svc.label}; frames are accepted only when the "
            "server runs with --camera tablet",
        ), 409
    limit = int(current_app.config.get("CAMERA_MAX_UPLOAD_BYTES", MAX_UPLOAD_BYTES))
    data = _upload("frame", limit)
    if not svc.allow_upload():
        return _too_many(f"too many frames; at most {svc.max_upload_fps:g} per second are accepted")
    began_after = _throw_began(svc, dice_left)
    svc.submit(decode_upload(data, limit))
    return jsonify(_reading_answer(svc, dice_left, began_after))


def photo_reader(app: Flask) -> tuple[Any, threading.Lock]:
    """The app's reader for still photos (the camera's reader factory, built on first use) and
    the lock that lets one photo be read at a time, so memory stays bounded."""
    with _LOCK:
        if "photo_reader" not in app.extensions:
            factory = app.config.get("CAMERA_READER_FACTORY") or default_reader_factory(
                threads=int(app.config.get("CAMERA_THREADS", 1))
            )
            app.extensions["photo_reader"] = (factory(), threading.Lock())
    reader: tuple[Any, threading.Lock] = app.extensions["photo_reader"]
    return reader


@bp.post("/photo")
def photo() -> Any:
    """``POST /api/camera/photo[?dice_left=N]``: the dice in one photo (a JPEG or PNG body, or
    the form file ``photo``), whatever the camera source; nothing is recorded. Answers
    ``{"dice": [{"value", "box", "confidence", "unsure"}] left to right, "values", "count",
    "message"}``, boxes in the photo's pixels."""
    dice_left = _dice_left()
    data = _upload("photo", int(current_app.config.get("PHOTO_MAX_UPLOAD_BYTES", PHOTO_MAX_BYTES)))
    reader, busy = photo_reader(current_app._get_current_object())  # type: ignore[attr-defined]
    if not busy.acquire(blocking=False):
        return _too_many("another photo is being read; try again")
    try:
        image, factor = decode_image(data, "the photo", PHOTO_MAX_PIXELS)
        dets = [to_die(d).scaled(factor) for d in read_throw(reader, image, dice_left)]
    finally:
        busy.release()
    dets.sort(key=lambda d: d.box[0])
    shown = " ".join(f"{d.value}?" if d.unsure else str(d.value) for d in dets)
    message = count_message(len(dets), dice_left) + (f": {shown}" if dets else "")
    if any(d.unsure for d in dets):
        message += " (check the ones marked ?)"
    return jsonify(
        dice=[{**d.to_dict(), "unsure": d.unsure} for d in dets],
        values=sorted(d.value for d in dets),
        count=len(dets),
        message=message,
    )


@bp.get("/snapshot.jpg")
def snapshot() -> Any:
    """``GET /api/camera/snapshot.jpg``: the newest picture with the overlay."""
    svc = camera_service()
    data = svc.jpeg(svc.latest() if svc.picture_ok() else None)
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/stream")
def stream() -> Any:
    """``GET /api/camera/stream``: MJPEG (multipart/x-mixed-replace) live view with the overlay."""
    svc = camera_service()
    slots: StreamSlots = current_app.extensions["camera_streams"]
    client = request.remote_addr or "?"
    cfg = current_app.config
    refusal = slots.take(
        client,
        int(cfg.get("CAMERA_MAX_STREAMS", 4)),
        int(cfg.get("CAMERA_MAX_STREAMS_PER_CLIENT", 2)),
        "camera views",
    )
    if refusal is not None:
        resp = jsonify(
            error="service_unavailable", message=f"{refusal}, or use /api/camera/snapshot.jpg"
        )
        resp.headers["Retry-After"] = "5"
        return resp, 503
    max_fps = float(cfg.get("CAMERA_STREAM_FPS", 15.0))
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    resp = Response(
        _mjpeg(svc, max_fps, gone),
        mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
    resp.call_on_close(lambda: slots.release(client))
    return resp


def _mjpeg(svc: CameraService, max_fps: float, gone: Callable[[], bool]) -> Iterator[bytes]:
    last = -1
    next_t = 0.0
    first = True
    while svc.running and not gone():
        now = time.monotonic()
        if next_t > now:
            time.sleep(next_t - now)
        next_t = time.monotonic() + 1.0 / max_fps
        reading = svc.wait_reading(last, 0.0 if first else 1.0)  # the first picture at once
        first = False
        if reading is not None:
            last = reading.frame_id
        data = svc.jpeg(svc.latest() if svc.picture_ok() else None)
        yield (
            (
                f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(data)}\r\n\r\n"
            ).encode()
            + data
            + b"\r\n"
        )
        if svc.kind == SourceKind.NONE:
            time.sleep(1.0)


@bp.get("/area")
def get_area() -> Any:
    """``GET /api/camera/area``: the throwing area in fractions of the frame."""
    svc = camera_service()
    return jsonify(area=svc.area.to_dict(), whole=svc.area.is_whole())


@bp.post("/area")
def set_area() -> Any:
    """``POST /api/camera/area`` ``{"x0", "y0", "x1", "y1"}`` (fractions), or ``{"area": null}``."""
    body = json_body()
    if not isinstance(body, dict):
        raise CameraError('send a JSON object {"x0", "y0", "x1", "y1"} or {"area": null}')
    obj = body.get("area", body)
    area = None if obj is None else Area.parse(obj)
    new = camera_service().set_area(area)
    return jsonify(area=new.to_dict(), whole=new.is_whole())


@bp.post("/proposals/<pid>")
def proposal_outcome(pid: str) -> Any:
    """``POST /api/camera/proposals/<id>`` ``{"recorded": [dice] | null, "game": id}``: log it.

    An outcome that names a game needs that game's control token, as its actions do.
    """
    body = json_body()
    if not isinstance(body, dict) or "recorded" not in body:
        raise CameraError('send {"recorded": [dice values] or null, "game": id}')
    recorded = body["recorded"]
    if recorded is not None and (
        not isinstance(recorded, list)
        or not 1 <= len(recorded) <= 6
        or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in recorded)
    ):
        raise CameraError("recorded must be a list of 1 to 6 dice values from 1 to 6, or null")
    game = body.get("game")
    if game is not None:
        if not isinstance(game, str):
            raise CameraError("game must be a game id (a string) or left out")
        require_control(game_id_field(game))
    corrections = _corrections(body.get("corrections"), game, recorded)
    svc = camera_service()
    try:
        out = svc.record_outcome(pid, recorded, game)
    except CameraError as exc:
        return jsonify(error="not_found", message=str(exc)), 404
    if corrections:
        try:
            out["taught"] = svc.teaching.keep_corrections(pid, corrections)
        except TeachStoreError as exc:  # the outcome is logged; play goes on
            out["taught"], out["teach_error"] = 0, str(exc)
    return jsonify(out)


def _corrections(raw: Any, game: Any, recorded: Any) -> list[tuple[int, int]]:
    """The ``corrections`` of a proposal's outcome: ``[[die index, value 0..6], ...]`` (0: the
    die was removed, not a die), at most 6; only with a game and a recorded throw."""
    if raw is None:
        return []
    words = (
        "corrections must be a list of at most 6 [index, value] pairs: the index of a proposed"
        " die (0 to 5) and the value the player gave it (1 to 6, or 0 for no die)"
    )
    if not isinstance(raw, list) or len(raw) > 6:
        raise CameraError(words)
    out = []
    for pair in raw:
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair)
            or not 0 <= pair[0] <= 5
            or not 0 <= pair[1] <= 6
        ):
            raise CameraError(words)
        out.append((pair[0], pair[1]))
    if out and (game is None or recorded is None):
        raise CameraError("corrections are kept only for a throw recorded in a game")
    return out


def _teach_game(body: Any) -> None:
    """Check that a teach request names a game this device controls (401/403 otherwise)."""
    if not isinstance(body, dict):
        raise CameraError('send a JSON object with "game", the game id whose control you hold')
    game = body.get("game")
    if not isinstance(game, str):
        raise CameraError(
            "game must be the id of a game this device controls: a watching device cannot teach"
            " the camera"
        )
    require_control(game_id_field(game))


@bp.get("/teach")
def teach_status() -> Any:
    """``GET /api/camera/teach``: the taught dice, ``{"enabled", "adapt", "crops", "bytes",
    "faces": {"1": n, ...}, "not_dice", "max_crops", "max_bytes"}``."""
    stats = camera_service().teaching.stats()
    stats.pop("folder", None)
    return jsonify(stats)


@bp.post("/teach")
def teach_face() -> Any:
    """``POST /api/camera/teach`` ``{"face": 1..6, "game": id}``: keep every die the camera
    sees now, in the throwing area, as showing ``face``; needs the game's control token."""
    body = json_body()
    _teach_game(body)
    face = body.get("face")
    if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= 6:
        raise CameraError(f"face must be a face value 1 to 6, got {face!r}")
    svc = camera_service()
    if svc.kind == SourceKind.NONE:
        return jsonify(
            error="no_camera",
            message="there is no camera to teach: tap the dice in on the pad, or start a camera",
        ), 409
    kept, _ = svc.teach_face(face)
    stats = svc.teaching.stats()
    stats.pop("folder", None)
    noun = "die" if kept == 1 else "dice"
    message = f"Kept {kept} {noun} as {face}s."
    message += f" Now show them as {face + 1}s." if face < 6 else " Every face is taught."
    return jsonify(face=face, kept=kept, taught=stats, message=message)


@bp.post("/teach/clear")
def teach_clear() -> Any:
    """``POST /api/camera/teach/clear`` ``{"game": id}``: forget every taught die."""
    _teach_game(json_body())
    svc = camera_service()
    removed = svc.teaching.clear()
    stats = svc.teaching.stats()
    stats.pop("folder", None)
    noun = "die" if removed == 1 else "dice"
    return jsonify(cleared=removed, taught=stats, message=f"Forgot {removed} taught {noun}.")
