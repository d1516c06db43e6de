"""Camera benchmark: frames per second from the demo source with the overlay, on 1 and 2 threads,
and the time from a still scene to a proposal.

    python benchmarks/bench_camera.py [--images sample_images] [--frames 300] [--scenes 6]
        [--slow 10] [--only-proposal]

Prints one JSON line per measurement. ``fps_all`` is the demo's loop (tumbling frames are not
read, still frames are until their throw is proposed, then the reader rests); ``fps_still``
reads every frame (a settle that never proposes: the worst case); both include the
overlay drawn and JPEG-encoded as the live view does. ``proposal_s`` is measured on the
threaded service with the demo paced at 15 frames per second: from the capture of the first
still frame of a scene to the proposal, with the reader as it is and slowed ``--slow`` times
(each read sleeps nine times as long as it took: a slow machine), with the reads per second the
camera panel shows; ``live_view_fps`` counts the frames of the MJPEG live
view (``/api/camera/stream``, demo at 15 fps, capped at 15); ``cpu_share_*`` the process's CPU
seconds per second while thrown dice lie still, with and without the reader resting. Without
the ONNX model
(``models/dice.onnx``), the synthetic pip-counting reader of the tests stands in, and
``reader`` says so.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from scorekeeper.camera.service import CameraService, default_reader_factory  # noqa: E402
from scorekeeper.camera.settle import SettleConfig  # noqa: E402
from scorekeeper.camera.sources import DemoSource  # noqa: E402


def pick_reader(images: Path, threads: int) -> tuple[str, Callable[[], Any], Path]:
    """The real reader on ``images`` when the model exists, else the fake on synthetic scenes."""
    from scorekeeper.vision import default_model_path

    has_images = images.is_dir() and any(
        p.suffix.lower() in (".png", ".jpg", ".jpeg") for p in images.iterdir()
    )
    if default_model_path().is_file() and has_images:
        return "onnx", default_reader_factory(threads=threads), images
    from test_camera_fakes import PipReader, scene

    folder = Path(tempfile.mkdtemp(prefix="bench-camera-"))
    layouts = [
        [(1, 60, 60), (2, 200, 80), (3, 360, 60), (4, 80, 300), (5, 260, 320), (6, 430, 300)],
        [(5, 100, 100), (5, 300, 200), (1, 500, 350)],
        [(2, 150, 250), (6, 420, 120)],
    ]
    truth = {}
    for i, dice in enumerate(layouts):
        cv2.imwrite(str(folder / f"scene{i}.png"), scene(dice))
        truth[f"scene{i}.png"] = sorted(v for v, _, _ in dice)
    (folder / "truth.json").write_text(json.dumps(truth))
    return "synthetic pip counter (no models/dice.onnx)", PipReader, folder


def bench_fps(folder: Path, factory: Callable[[], Any], frames: int, still_only: bool) -> float:
    """Frames processed per second, overlay JPEG included (the median of three rounds)."""
    return statistics.median(_fps_round(folder, factory, frames, still_only) for _ in range(3))


def _fps_round(folder: Path, factory: Callable[[], Any], frames: int, still_only: bool) -> float:
    tumble = 0 if still_only else 8
    src = DemoSource(folder, fps=0, tumble_frames=tumble, still_frames=30)
    src.open()
    # still_only: a settle that never proposes, so the reader never rests (every frame read)
    settle = SettleConfig(min_confidence=1.01) if still_only else None
    svc = CameraService("none", reader_factory=factory, settle=settle)
    for i in range(10):  # warm-up
        svc.jpeg(svc.process(src.read(), i + 1, src.info, i / 15))  # type: ignore[arg-type]
    t0 = time.perf_counter()
    for i in range(frames):
        img = src.read()
        assert img is not None
        svc.jpeg(svc.process(img, i + 100, src.info, (i + 100) / 15))  # a 15 fps camera
    return frames / (time.perf_counter() - t0)


def slowed(factory: Callable[[], Any], factor: float) -> Callable[[], Any]:
    """``factory``'s reader made ``factor`` times slower: each read sleeps ``factor - 1``
    times as long as it took (a slow machine, as far as time goes)."""

    class Slowed:
        def __init__(self) -> None:
            self.inner = factory()

        def infer(self, frame: Any) -> Any:
            t0 = time.perf_counter()
            out = self.inner.infer(frame)
            time.sleep((factor - 1) * (time.perf_counter() - t0))
            return out

    return Slowed


def bench_proposal(
    folder: Path, factory: Callable[[], Any], scenes: int, slow: float = 1.0
) -> dict[str, Any]:
    """Seconds from the first still frame of a scene to its proposal, and how many were right;
    ``slow``: the reader made that many times slower (:func:`slowed`)."""
    tumble = 8
    svc = CameraService(
        f"demo:{folder}",
        reader_factory=slowed(factory, slow) if slow != 1 else factory,
        demo_options={"fps": 15, "tumble_frames": tumble, "still_frames": 30},
    )
    svc.start()
    delays: list[float] = []
    right = 0
    still_at: float | None = None
    done: set[str] = set()
    last = 0
    fps = 15.0
    scene: tuple[Any, int] | None = None  # (the scene shown, its cycle)
    cycles = 0
    proposed: set[int] = set()
    deadline = time.monotonic() + 10 + scenes * 3.5 * max(1.0, slow / 3)
    try:
        while len(delays) < scenes and time.monotonic() < deadline:
            r = svc.wait_reading(last, 1.0)
            if r is None:
                continue
            last = r.frame_id
            phase, step = r.info.get("phase"), int(r.info.get("step", tumble))
            if scene is None or r.info.get("scene") != scene[0] or phase != "still":
                if scene is None or r.info.get("scene") != scene[0]:
                    cycles += 1  # a new scene (a slow reader may never see it tumble)
                    scene = (r.info.get("scene"), cycles)
                still_at = None
            if phase == "still" and still_at is None:  # the first still frame seen
                still_at = r.captured - (step - tumble) / fps
            p = r.proposal
            if p is not None and p.id not in done and still_at is not None:
                done.add(p.id)
                if cycles == 1 or cycles in proposed:
                    continue  # the first scene waits for the reader to load
                proposed.add(cycles)
                delays.append(r.time - still_at)
                truth = r.info.get("truth")
                right += truth is not None and sorted(truth) == list(p.dice)
        reads_per_s = svc.status().get("reads_per_s")
    finally:
        svc.stop()
    return {
        "slowed": slow,
        "reads_per_s": reads_per_s,
        "proposals": len(delays),
        "scenes_without_proposal": max(0, cycles - 2 - len(proposed)),
        "right": right,
        "proposal_s_median": round(statistics.median(delays), 3) if delays else None,
        "proposal_s_max": round(max(delays), 3) if delays else None,
    }


def bench_stream(folder: Path, factory: Callable[[], Any], seconds: float = 8.0) -> dict[str, Any]:
    """Frames per second of the live view (``/api/camera/stream``) with the demo at 15 fps."""
    from scorekeeper.web import create_app

    tmp = Path(tempfile.mkdtemp(prefix="bench-camera-app-"))
    app = create_app(
        {
            "DATABASE": str(tmp / "games.sqlite3"),
            "CAMERA": f"demo:{folder}",
            "CAMERA_READER_FACTORY": factory,
        }
    )
    resp = app.test_client().get("/api/camera/stream")
    frames, start = 0, None
    try:
        for _chunk in resp.response:
            now = time.monotonic()
            if start is None:
                start = now  # the first frame: the source has started
            elif now - start < 1.0:
                continue  # warm-up
            else:
                frames += 1
                if now - start >= 1.0 + seconds:
                    break
    finally:
        resp.close()
        app.extensions["camera"].stop()
    return {"live_view_fps": round(frames / seconds, 1), "frames": frames}


def bench_idle(factory: Callable[[], Any], seconds: float = 10.0) -> dict[str, Any]:
    """CPU seconds per second of this process while six dice thrown by the built-in demo (at
    15 frames per second) lie still: with the reader resting once they are proposed, and with
    a settle that never proposes, so the reader runs on every frame (as before it rested)."""
    out: dict[str, Any] = {}
    for name, settle in (("resting", None), ("always_reading", SettleConfig(min_confidence=1.01))):
        svc = CameraService(
            "demo", reader_factory=factory, settle=settle, demo_options={"fps": 15, "seed": 0}
        )
        svc.start()
        svc.ask_throw(6, "bench")
        try:
            time.sleep(3.0)  # the reader loads, the throw tumbles and settles
            cpu, wall = time.process_time(), time.monotonic()
            time.sleep(seconds)
            out[f"cpu_share_{name}"] = round(
                (time.process_time() - cpu) / (time.monotonic() - wall), 3
            )
        finally:
            svc.stop()
    return out


def main() -> int:
    """Run the measurements and print JSON lines."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=Path, default=ROOT / "sample_images")
    ap.add_argument("--frames", type=int, default=150, help="frames per round (3 rounds)")
    ap.add_argument("--scenes", type=int, default=6)
    ap.add_argument(
        "--slow",
        type=float,
        default=10.0,
        help="also time the proposals with the reader made this many times slower (1: skip)",
    )
    ap.add_argument("--only-proposal", action="store_true", help="time the proposals only")
    args = ap.parse_args()
    for threads in () if args.only_proposal else (1, 2):
        cv2.setNumThreads(threads)
        name, factory, folder = pick_reader(args.images, threads)
        out = {
            "bench": "camera_fps",
            "threads": threads,
            "reader": name,
            "fps_all": round(bench_fps(folder, factory, args.frames, still_only=False), 1),
            "fps_still": round(bench_fps(folder, factory, args.frames, still_only=True), 1),
        }
        print(json.dumps(out), flush=True)
    cv2.setNumThreads(1)
    name, factory, folder = pick_reader(args.images, 1)
    latency = bench_proposal(folder, factory, args.scenes)
    print(json.dumps({"bench": "camera_proposal", "reader": name, **latency}), flush=True)
    if args.slow != 1:
        latency = bench_proposal(folder, factory, args.scenes, args.slow)
        print(json.dumps({"bench": "camera_proposal", "reader": name, **latency}), flush=True)
    if args.only_proposal:
        return 0
    live = bench_stream(folder, factory)
    print(json.dumps({"bench": "camera_live_view", "reader": name, **live}), flush=True)
    idle = bench_idle(factory)
    print(json.dumps({"bench": "camera_idle_cpu", "reader": name, **idle}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
