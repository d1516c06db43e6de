"""The camera service: source + capture thread + dice reader + settling, for the web app.

One :class:`CameraService` per app. For a webcam, stream or the demo it runs a capture thread
and a reading thread (reading only while the scene is still); for the tablet, frames arrive by
upload and are read in the request (:meth:`CameraService.submit`). Requests only ever look at
the latest :class:`Reading`. Proposals shown to a player and their outcome go to the
:class:`~scorekeeper.camera.log.CameraLog`. Its parts: :class:`ThrowWatcher` (settling),
:class:`ReaderSlot`, :class:`LatestReading`, :class:`OverlayPictures`, :class:`ProposalBook`,
:class:`ThrowAsks` and :class:`UploadLimit`.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorekeeper.camera.capture import Capture
from scorekeeper.camera.frames import Image
from scorekeeper.camera.latest import LatestReading
from scorekeeper.camera.log import CameraLog
from scorekeeper.camera.picture import OverlayPictures, placeholder_jpeg
from scorekeeper.camera.proposals import ProposalBook
from scorekeeper.camera.reader_slot import ReaderSlot
from scorekeeper.camera.reading import Proposal, ReaderLike, Reading, default_reader_factory
from scorekeeper.camera.settle import Area, SettleConfig
from scorekeeper.camera.sources import (
    DEFAULT_DEMO_DIR,
    DemoSource,
    FrameSource,
    OpenCVSource,
    SourceSpec,
    parse_source,
)
from scorekeeper.camera.states import CameraStatus, SourceKind
from scorekeeper.camera.teaching import Teaching
from scorekeeper.camera.throw_asks import ThrowAsks
from scorekeeper.camera.upload_limit import UploadLimit
from scorekeeper.camera.watcher import ThrowWatcher
from scorekeeper.errors import CameraError

__all__ = ["CameraService", "Proposal", "ReaderLike", "Reading", "default_reader_factory"]

TABLET_TIMEOUT_S = 5.0
"""Seconds without a frame from the tablet before its camera counts as gone."""

UPLOAD_FPS = 12.0
"""Frames a second the tablet may upload, by default."""

FRAME_WAIT_S = 0.5
"""How long the reading thread waits for a frame before it looks whether to stop."""

NO_CAMERA_FOUND = "No camera found"
"""What the status says where ``auto`` found no webcam."""

PROBE_WAIT_S = 1.0
"""How long a status request waits for ``auto`` to find out whether a webcam opens."""

STOP_JOIN_S = 2.0
"""How long :meth:`CameraService.stop` waits for the reading thread."""


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
        tablet_timeout: float = TABLET_TIMEOUT_S,
        max_upload_fps: float = UPLOAD_FPS,
        teaching: Teaching | None = None,
    ) -> None:
        """Set up (nothing runs before :meth:`start`)."""
        self.spec = source if isinstance(source, SourceSpec) else parse_source(source)
        self.log = log
        self.source_factory = source_factory
        self.capture_options = dict(capture_options or {})
        self.demo_options = dict(demo_options or {})
        self.tablet_timeout = tablet_timeout
        self.started = False
        self._resolved: SourceSpec | None = None if self.spec.kind == SourceKind.AUTO else self.spec
        self._note = ""
        self.teaching = teaching or Teaching(None)
        if reader_factory is not None and self.teaching.adapt:
            base, teach = reader_factory, self.teaching
            reader_factory = lambda: teach.learn(base())  # noqa: E731
        self._reader = ReaderSlot(reader_factory)
        self._watcher = ThrowWatcher(settle or SettleConfig(), _stored_area(log))
        self._stop = threading.Event()
        self._latest = LatestReading(self._stop)
        self._pictures = OverlayPictures()
        self._proposals = ProposalBook(log)
        self._asks = ThrowAsks()
        self._uploads = UploadLimit(max_upload_fps)
        self._capture: Capture | None = None
        self._thread: threading.Thread | None = None
        self._threads_lock = threading.Lock()
        self._first_cam: FrameSource | None = None
        self._probed = threading.Event()

    # -- life cycle -----------------------------------------------------------------------
    @property
    def kind(self) -> SourceKind:
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

    @property
    def settle_config(self) -> SettleConfig:
        """How frames settle into a proposal."""
        return self._watcher.config

    @property
    def reader_factory(self) -> Callable[[], ReaderLike] | None:
        """What builds the dice reader (None: no dice are read)."""
        return self._reader.factory

    @property
    def max_upload_fps(self) -> float:
        """Frames a second the tablet may upload."""
        return self._uploads.rate

    def start(self) -> None:
        """Start the capture and reading threads (none for ``none`` and ``tablet``; ``auto``
        first looks for a webcam in a thread of its own and, finding none, runs no camera)."""
        if self.started:
            return
        self.started = True
        if self.spec.kind in (SourceKind.NONE, SourceKind.TABLET):
            return
        if self.spec.kind == SourceKind.AUTO:
            threading.Thread(target=self._probe, name="camera-probe", daemon=True).start()
            return
        self._start_threads()

    def _start_threads(self) -> None:
        """Start capturing and reading the resolved source (once)."""
        with self._threads_lock:
            if self._capture is not None or self._stop.is_set():
                return
            self._capture = Capture(self._make_source, label=self.label, **self.capture_options)
            self._capture.start()
            self._thread = threading.Thread(target=self._loop, name="camera-read", daemon=True)
            self._thread.start()

    def _probe(self) -> None:
        """``auto``: a webcam if one opens, else no camera (the demo only when asked)."""
        spec = SourceSpec(SourceKind.WEBCAM, "0")
        cam = self.source_factory(spec) if self.source_factory else OpenCVSource(spec)
        try:
            cam.open()
        except OSError:
            self._resolved = SourceSpec(SourceKind.NONE)
            self._probed.set()
            return
        self._first_cam = cam
        self._resolved = spec
        self._probed.set()
        self._start_threads()

    @property
    def demo_available(self) -> bool:
        """True when ``auto`` found no webcam: the demo camera starts if asked
        (:meth:`start_demo`)."""
        return self.spec.kind == SourceKind.AUTO and self.kind == SourceKind.NONE

    def start_demo(self) -> None:
        """Start the built-in demo camera, asked for where ``auto`` found no webcam.

        :raises CameraError: the camera source is a real one, or none by choice.
        """
        if self.kind == SourceKind.DEMO:
            return
        if not self.demo_available:
            raise CameraError(
                f"the camera source is {self.label}; the demo camera starts only where the "
                "server looked for a camera (--camera auto) and found none"
            )
        self._resolved = SourceSpec(SourceKind.DEMO)
        self._note = "the demo camera, started on request: its dice are not a real throw"
        self._start_threads()

    def stop(self) -> None:
        """Stop the threads (the log stays open)."""
        self._stop.set()
        if self._capture is not None:
            self._capture.stop()
        if self._thread is not None:
            self._thread.join(STOP_JOIN_S)
        self._latest.wake()

    def _make_source(self) -> FrameSource:
        spec = self._resolved
        assert spec is not None, "a source is made only once resolved"
        cam, self._first_cam = self._first_cam, None
        if cam is not None:  # the webcam auto opened: its first connection
            return cam
        if self.source_factory is not None:
            return self.source_factory(spec)
        if spec.kind == SourceKind.DEMO:
            if spec.target:  # demo:FOLDER plays the folder's pictures as they are
                return DemoSource(spec.target, **self.demo_options)
            # new throws each time the server starts, unless the options fix the seed
            options = {"seed": secrets.randbits(31), **self.demo_options}
            return DemoSource(DEFAULT_DEMO_DIR, throws=self.asked_throw, **options)
        return OpenCVSource(spec)

    # -- reading --------------------------------------------------------------------------
    def _loop(self) -> None:
        assert self._capture is not None
        last = 0
        while not self._stop.is_set():
            cap = self._capture.wait_for(last, FRAME_WAIT_S)
            if cap is None:
                continue
            last = cap.frame_id
            try:
                self.process(cap.image, cap.frame_id, cap.info, cap.time)
            except Exception as exc:  # a reader failure must not kill the thread
                self._reader.error = f"reading the frame failed: {exc}"

    def process(
        self,
        image: Image,
        frame_id: int,
        info: Mapping[str, Any] | None = None,
        captured: float | None = None,
    ) -> Reading:
        """Settle and read one frame; publishes and returns the :class:`Reading`."""
        captured = time.time() if captured is None else captured

        def remember(p: Proposal) -> None:
            self._proposals.remember(p)
            self.teaching.note_proposal(p, image)

        asked = self._asks.last()
        reading = self._watcher.process(
            image, frame_id, info, captured, self._reader, remember, asked[0] if asked else None
        )
        self._latest.publish(reading)
        return reading

    # -- tablet uploads -------------------------------------------------------------------
    def allow_upload(self) -> bool:
        """Take one token of the upload rate limit (False: too many frames, try later)."""
        return self._uploads.take()

    def submit(self, image: Image) -> Reading:
        """Read one uploaded frame from the tablet.

        :raises CameraError: the camera source is not ``tablet``.
        """
        if self.spec.kind != SourceKind.TABLET:
            raise CameraError(
                f"the camera source is {self.label}; frames are accepted only when the server "
                "runs with --camera tablet"
            )
        return self.process(image, self._latest.next_frame_id())

    # -- answers for the API --------------------------------------------------------------
    def latest(self) -> Reading | None:
        """The newest reading (None before the first frame)."""
        return self._latest.get()

    def wait_reading(self, after_id: int, timeout: float) -> Reading | None:
        """A reading newer than ``after_id``, waiting at most ``timeout`` seconds."""
        return self._latest.wait(after_id, timeout)

    def fps(self) -> float:
        """Frames read per second over the last few seconds."""
        return self._latest.fps()

    def status(self) -> dict[str, Any]:
        """``{"source", "status", "message", ...}`` for ``GET /api/camera`` (while ``auto``
        looks for a webcam, waiting up to :data:`PROBE_WAIT_S` for the answer)."""
        if self.kind == SourceKind.AUTO and self.started:
            self._probed.wait(PROBE_WAIT_S)
        kind = self.kind
        reading = self.latest()
        state, message = self._state(kind, reading)
        if state == CameraStatus.OK and self._reader.error:
            state, message = CameraStatus.ERROR, self._reader.error
        return {
            "source": self.label if kind != SourceKind.AUTO else "auto",
            "kind": kind,
            "status": state,
            "message": message,
            "frame_id": reading.frame_id if reading else 0,
            "fps": round(self.fps(), 1),
            "reads_per_s": None if (rps := self._reader.reads_per_s()) is None else round(rps, 1),
            "area": self.area.to_dict(),
            "reconnects": self._capture.reconnects if self._capture else 0,
            "accepts_uploads": kind == SourceKind.TABLET,
            "demo_available": self.demo_available,
        }

    def _state(self, kind: SourceKind, reading: Reading | None) -> tuple[CameraStatus, str]:
        """The picture's state and words for people, before any reader error."""
        if kind == SourceKind.NONE:
            if self.demo_available:
                return CameraStatus.NO_CAMERA, f"{NO_CAMERA_FOUND}: enter the dice by tapping"
            return CameraStatus.NO_CAMERA, "no camera: enter the dice by tapping"
        if kind == SourceKind.AUTO:
            return CameraStatus.NO_CAMERA, "looking for a camera"
        if kind == SourceKind.TABLET:
            age = time.time() - reading.time if reading else None
            if age is None:
                return (
                    CameraStatus.NO_CAMERA,
                    "waiting for the tablet's camera (open the play page and allow it)",
                )
            if age > self.tablet_timeout:
                return CameraStatus.NO_CAMERA, f"no picture from the tablet for {age:.0f} s"
            return CameraStatus.OK, "the tablet's camera is working"
        if self._capture is None:
            return CameraStatus.NO_CAMERA, "the camera has not started"
        state, message = self._capture.status()
        if state == CameraStatus.OK and self._note:
            message = f"{message} ({self._note})"
        return state, message

    def picture_ok(self) -> bool:
        """Whether the latest picture is live (the reader may still be failing)."""
        if self.kind == SourceKind.TABLET:
            return self.latest() is not None
        return self._capture is not None and self._capture.status()[0] == CameraStatus.OK

    def jpeg(self, reading: Reading | None) -> bytes:
        """The overlay picture of ``reading`` as JPEG (cached per frame), or a placeholder."""
        if reading is None:
            st = self.status()
            return placeholder_jpeg(f"{st['source']}: {st['message']}")
        return self._pictures.jpeg(reading, self.area, self._reader.error)

    # -- throwing area and log ------------------------------------------------------------
    @property
    def area(self) -> Area:
        """The throwing area (the whole frame by default)."""
        return self._watcher.area

    def set_area(self, area: Area | None) -> Area:
        """Set (None: clear) the throwing area; settling starts afresh. Stored in the log."""
        self._watcher.set_area(area or Area())
        if self.log is not None:
            self.log.set_setting("area", None if self.area.is_whole() else self.area.to_dict())
        return self.area

    def ask_throw(self, dice: int, key: str) -> int:
        """Note the throw of ``dice`` dice that a play page waits for, named by ``key`` (the
        page sends a new one whenever its game waits for a throw), and return the frame it began
        after: the newest frame when the key was first seen. A new key asks the built-in demo
        to throw the dice; keys seen before change nothing, so two play pages open at once (two
        games, or a tab left open) do not make the demo throw again at every poll."""
        return self._asks.ask(dice, key, self._newest_frame_id())

    def _newest_frame_id(self) -> int:
        """The id of the newest frame taken (captured, if not yet read), 0 before any."""
        cap = self._capture.latest() if self._capture is not None else None
        reading = self.latest()
        return max(cap.frame_id if cap else 0, reading.frame_id if reading else 0)

    @staticmethod
    def offered(proposal: Proposal | None, began_after: int | None) -> Proposal | None:
        """``proposal`` if it may be offered for a throw that began after frame
        ``began_after`` (None: no throw named): only dice that came to rest after it, never
        dice that were lying there before the throw began, even once a hand has taken the kept
        ones away from beside them."""
        if proposal is None or began_after is None or proposal.lying_since > began_after:
            return proposal
        return None

    def asked_throw(self) -> tuple[int, str] | None:
        """The last throw asked for (:meth:`ask_throw`), or None."""
        return self._asks.last()

    def note_shown(self, proposal: Proposal, dice_left: int | None) -> None:
        """Log a proposal the first time a player is shown it."""
        self._proposals.note_shown(proposal, dice_left, self.kind)

    def record_outcome(
        self, pid: str, recorded: Sequence[int] | None, game: str | None = None
    ) -> dict[str, Any]:
        """Log what was recorded for proposal ``pid`` (None: dismissed).

        :raises CameraError: no log, or a proposal this camera never made.
        """
        return self._proposals.record_outcome(pid, recorded, game, self.kind)

    def teach_face(self, face: int) -> tuple[int, Reading]:
        """Keep every die of the newest reading, in the throwing area, as showing ``face`` (the
        "teach the camera your dice" flow); returns how many and the reading.

        :raises CameraError: no camera, or no dice in the picture.
        :raises TeachStoreError: the disk is full or cannot be written.
        """
        if not 1 <= face <= 6:
            raise CameraError(f"face must be 1 to 6, got {face}")
        if self.kind == SourceKind.NONE:
            raise CameraError("there is no camera to teach: start one (or the demo camera)")
        reading = self.latest()
        if reading is None or not reading.dice:
            raise CameraError(
                f"the camera sees no dice: lay the dice in the throwing area, each showing"
                f" {face}, and try again"
            )
        return self.teaching.keep_face(reading.image, reading.dice, face), reading


def _stored_area(log: CameraLog | None) -> Area:
    """The throwing area kept in the log, else the whole frame."""
    if log is not None and log.get_setting("area"):
        try:
            return Area.parse(log.get_setting("area"))
        except CameraError:
            return Area()
    return Area()
