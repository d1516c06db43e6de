"""Benchmark the dice reader: the whole read of one 640×480 frame after warm-up.

Prints one JSON line ``{"ms_median", "ms_p90", "frames", "threads", "dice_per_frame"}``. Run:
``.venv/bin/python benchmarks/bench_reader.py --threads 1 [IMAGE...]`` (default: the scenes in
sample_images/). Each image is resized to 640×480 first (``--size WxH`` for another size); the
timing covers pre-processing, the model and post-processing (``DiceReader.infer``).
``--threads`` is both onnxruntime's and OpenCV's thread count (OpenCV would otherwise spread
its resizes over every core). ``third_look_frames`` says on how many of the images the reader
took its third look, the one for close-ups (``--no-third-look`` turns it off), and
``zoom_frames`` on how many it read the frame again at a larger size, as it does small dice
(``--no-zoom`` turns it off; ``--mosaic 3`` gives 640×480 frames of small dice). ``--taught
marks`` (or ``read``) first teaches the reader every die it reads in the frames, as a table's
taught dice: the marks take the dice's features from the look that judged them, reading with
them looks at the dice a second time. ``--load N`` times loading the model instead.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.camera.teaching import TEACH_MODES, taught_config
from scorekeeper.errors import ImageError
from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path, load_image
from scorekeeper.vision.config import DEFAULTS
from scorekeeper.vision.onnx_model import DiceModel
from scorekeeper.vision.reader import teach_crop

ROOT = Path(__file__).resolve().parents[1]


def bench_frames(
    images: Sequence[str | Path], size: tuple[int, int] = (640, 480), mosaic: int = 1
) -> list[np.ndarray]:
    """The images (default: the scenes in sample_images/) as the frames the reader's benchmarks
    time, ``size`` (width, height) pixels each: 640×480 unless told. With ``mosaic`` K over 1,
    each frame holds K × K of them side by side (the next ones, cycling), so its dice are K
    times smaller, as a camera high over a big table sees them.

    :raises ImageError: for an image that cannot be read.
    """
    paths = list(images) or sorted((ROOT / "sample_images").glob("*.jpg"))
    frames = [cv2.resize(load_image(p), size, interpolation=cv2.INTER_AREA) for p in paths]
    if mosaic <= 1 or not frames:
        return frames
    tiles = [frames[i % len(frames)] for i in range(len(frames) * mosaic * mosaic)]
    out = []
    for i in range(len(frames)):
        own = tiles[i * mosaic * mosaic : (i + 1) * mosaic * mosaic]
        rows = [np.hstack(own[r * mosaic : (r + 1) * mosaic]) for r in range(mosaic)]
        out.append(cv2.resize(np.vstack(rows), size, interpolation=cv2.INTER_AREA))
    return out


def timed(call: Callable[[], object], times: int, warm: int = 0) -> list[float]:
    """Milliseconds of each of ``times`` calls, after ``warm`` calls not timed."""
    for _ in range(warm):
        call()
    out = []
    for _ in range(times):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def parse_size(text: str) -> tuple[int, int]:
    """A frame size such as ``1280x720``, as (width, height).

    >>> parse_size("1280x720")
    (1280, 720)
    """
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        w = h = 0
    if not (16 <= w <= 8000 and 16 <= h <= 8000):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, 16 to 8000 each: {text}")
    return w, h


def main(argv: list[str] | None = None) -> int:
    """Time ``infer`` over the frames; print the JSON line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("images", nargs="*", type=Path, help="images (default sample_images/*.jpg)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--frames", type=int, default=200, help="timed reads (cycling the images)")
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument(
        "--size", type=parse_size, default=(640, 480), help="frame size WxH (default 640x480)"
    )
    ap.add_argument(
        "--mosaic",
        type=int,
        default=1,
        metavar="K",
        help="each frame K x K images side by side, shrunk to the size: small dice (default 1)",
    )
    ap.add_argument("--single-scale", action="store_true", help="skip the coarse look for big dice")
    ap.add_argument(
        "--no-third-look", action="store_true", help="skip the third look that close-ups get"
    )
    ap.add_argument(
        "--no-zoom", action="store_true", help="never read small dice in a big frame again"
    )
    ap.add_argument(
        "--no-above",
        action="store_true",
        help="never read a die again above its box (ReaderConfig.above_views empty)",
    )
    ap.add_argument(
        "--no-heap",
        action="store_true",
        help="never look at weaker peaks beside a die read surely (ReaderConfig.heap_heat 0)",
    )
    ap.add_argument(
        "--taught",
        choices=TEACH_MODES,
        default="off",
        help="teach the reader every die it reads in the frames first, with its value, to mark"
        " dice (the app's default once a table has taught any) or to read with them"
        " (serve --read-taught); default off",
    )
    ap.add_argument(
        "--long-side", type=int, default=None, help="model input long side (default the model's)"
    )
    ap.add_argument(
        "--second-look",
        metavar="N,N,...",
        default=None,
        help="instead: median ms of the second look alone on batches of N patches",
    )
    ap.add_argument(
        "--load",
        type=int,
        default=0,
        metavar="N",
        help="instead: median ms of loading the model N times, as the reader and as teaching"
        " loads it",
    )
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)
    if args.second_look:
        return _second_look(args)
    if args.load:
        return _load(args)
    try:
        if not 1 <= args.mosaic <= 8:
            raise ValueError(f"--mosaic must be 1 to 8 images across, got {args.mosaic}")
        frames = bench_frames(args.images, args.size, args.mosaic)
        if not frames:
            print("no images given and none in sample_images/", file=sys.stderr)
            return 2
        reader = DiceReader(
            args.model or default_model_path(),
            ReaderConfig(
                threads=args.threads,
                coarse=not args.single_scale,
                third_look=not args.no_third_look,
                long_side=args.long_side,
                zoom=not args.no_zoom,
                above_views=() if args.no_above else DEFAULTS.above_views,
                heap_heat=0.0 if args.no_heap else DEFAULTS.heap_heat,
            ),
        )
    except (ImageError, ValueError) as exc:
        print(f"bench_reader: {exc}", file=sys.stderr)
        return 2
    third = sum(_third_look_runs(reader, f) for f in frames)
    zoomed = 0
    if reader.zoom:  # the first reading, without zooming, says whether a zoomed one follows
        plain = DiceReader(
            reader.model_path,
            ReaderConfig(
                threads=args.threads,
                coarse=not args.single_scale,
                third_look=not args.no_third_look,
                long_side=args.long_side,
                zoom=False,
            ),
        )
        zoomed = sum(reader.zoom_side(plain.infer(f), max(f.shape[:2])) is not None for f in frames)
    if args.taught != "off":
        crops, labels = [], []
        for f in frames:
            for d in reader.infer(f):
                crops.append(teach_crop(f, d.box))
                labels.append(d.value)
        reader.teach(crops, labels, taught_config(args.taught))
    for f in frames * max(1, 10 // len(frames)):
        reader.infer(f)
    times, dice = [], 0
    for i in range(args.frames):
        frame = frames[i % len(frames)]
        t = time.perf_counter()
        found = reader.infer(frame)
        times.append((time.perf_counter() - t) * 1000)
        dice += len(found)
    out = {
        "ms_median": round(statistics.median(times), 2),
        "ms_p90": round(float(np.percentile(times, 90)), 2),
        "frames": len(times),
        "size": "x".join(map(str, args.size)),
        "threads": args.threads,
        "opencv_threads": cv2.getNumThreads(),
        "dice_per_frame": round(dice / len(times), 1),
        "long_side": reader.long_side,
        "coarse_side": reader.coarse_side,
        "third_side": reader.coarsest_side,
        "third_look_frames": f"{third} of {len(frames)}",
        "zoom_frames": f"{zoomed} of {len(frames)}",
        "above_views": [list(v) for v in reader.config.above_views],
        "heap_heat": reader.config.heap_heat,
        "taught": args.taught
        if reader.prototypes is None
        else f"{args.taught} ({len(reader.prototypes)} dice)",
    }
    print(json.dumps(out))
    return 0


def _third_look_runs(reader: DiceReader, frame: np.ndarray) -> bool:
    """Whether reading ``frame`` takes the third look (counted once, outside the timing)."""
    return reader.coarsest_side is not None and reader.coarsest_side in reader.look_sides(frame)


def _second_look(args: argparse.Namespace) -> int:
    """Print ``{"second_look_ms": {N: median ms}}`` for random patch batches of each size."""
    reader = DiceReader(args.model or default_model_path(), ReaderConfig(threads=args.threads))
    if not reader.two_stage:
        print("the model has no second look", file=sys.stderr)
        return 2
    out = {}
    for n in (int(v) for v in args.second_look.split(",")):
        size = reader.patch_size
        patches = np.random.default_rng(n).random((n, 3, size, size)).astype(np.float32)
        times = timed(lambda p=patches: reader.run_patches(p), args.frames, warm=10)
        out[str(n)] = round(statistics.median(times), 2)
    print(json.dumps({"second_look_ms": out, "threads": args.threads}))
    return 0


def _load(args: argparse.Namespace) -> int:
    """Print ``{"load_ms": {"reader", "with_features"}}``: the median time to load the model
    for reading (``DiceReader``) and with the features teaching reads (``DiceModel``)."""
    path = args.model or default_model_path()
    loads = {
        "reader": lambda: DiceReader(path, ReaderConfig(threads=args.threads)),
        "with_features": lambda: DiceModel(path, args.threads, features=True),
    }
    out = {}
    try:
        for name, load in loads.items():
            out[name] = round(statistics.median(timed(load, args.load, warm=1)), 1)
    except ImageError as exc:
        print(f"bench_reader: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"load_ms": out, "loads": args.load, "threads": args.threads}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
