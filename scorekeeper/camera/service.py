"""The camera service: source + capture thread + dice reader + settling, for the web app.

One :class:`CameraService` per app. For a webcam, stream or the demo it runs a capture thread
and a reading thread (reading only while the scene is still); for the tablet, frames arrive by
upload and are read in the request (:meth:`CameraService.submit`). Requests only ever look at
the latest :class:`Reading`. Proposals shown to a player and their outcome go to the
:class:`~scorekeeper.camera.log.CameraLog`.
"""

from __future__ import annotations

import secrets
import threading
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorekeeper.camera.capture import ERROR, NO_CAMERA, OK, Capture
from scorekeeper.camera.frames import Image, encode_jpeg, to_bgr
from scorekeeper.camera.log import CameraLog
from scorekeeper.camera.overlay import draw_overlay, placeholder
from scorekeeper.camera.reading import (
    Proposal,
    ReaderLike,
    Reading,
    default_reader_factory,
    to_die,
)
from scorekeeper.camera.settle import (
    Area,
    Die,
    MotionDetector,
    SettleConfig,
    Settler,
    split_by_area,
)
from scorekeeper.camera.sources import (
    DEFAULT_DEMO_DIR,
    DemoSource,
    FrameSource,
    OpenCVSource,
    SourceSpec,
    parse_source,
)
from scorekeeper.errors import CameraError
from scorekeeper.vision.exposure import (
    ADVISE_AT,
    KEEP_ADVISING_AT,
    blown_out_share,
    exposure_advice,
)

__all__ = ["CameraService", "Proposal", "ReaderLike", "Reading", "default_reader_factory"]


ASKED_KEYS = 256
"""Throw keys the service remembers (:meth:`CameraService.ask_throw`)."""


