"""Recorded throws as a camera: make a recording with the demo tabletop, replay one through the
camera's settling and score each settled proposal against the truth.

A truth file is ``{"fps": F, "throws": [{"rest_s": seconds, "dice": [values]}, ...]}``: when
each throw's dice came to rest (seconds from the video's start) and what they show. The replay
runs the camera as it would run live on this machine: the clock is the video's own time plus
what reading actually costs, and each step takes the newest frame at that time (frames that
come while the reader works are skipped, as the capture thread's latest frame wins).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorekeeper.camera.reading import ReaderLike
from scorekeeper.camera.service import CameraService
from scorekeeper.camera.settle import SettleConfig
from scorekeeper.errors import CameraError

RECORDING_FOURCC = "MJPG"
"""The codec of recordings made here (Motion JPEG in an ``.avi``: every OpenCV build has it)."""


@dataclass(frozen=True)
class TrueThrow:
    """One throw of a recording: when its dice came to rest, and their values (sorted)."""

    rest_s: float
    dice: tuple[int, ...]


@dataclass(frozen=True)
class Proposed:
    """A proposal of the replay: when it was made (seconds of video time) and its dice."""

    at_s: float
    dice: tuple[int, ...]


def load_truth(path: Path) -> list[TrueThrow]:
    """The throws of a truth file, by rest time.

    :raises CameraError: a file that is not such JSON, with what is wrong.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CameraError(f"cannot read the truth file {path}: {exc}") from None
    throws = data.get("throws") if isinstance(data, Mapping) else None
    if not isinstance(throws, list):
        raise CameraError(
            f'{path}: the truth must be {{"throws": [{{"rest_s": seconds, "dice": [values]}}]}}'
        )
    out = []
    for i, t in enumerate(throws):
        rest = t.get("rest_s") if isinstance(t, Mapping) else None
        dice = t.get("dice") if isinstance(t, Mapping) else None
        if (
            isinstance(rest, bool)
            or not isinstance(rest, int | float)
            or rest < 0
            or not isinstance(dice, list)
            or not 1 <= len(dice) <= 6
            or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in dice)
        ):
            raise CameraError(
                f"{path}: throw {i + 1} needs rest_s (seconds, 0 or more) and dice (1 to 6"
                " values from 1 to 6)"
            )
        out.append(TrueThrow(float(rest), tuple(sorted(dice))))
    return sorted(out, key=lambda t: t.rest_s)


def replay(
    video: Path,
    reader: ReaderLike,
    settle: SettleConfig | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[list[Proposed], float]:
    """Play ``video`` through the camera's settling with ``reader``; the proposals and the
    video's frame rate.

    :raises CameraError: the video cannot be opened or has no frame rate.
    """
    cap = cv2.VideoCapture(str(video))
    if not cap.isOpened():
        cap.release()
        raise CameraError(f"cannot open the video {video}")
    fps = float(cap.get(cv2.CAP_PROP_FPS) or 0)
    if not 0 < fps <= 240:
        cap.release()
        raise CameraError(f"the video {video} names no frame rate (got {fps:g})")
    svc = CameraService("none", reader_factory=lambda: reader, settle=settle)
    out: list[Proposed] = []
    seen: set[str] = set()
    now = 0.0  # seconds of video time
    index = -1
    frame: Any = None
    try:
        while True:
            want = int(now * fps)
            while index < want:
                ok, img = cap.read()
                if not ok:
                    return out, fps
                frame, index = np.asarray(img, np.uint8), index + 1
            t0 = clock()
            r = svc.process(frame, index + 1, captured=index / fps)
            now = max(now + clock() - t0, (index + 1) / fps)
            p = r.proposal
            if p is not None and p.id not in seen:
                seen.add(p.id)
                out.append(Proposed(round(now, 3), p.dice))
    finally:
        cap.release()


def score(proposals: Sequence[Proposed], truth: Sequence[TrueThrow]) -> dict[str, Any]:
    """Each throw's first proposal after its rest (and before the next throw's rest) is right
    or wrong; a throw without one is missed; any other proposal is extra. Delays are from rest
    to that first proposal."""
    firsts: dict[int, Proposed] = {}
    extra = 0
    for p in proposals:
        i = max((k for k, t in enumerate(truth) if t.rest_s <= p.at_s), default=None)
        if i is None or i in firsts:
            extra += 1
        else:
            firsts[i] = p
    right = sum(1 for i, p in firsts.items() if p.dice == truth[i].dice)
    delays = [p.at_s - truth[i].rest_s for i, p in sorted(firsts.items())]
    return {
        "throws": len(truth),
        "proposals": len(proposals),
        "right": right,
        "wrong": len(firsts) - right,
        "missed": len(truth) - len(firsts),
        "extra": extra,
        "delay_s_median": round(statistics.median(delays), 3) if delays else None,
        "delay_s_max": round(max(delays), 3) if delays else None,
        "per_throw": [
            {
                "rest_s": t.rest_s,
                "dice": list(t.dice),
                "proposed": list(firsts[i].dice) if i in firsts else None,
                "delay_s": round(firsts[i].at_s - t.rest_s, 3) if i in firsts else None,
            }
            for i, t in enumerate(truth)
        ],
    }


def make_demo_recording(
    video: Path,
    throws: int = 6,
    *,
    seed: int = 0,
    fps: float = 15.0,
    tumble_s: float = 0.8,
    lie_s: float = 2.5,
) -> dict[str, Any]:
    """Record ``throws`` throws of the built-in demo (1 to 6 dice each, rendered on its
    tables) into ``video`` (Motion JPEG), each tumbling ``tumble_s`` then lying ``lie_s``
    seconds; returns the truth (also written beside it as ``<video>.json``)."""
    from scorekeeper.camera.sources import DEFAULT_DEMO_DIR, THROW_SIZE, DemoSource

    tumble = max(1, round(tumble_s * fps))
    per_throw = tumble + max(1, round(lie_s * fps))
    rng = np.random.default_rng(seed)
    asked: list[tuple[int, str]] = []
    src = DemoSource(
        DEFAULT_DEMO_DIR,
        fps=0,
        tumble_frames=tumble,
        seed=seed,
        throws=lambda: asked[-1] if asked else None,
    )
    src.open()
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*RECORDING_FOURCC), fps, THROW_SIZE)
    if not writer.isOpened():
        raise CameraError(f"cannot write the video {video}")
    truth: list[dict[str, Any]] = []
    index = 0
    try:
        for k in range(throws):
            asked.append((int(rng.integers(1, 7)), f"throw-{k}"))
            for step in range(per_throw):
                img = src.read()
                assert img is not None
                if step == tumble:  # the first frame with the dice at rest
                    truth.append({"rest_s": round(index / fps, 3), "dice": src.info["truth"]})
                writer.write(img)
                index += 1
    finally:
        writer.release()
    out = {"fps": fps, "throws": truth}
    Path(f"{video}.json").write_text(json.dumps(out) + "\n", encoding="utf-8")
    return out
