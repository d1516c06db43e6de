"""The capture thread: reads a source in the background, the latest frame wins, faults reconnect.

A supervisor thread starts one worker per connection attempt. A worker opens the source and
reads frames until it raises, ends or sends only garbage; the supervisor also abandons a worker
whose source stalls (no frame for ``stall_timeout`` seconds) or freezes (the same picture for
``freeze_timeout`` seconds), and reconnects with a growing back-off. Requests never wait on the
device: they read :meth:`Capture.latest` or wait a bounded time on :meth:`Capture.wait_for`.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scorekeeper.camera.frames import Image, frame_problem
from scorekeeper.camera.sources import FrameSource
from scorekeeper.camera.states import CameraStatus


@dataclass(frozen=True)
class Captured:
    """One frame from the source: its id (counting up from 1), image, time and source facts."""

    frame_id: int
    image: Image
    time: float
    info: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class _Worker:
    gen: int
    started: float
    thread: threading.Thread | None = None
    source: FrameSource | None = None
    done: bool = False


class Capture:
    """Reads ``factory()``'s source in its own threads and keeps the latest good frame."""

    def __init__(
        self,
        factory: Callable[[], FrameSource],
        *,
        label: str = "camera",
        stall_timeout: float = 3.0,
        freeze_timeout: float = 10.0,
        open_timeout: float = 10.0,
        retry_min: float = 0.5,
        retry_max: float = 5.0,
        garbage_limit: int = 15,
    ) -> None:
        """Prepare to read ``factory()``; nothing starts before :meth:`start`."""
        self.factory = factory
        self.label = label
        self.stall_timeout = stall_timeout
        self.freeze_timeout = freeze_timeout
        self.open_timeout = open_timeout
        self.retry_min = retry_min
        self.retry_max = retry_max
        self.garbage_limit = garbage_limit
        self.reconnects = 0
        self.faults = 0
        self._cond = threading.Condition()
        self._latest: Captured | None = None
        self._next_id = 1
        self._status = CameraStatus.NO_CAMERA
        self._message = f"connecting to {label}"
        self._ever_ok = False
        self._worker: _Worker | None = None
        self._gen = 0
        self._stop = threading.Event()
        self._supervisor: threading.Thread | None = None
        self._last_good = 0.0
        self._digest = b""
        self._digest_since = 0.0

    # -- public ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start the supervisor (idempotent)."""
        if self._supervisor is None:
            self._supervisor = threading.Thread(
                target=self._supervise, name="camera-capture", daemon=True
            )
            self._supervisor.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop reading and close the source."""
        self._stop.set()
        with self._cond:
            self._gen += 1
            self._cond.notify_all()
        if self._supervisor is not None:
            self._supervisor.join(timeout)
        worker = self._worker
        if worker is not None:
            self._close_async(worker)
            if worker.thread is not None:
                worker.thread.join(timeout)

    def status(self) -> tuple[CameraStatus, str]:
        """``(status, message)``: ``ok``, ``no_camera`` or ``error`` and words for people."""
        with self._cond:
            return self._status, self._message

    def latest(self) -> Captured | None:
        """The newest good frame (None before the first)."""
        with self._cond:
            return self._latest

    def wait_for(self, after_id: int, timeout: float) -> Captured | None:
        """The newest frame with an id above ``after_id``, waiting at most ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._stop.is_set():
                if self._latest is not None and self._latest.frame_id > after_id:
                    return self._latest
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
        return None

    # -- internals ------------------------------------------------------------------------
    def _fault(self, gen: int, message: str, *, opening: bool = False) -> None:
        """A worker of generation ``gen`` failed: report it unless it was already abandoned."""
        with self._cond:
            if gen != self._gen:
                return
            self.faults += 1
            status = CameraStatus.NO_CAMERA if opening and not self._ever_ok else CameraStatus.ERROR
            self._status, self._message = status, message
            self._cond.notify_all()

    def _publish(self, gen: int, img: Image, info: Mapping[str, Any]) -> None:
        now = time.monotonic()
        digest = hashlib.blake2b(img[::7, ::7].tobytes(), digest_size=16).digest()
        with self._cond:
            if gen != self._gen:
                return
            if digest != self._digest:
                self._digest, self._digest_since = digest, now
            self._latest = Captured(self._next_id, img, time.time(), dict(info))
            self._next_id += 1
            self._last_good = now
            if self._status != CameraStatus.OK or not self._ever_ok:
                self._status, self._message = CameraStatus.OK, f"{self.label} is working"
            self._ever_ok = True
            self._cond.notify_all()

    def _run_worker(self, worker: _Worker) -> None:
        gen = worker.gen
        try:
            src = self.factory()
            worker.source = src
            src.open()
        except Exception as exc:
            self._fault(gen, f"no camera: {exc}", opening=True)
            worker.done = True
            return
        garbage = 0
        next_t = time.monotonic()
        try:
            while not self._stop.is_set() and gen == self._gen:
                if src.interval > 0:
                    now = time.monotonic()
                    if next_t > now:
                        time.sleep(next_t - now)
                    next_t = max(next_t + src.interval, time.monotonic() - src.interval)
                try:
                    img = src.read()
                except Exception as exc:
                    self._fault(gen, f"the {self.label} failed: {exc}")
                    return
                if img is None:
                    self._fault(gen, f"the {self.label} stopped sending pictures")
                    return
                problem = frame_problem(img)
                if problem is not None:
                    garbage += 1
                    if garbage >= self.garbage_limit:
                        self._fault(gen, f"the {self.label} sends unusable pictures: {problem}")
                        return
                    continue
                garbage = 0
                self._publish(gen, img, src.info)
        finally:
            worker.done = True
            self._close_quietly(src)

    @staticmethod
    def _close_quietly(src: FrameSource | None) -> None:
        if src is None:
            return
        with contextlib.suppress(Exception):  # a broken device may fail to close
            src.close()

    def _close_async(self, worker: _Worker) -> None:
        """Close an abandoned worker's source without waiting on it (close may block too)."""
        threading.Thread(
            target=self._close_quietly, args=(worker.source,), name="camera-close", daemon=True
        ).start()

    def _spawn(self) -> None:
        with self._cond:
            self._gen += 1
            gen = self._gen
            self._last_good = time.monotonic()
            self._digest, self._digest_since = b"", time.monotonic()
        worker = _Worker(gen, time.monotonic())
        thread = threading.Thread(
            target=self._run_worker, args=(worker,), name=f"camera-read-{gen}", daemon=True
        )
        worker.thread = thread
        self._worker = worker
        thread.start()

    def _abandon(self, worker: _Worker, message: str) -> None:
        with self._cond:
            if worker.gen == self._gen:
                self._gen += 1  # frames the old worker may still deliver are ignored
                self.faults += 1
                self._status, self._message = CameraStatus.ERROR, message
                self._cond.notify_all()
        self._close_async(worker)

    def _supervise(self) -> None:
        delay = self.retry_min
        retry_at = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            worker = self._worker
            if worker is None:
                self._spawn()
            elif worker.done:
                if retry_at == 0.0:
                    retry_at = now + delay
                    delay = min(self.retry_max, delay * 2)
                elif now >= retry_at:
                    retry_at = 0.0
                    self.reconnects += 1
                    with self._cond:
                        if self._status != CameraStatus.OK:
                            self._message += f"; reconnecting (attempt {self.reconnects})"
                    self._spawn()
            else:
                with self._cond:
                    last_good, since, got_any = self._last_good, self._digest_since, self._digest
                    healthy = self._status == CameraStatus.OK
                if healthy and now - last_good < 1.0:
                    delay = self.retry_min
                limit = self.stall_timeout
                if not got_any:
                    limit = max(self.stall_timeout, self.open_timeout)
                if now - last_good > limit:
                    self._abandon(worker, f"no picture from the {self.label} for {limit:.0f} s")
                    worker.done = True
                elif got_any and now - since > self.freeze_timeout:
                    self._abandon(
                        worker,
                        f"the {self.label} picture has not changed for "
                        f"{self.freeze_timeout:.0f} s (frozen stream)",
                    )
                    worker.done = True
            self._stop.wait(0.05)