class CameraService:
    """Source, capture, reading and settling behind the camera API."""

    def __init__(
        self,
        source: str | SourceSpec | None = "auto",
        *,
        reader_factory: Callable[[], ReaderLike] | None = None,
        log: CameraLog | None = None,
        settle: SettleConfig | None = None,
        source_factory: Callable[[SourceSpec], FrameSource] | None = None,
        capture_options: Mapping[str, Any] | None = None,
        demo_options: Mapping[str, Any] | None = None,
        tablet_timeout: float = 5.0,
        max_upload_fps: float = 12.0,
    ) -> None:
        """Set up (nothing runs before :meth:`start`)."""
        self.spec = source if isinstance(source, SourceSpec) else parse_source(source)
        self.reader_factory = reader_factory
        self.log = log
        self.settle_config = settle or SettleConfig()
        self.source_factory = source_factory
        self.capture_options = dict(capture_options or {})
        self.demo_options = dict(demo_options or {})
        self.tablet_timeout = tablet_timeout
        self.max_upload_fps = max_upload_fps
        self._resolved: SourceSpec | None = None if self.spec.kind == "auto" else self.spec
        self._note = ""
        self._area = Area()
        if log is not None and log.get_setting("area"):
            try:
                self._area = Area.parse(log.get_setting("area"))
            except CameraError:
                self._area = Area()
        self._motion = MotionDetector()
        self._settler = Settler(self.settle_config)
        self._proposal: Proposal | None = None
        self._light: str | None = None
        self._asked: tuple[int, str] | None = None
        self._asked_keys: OrderedDict[str, None] = OrderedDict()
        self._ask_lock = threading.Lock()
        self._resting: tuple[list[Die], list[Die]] | None = None
        self._proc_lock = threading.Lock()
        self._cond = threading.Condition()
        self._reading: Reading | None = None
        self._jpeg: tuple[int, bytes] | None = None
        self._jpeg_lock = threading.Lock()
        self._reader: ReaderLike | None = None
        self._reader_error: str | None = None
        self._reader_retry = 0.0
        self._capture: Capture | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._times: deque[float] = deque(maxlen=60)
        self._recent: OrderedDict[str, Proposal] = OrderedDict()
        self._logged: set[str] = set()
        self._upload_tokens = max_upload_fps
        self._upload_at = time.monotonic()
        self._upload_lock = threading.Lock()
        self.started = False

    # -- life cycle -----------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """``none``, ``tablet``, ``demo``, ``webcam``, ``url`` (or ``auto`` before resolving)."""
        return (self._resolved or self.spec).kind

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self.started and not self._stop.is_set()

    @property
    def label(self) -> str:
        """The source as shown to people."""
        return (self._resolved or self.spec).label

    def start(self) -> None:
        """Start the capture and reading threads (none for ``none`` and ``tablet``)."""
        if self.started:
            return
        self.started = True
        if self.spec.kind in ("none", "tablet"):
            return
        self._capture = Capture(
            self._make_source, label=self._capture_label(), **self.capture_options
        )
        self._capture.start()
        self._thread = threading.Thread(target=self._loop, name="camera-read", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the threads (the log stays open)."""
        self._stop.set()
        if self._capture is not None:
            self._capture.stop()
        if self._thread is not None:
            self._thread.join(2.0)
        with self._cond:
            self._cond.notify_all()

    def _capture_label(self) -> str:
        return "camera" if self.spec.kind == "auto" else self.spec.label

    def _make_source(self) -> FrameSource:
        spec = self._resolved
        if spec is None:  # auto: a webcam if one opens, else the demo
            cam = OpenCVSource(SourceSpec("webcam", "0"))
            try:
                cam.open()
            except OSError:
                self._resolved = parse_source("demo")
                self._note = "no webcam found: the demo throws the dice the game has left"
            else:
                self._resolved = cam.spec
                return cam
            spec = self._resolved
        if self.source_factory is not None:
            return self.source_factory(spec)
        if spec.kind == "demo":
            if spec.target:  # demo:FOLDER plays the folder's pictures as they are
                return DemoSource(spec.target, **self.demo_options)
            # new throws each time the server starts, unless the options fix the seed
            options = {"seed": secrets.randbits(31), **self.demo_options}
            return DemoSource(DEFAULT_DEMO_DIR, throws=self.asked_throw, **options)
        return OpenCVSource(spec)

    # -- reading --------------------------------------------------------------------------
    def _get_reader(self) -> ReaderLike | None:
        if self._reader is not None or self.reader_factory is None:
            return self._reader
        if time.monotonic() < self._reader_retry:
            return None
        try:
            self._reader = self.reader_factory()
            self._reader_error = None
        except Exception as exc:
            self._reader_error = f"the dice reader is unavailable: {exc}"
            self._reader_retry = time.monotonic() + 30
        return self._reader

    def _loop(self) -> None:
        assert self._capture is not None
        last = 0
        while not self._stop.is_set():
            cap = self._capture.wait_for(last, 0.5)
            if cap is None:
                continue
            last = cap.frame_id
            try:
                self.process(cap.image, cap.frame_id, cap.info, cap.time)
            except Exception as exc:  # a reader failure must not kill the thread
                self._reader_error = f"reading the frame failed: {exc}"

    def process(
        self,
        image: Image,
        frame_id: int,
        info: Mapping[str, Any] | None = None,
        captured: float | None = None,
    ) -> Reading:
        """Settle and read one frame; publishes and returns the :class:`Reading`."""
        t0 = time.perf_counter()
        captured = time.time() if captured is None else captured
        with self._proc_lock:
            img = to_bgr(image)
            h, w = img.shape[:2]
            area = self._area
            motion = self._motion.update(img, area)
            blown = blown_out_share(img, area.pixels(w, h))
            self._light = exposure_advice(blown, KEEP_ADVISING_AT if self._light else ADVISE_AT)
            stable = self._settler.motion(motion > self.settle_config.moving_fraction)
            if not stable:
                self._proposal = None
                self._resting = None
            # once a still throw is proposed, nothing changes until the next motion: its
            # dice stand for every frame till then, and the reader rests (a Pi's core with it)
            resting = self._resting if stable and self._settler.locked else None
            dice: list[Die] = []
            reader = self._get_reader() if stable and resting is None else None
            if reader is not None:
                try:
                    dice = [to_die(d) for d in reader.infer(img)]
                except Exception as exc:
                    self._reader_error = f"the dice reader failed on a frame: {exc}"
                    dice = []
            if resting is not None:
                inside, outside = resting
            else:
                inside, outside = split_by_area(dice, area, w, h)
            vote = self._settler.vote(inside) if reader is not None else None
            if vote is not None:
                self._resting = (list(vote.dice), outside)  # they stand until the next motion
                truth = (info or {}).get("truth")
                self._proposal = Proposal(
                    id=uuid.uuid4().hex[:12],
                    frame_id=frame_id,
                    dice=vote.values,
                    boxes=vote.dice,
                    confidence=vote.confidence,
                    votes=vote.votes,
                    time=time.time(),
                    truth=tuple(sorted(truth)) if truth is not None else None,
                )
                self._remember(self._proposal)
            reading = Reading(
                frame_id=frame_id,
                time=time.time(),
                image=img,
                stable=stable,
                motion=motion,
                dice=tuple(inside),
                ignored=tuple(outside),
                proposal=self._proposal,
                process_ms=(time.perf_counter() - t0) * 1000,
                captured=captured,
                info=dict(info or {}),
                blown_out=blown,
                light=self._light,
            )
        with self._cond:
            self._reading = reading
            self._times.append(time.monotonic())
            self._cond.notify_all()
        return reading

    def _remember(self, p: Proposal) -> None:
        self._recent[p.id] = p
        while len(self._recent) > 100:
            self._recent.popitem(last=False)

    # -- tablet uploads -------------------------------------------------------------------
    def allow_upload(self) -> bool:
        """Take one token of the upload rate limit (False: too many frames, try later)."""
        with self._upload_lock:
            now = time.monotonic()
            self._upload_tokens = min(
                self.max_upload_fps,
                self._upload_tokens + (now - self._upload_at) * self.max_upload_fps,
            )
            self._upload_at = now
            if self._upload_tokens < 1:
                return False
            self._upload_tokens -= 1
            return True

    def submit(self, image: Image) -> Reading:
        """Read one uploaded frame from the tablet.

        :raises CameraError: the camera source is not ``tablet``.
        """
        if self.spec.kind != "tablet":
            raise CameraError(
                f"the camera source is {self.label}; frames are accepted only when the server "
                "runs with --camera tablet"
            )
        with self._cond:
            fid = (self._reading.frame_id if self._reading else 0) + 1
        return self.process(image, fid)

    # -- answers for the API --------------------------------------------------------------
    def latest(self) -> Reading | None:
        """The newest reading (None before the first frame)."""
        with self._cond:
            return self._reading

    def wait_reading(self, after_id: int, timeout: float) -> Reading | None:
        """A reading newer than ``after_id``, waiting at most ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._stop.is_set():
                r = self._reading
                if r is not None and r.frame_id != after_id:
                    return r
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
        return None

    def fps(self) -> float:
        """Frames read per second over the last couple of seconds."""
        with self._cond:
            times = [t for t in self._times if t > time.monotonic() - 3]
        if len(times) < 2:
            return 0.0
        return (len(times) - 1) / max(1e-6, times[-1] - times[0])

    def status(self) -> dict[str, Any]:
        """``{"source", "status", "message", ...}`` for ``GET /api/camera``."""
        kind = self.kind
        reading = self.latest()
        if kind == "none":
            state, message = NO_CAMERA, "no camera: enter the dice by tapping"
        elif kind == "tablet":
            age = time.time() - reading.time if reading else None
            if age is None:
                state = NO_CAMERA
                message = "waiting for the tablet's camera (open the play page and allow it)"
            elif age > self.tablet_timeout:
                state, message = NO_CAMERA, f"no picture from the tablet for {age:.0f} s"
            else:
                state, message = OK, "the tablet's camera is working"
        elif self._capture is None:
            state, message = NO_CAMERA, "the camera has not started"
        else:
            state, message = self._capture.status()
            if state == OK and self._note:
                message = f"{message} ({self._note})"
        if state == OK and self._reader_error:
            state, message = ERROR, self._reader_error
        return {
            "source": self.label if kind != "auto" else "auto",
            "kind": kind,
            "status": state,
            "message": message,
            "frame_id": reading.frame_id if reading else 0,
            "fps": round(self.fps(), 1),
            "area": self._area.to_dict(),
            "reconnects": self._capture.reconnects if self._capture else 0,
            "accepts_uploads": kind == "tablet",
        }

    def picture_ok(self) -> bool:
        """Whether the latest picture is live (the reader may still be failing)."""
        if self.kind == "tablet":
            return self.latest() is not None
        return self._capture is not None and self._capture.status()[0] == OK

    def jpeg(self, reading: Reading | None) -> bytes:
        """The overlay picture of ``reading`` as JPEG (cached per frame), or a placeholder."""
        if reading is None:
            st = self.status()
            return encode_jpeg(placeholder(f"{st['source']}: {st['message']}"), 70)
        with self._jpeg_lock:
            if self._jpeg is not None and self._jpeg[0] == reading.frame_id:
                return self._jpeg[1]
        img = draw_overlay(
            reading.image,
            reading.dice,
            reading.ignored,
            area=self._area,
            stable=reading.stable,
            proposal=reading.proposal.dice if reading.proposal else None,
            banner=self._reader_error,
        )
        data = encode_jpeg(img, 75)
        with self._jpeg_lock:
            self._jpeg = (reading.frame_id, data)
        return data

    # -- throwing area and log ------------------------------------------------------------
    @property
    def area(self) -> Area:
        """The throwing area (the whole frame by default)."""
        return self._area

    def set_area(self, area: Area | None) -> Area:
        """Set (None: clear) the throwing area; settling starts afresh. Stored in the log."""
        with self._proc_lock:
            self._area = area or Area()
            self._motion.reset()
            self._settler = Settler(self.settle_config)
            self._proposal = None
            self._resting = None
        if self.log is not None:
            self.log.set_setting("area", None if self._area.is_whole() else self._area.to_dict())
        return self._area

    def ask_throw(self, dice: int, key: str) -> None:
        """Ask the built-in demo for a throw of ``dice`` dice; a key not seen before throws them
        (the play page sends a new one whenever its game waits for a throw). Keys seen before
        change nothing, so two play pages open at once (two games, or a tab left open) do not
        make the demo throw again at every poll. Real cameras ignore it."""
        with self._ask_lock:
            if key in self._asked_keys:
                self._asked_keys.move_to_end(key)
                return
            self._asked_keys[key] = None
            while len(self._asked_keys) > ASKED_KEYS:
                self._asked_keys.popitem(last=False)
            self._asked = (dice, key)

    def asked_throw(self) -> tuple[int, str] | None:
        """The last throw asked for (:meth:`ask_throw`), or None."""
        return self._asked

    def note_shown(self, proposal: Proposal, dice_left: int | None) -> None:
        """Log a proposal the first time a player is shown it."""
        if self.log is None or proposal.id in self._logged:
            return
        self._logged.add(proposal.id)
        self.log.add_proposal(
            proposal.id,
            source=self.kind,
            frame_id=proposal.frame_id,
            dice=proposal.dice,
            confidence=proposal.confidence,
            dice_left=dice_left,
            truth=proposal.truth,
        )

    def record_outcome(
        self, pid: str, recorded: Sequence[int] | None, game: str | None = None
    ) -> dict[str, Any]:
        """Log what was recorded for proposal ``pid`` (None: dismissed).

        :raises CameraError: no log, or a proposal this camera never made.
        """
        if self.log is None:
            raise CameraError("the camera log is not enabled")
        p = self._recent.get(pid)
        if p is not None:
            self.note_shown(p, None)
        return self.log.set_outcome(pid, recorded, game)
