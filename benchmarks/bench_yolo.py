"""The reader's speed as a share of YOLOv8n's at 640×640, both timed in one run, one thread.

Issue 26's budget: reading a 640×480 frame on one thread may take at most 0.20 of the time
YOLOv8n takes on its 640×640 input. YOLOv8n is built layer for layer (``training/yolov8n.py``,
random weights) and exported once to ``build/yolov8n-640.onnx``, which needs the train extra's
torch (without it the benchmark says so and stops). Both then run in onnxruntime (all graph
optimisations, one intra-op thread), taking turns in rounds so a host that speeds up or slows
down meanwhile favours neither. Prints one JSON line: each one's median ms (of the rounds'
medians) and the ratio. Run:
``.venv/bin/python benchmarks/bench_yolo.py [--rounds 5] [--frames 40] [--model M] [IMAGE...]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort
from bench_reader import bench_frames, timed

from scorekeeper.errors import ImageError
from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.config import parse_above_views

ROOT = Path(__file__).resolve().parents[1]
YOLO = ROOT / "build" / "yolov8n-640.onnx"
BUDGET = 0.20
"""Issue 26: the reader's time at most this share of YOLOv8n-640's."""


def yolo_session(path: Path, threads: int) -> Callable[[], object] | None:
    """A call that runs YOLOv8n once on a 640×640 frame (exported first when missing); None
    when it is missing and torch (the train extra) is not there to build it."""
    if not path.exists():
        sys.path.insert(0, str(ROOT))
        try:
            from training.yolov8n import export
        except ImportError:
            return None
        export(path)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    frame = np.random.default_rng(0).random((1, 3, 640, 640), dtype=np.float32)
    return lambda: sess.run(None, {name: frame})


def main(argv: list[str] | None = None) -> int:
    """Time both in rounds; print the JSON line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("images", nargs="*", type=Path, help="images (default sample_images/*.jpg)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--frames", type=int, default=40, help="reads of each a round")
    ap.add_argument("--model", type=Path, default=None, help="the reader's model")
    ap.add_argument("--yolo", type=Path, default=YOLO, help="YOLOv8n ONNX (built when missing)")
    ap.add_argument(
        "--relook-face-below",
        type=float,
        default=None,
        help="ReaderConfig.relook_face_below: dice not read surely read again turned half round"
        " (default: the model's)",
    )
    ap.add_argument(
        "--rescue-scale",
        type=float,
        default=None,
        help="ReaderConfig.rescue_scale: turned-down candidates read again in a patch this many"
        " times as wide, 0 for none (default: the model's)",
    )
    ap.add_argument(
        "--above-views",
        default=None,
        metavar="UP:TALL,...",
        help="ReaderConfig.above_views: each die read surely read again above its box, 'none'"
        " for never (default: the reader's)",
    )
    ap.add_argument(
        "--heap-heat",
        type=float,
        default=None,
        metavar="HEAT",
        help="ReaderConfig.heap_heat: weaker peaks beside a die read surely looked at too,"
        " 0 for never (default: the reader's)",
    )
    ap.add_argument(
        "--colour-above",
        type=float,
        default=None,
        metavar="SHARE",
        help="ReaderConfig.colour_above: a die read surely whose colour runs on above its box"
        " marked unsure, 0 for never (default: the model's)",
    )
    args = ap.parse_args(argv)
    if args.threads < 1 or args.rounds < 1 or args.frames < 1:
        print("bench_yolo: --threads, --rounds and --frames must be at least 1", file=sys.stderr)
        return 2
    cv2.setNumThreads(args.threads)
    try:
        frames = bench_frames(args.images)
        config = ReaderConfig(
            threads=args.threads,
            relook_face_below=args.relook_face_below,
            rescue_scale=args.rescue_scale,
            colour_above=args.colour_above,
        )
        if args.above_views is not None:
            config = replace(config, above_views=parse_above_views(args.above_views))
        if args.heap_heat is not None:
            config = replace(config, heap_heat=args.heap_heat)
        reader = DiceReader(args.model or default_model_path(), config)
    except (ImageError, ValueError) as exc:
        print(f"bench_yolo: {exc}", file=sys.stderr)
        return 2
    yolo = yolo_session(args.yolo, args.threads)
    if yolo is None:  # make bench runs every benchmark; this one alone needs the train extra
        print(
            f"bench_yolo: skipped: {args.yolo} is missing and torch is not installed to build it"
            " (.venv/bin/pip install -e '.[train]')",
            file=sys.stderr,
        )
        return 0
    frame_after_frame = itertools.cycle(frames)

    def read() -> object:
        return reader.infer(next(frame_after_frame))

    timed(yolo, 3)  # warm-up
    timed(read, 3 * len(frames))
    yolo_ms, reader_ms = [], []
    for r in range(args.rounds):
        pair = [(yolo_ms, yolo), (reader_ms, read)]
        for sink, call in pair if r % 2 == 0 else pair[::-1]:
            sink.append(statistics.median(timed(call, args.frames)))
    y, d = statistics.median(yolo_ms), statistics.median(reader_ms)
    line = {
        "yolov8n_640_ms": round(y, 2),
        "reader_640x480_ms": round(d, 2),
        "ratio": round(d / y, 3),
        "budget": BUDGET,
        "within_budget": d / y <= BUDGET,
        "threads": args.threads,
        "rounds": args.rounds,
        "frames_per_round": args.frames,
        "yolo_rounds_ms": [round(v, 2) for v in yolo_ms],
        "reader_rounds_ms": [round(v, 2) for v in reader_ms],
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
