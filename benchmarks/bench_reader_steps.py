"""Where a read's time goes: each step of ``DiceReader.infer`` timed alone on 640×480 frames.

Prints one JSON line ``{"ms": {step: median}, "frames", "threads"}`` with the steps in the order
``infer`` runs them (grey, resize, detector run and peak picking at each size, merge, patches,
second look, re-look) and ``infer`` itself for comparison. The third size's steps are timed on
every frame, though ``infer`` takes them only where a close-up calls for them. Run:
``.venv/bin/python benchmarks/bench_reader_steps.py [--frames 60] [IMAGE...]`` (default: the
scenes in sample_images/).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
from bench_reader import bench_frames

from scorekeeper.errors import ImageError
from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.decode import decode
from scorekeeper.vision.imageio import check_frame, to_grey
from scorekeeper.vision.overlaps import merge_scales
from scorekeeper.vision.patches import patch_batch
from scorekeeper.vision.preprocess import preprocess

WARM_UP = 10


def main(argv: list[str] | None = None) -> int:
    """Time every step over the frames; print the JSON line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("images", nargs="*", type=Path, help="images (default sample_images/*.jpg)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--frames", type=int, default=60, help="timed rounds over all the images")
    ap.add_argument("--model", type=Path, default=None)
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)  # as bench_reader.py: one thread means OpenCV's too
    try:
        frames = bench_frames(args.images)
        reader = DiceReader(args.model or default_model_path(), ReaderConfig(threads=args.threads))
    except (ImageError, ValueError) as exc:
        print(f"bench_reader_steps: {exc}", file=sys.stderr)
        return 2
    if not frames or not reader.two_stage or reader.coarse_side is None:
        print("bench_reader_steps: needs images and a two-stage model", file=sys.stderr)
        return 2
    times: dict[str, list[float]] = {}

    def timed(name: str, fn: Callable[..., Any], *a: Any, **k: Any) -> Any:
        start = time.perf_counter()
        out = fn(*a, **k)
        times.setdefault(name, []).append((time.perf_counter() - start) * 1000)
        return out

    sides = {"fine": reader.long_side, "coarse": reader.coarse_side}
    if reader.coarsest_side:  # timed on every frame; infer takes it only in close-ups
        sides["third"] = reader.coarsest_side
    for _ in range(WARM_UP + args.frames):
        for frame in frames:
            grey = timed("grey", to_grey, check_frame(frame))
            found = {}
            for name, side in sides.items():
                prepared = timed(f"resize_{name}", preprocess, grey, side)
                maps = timed(f"detector_{name}", reader.raw, prepared)
                found[name] = timed(
                    f"peaks_{name}",
                    decode,
                    *maps,
                    stride=reader.stride,
                    scale=prepared.scale,
                    frame_size=prepared.frame_size,
                    threshold=reader.candidate_threshold,
                )
            merged = timed("merge", merge_scales, found["fine"], found["coarse"])
            boxes = [d.box for d in merged]
            patches = timed(
                "patches", patch_batch, frame, boxes, reader.patch_size, reader.patch_context
            )
            logits = timed("second_look", reader.run_patches, patches)
            timed("relook", reader.relook, patches, logits)
            timed("infer", reader.infer, frame)
    skip = WARM_UP * len(frames)
    ms = {k: round(statistics.median(v[skip:]), 3) for k, v in times.items()}
    print(json.dumps({"ms": ms, "frames": args.frames * len(frames), "threads": args.threads}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
