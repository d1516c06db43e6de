"""Quantize a two-stage dice model to int8 (onnxruntime static quantization, QDQ), for speed.

    python -m training.quantize --model build/dice-qat-pair.onnx --out models/dice.onnx \
        [--keep /patch/ --keep heat ...] [--only /b/patch/] [--per-channel]

The last step of ``make model`` (``make model-int8``) quantizes a float two-stage model this way;
``make model-joined`` quantizes only the joined file's float Lite0 look (``--only /b/patch/``,
the rest already int8).

Calibration (min-max) runs the model on a black and a white frame and patch (the inputs'
whole range), on real training photos (every tenth webcam photo and every fifth of the tray's
training part), each at both detector sizes, and on the second look's patches of their
candidates; never on validation photos. Weights are int8 per tensor (``--per-channel``: per
output channel), activations uint8.
``--keep`` leaves every node whose name contains the text in float (e.g.
``/patch/`` for the whole second look); ``--only`` quantizes only the nodes whose name starts
with the text, leaving the rest of the graph, int8 or float, as it is. The model card says
what it gained and cost.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.vision import DiceReader, ReaderConfig, load_image
from scorekeeper.vision.evaluate import list_labelled
from scorekeeper.vision.imageio import to_grey
from scorekeeper.vision.patches import patch_batch
from scorekeeper.vision.preprocess import MULTIPLE, preprocess
from training.sets import DEFAULT_DATA

CALIBRATION_HEAT = 0.2
"""Heat at which candidates are taken for the second look's calibration patches."""


def calibration_feeds(model: Path, data: Path) -> Iterator[dict[str, np.ndarray]]:
    """Inputs for both stages from the training photos: each photo at both detector sizes,
    then its candidates' patches (the unused input gets a tiny blank, as in the reader); first a
    black and a white frame and patch, so that each input's range is all of [0, 1] (from the
    photos alone the detector's ends at their brightest pixel, 0.95, and brighter dice clip)."""
    reader = DiceReader(model, ReaderConfig(threads=2))
    blank_patches = np.zeros((1, 3, reader.patch_size, reader.patch_size), np.float32)
    blank_image = np.zeros((1, 1, MULTIPLE, MULTIPLE), np.float32)
    webcam = list_labelled(data / "webcam-table" / "Train")[::10]
    tray = list_labelled(data / "dice-tray" / "train", "train")[::5]
    sides = [reader.long_side] + ([reader.coarse_side] if reader.coarse_side else [])
    for level in (0.0, 1.0):  # black and white: the inputs' whole range
        yield {
            "image": np.full((1, 1, MULTIPLE, MULTIPLE), level, np.float32),
            "patches": blank_patches,
        }
        yield {"image": blank_image, "patches": np.full_like(blank_patches, level)}
    for image_path, _ in webcam + tray:
        image = load_image(image_path)
        grey = to_grey(image)
        for side in sides:
            yield {"image": preprocess(grey, side).tensor, "patches": blank_patches}
        found = reader.all_candidates(image, CALIBRATION_HEAT)
        if found:
            boxes = [d.box for d in found]
            patches = patch_batch(image, boxes, reader.patch_size, reader.patch_context)
            yield {"image": blank_image, "patches": patches}


QDQ_OPS = ("QuantizeLinear", "DequantizeLinear")
"""The operators of a graph already quantized."""


def drop_dead_nodes(graph: Any) -> None:
    """Remove the nodes no output depends on and the initializers nothing reads (the constants
    of the clips quantization folds into its ranges), so onnxruntime has none to warn of."""
    while True:
        read = {name for n in graph.node for name in n.input} | {o.name for o in graph.output}
        dead = [n for n in graph.node if not any(o in read for o in n.output)]
        for n in dead:
            graph.node.remove(n)
        if not dead:
            break
    for init in [i for i in graph.initializer if i.name not in read]:
        graph.initializer.remove(init)


def main(argv: list[str] | None = None) -> int:
    """Quantize and write the model; returns the exit code."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, required=True, help="a float two-stage model")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument(
        "--keep", action="append", default=[], help="leave nodes whose name has this in float"
    )
    ap.add_argument(
        "--per-channel", action="store_true", help="int8 weights per output channel, not tensor"
    )
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        help="quantize only the nodes whose name starts with this (the rest stays as it is)",
    )
    args = ap.parse_args(argv)
    if not args.model.is_file():
        ap.error(f"no model at {args.model}")
    graph_nodes = onnx.load(str(args.model)).graph.node
    chosen = [n for n in graph_nodes if not args.only or n.name.startswith(tuple(args.only))]
    if args.only and not chosen:
        ap.error(f"no node of {args.model} has a name starting with {' or '.join(args.only)}")
    dequantized = {o for n in graph_nodes if n.op_type == "DequantizeLinear" for o in n.output}
    if any(n.op_type in QDQ_OPS or dequantized.intersection(n.input) for n in chosen):
        where = f"under {' or '.join(args.only)} " if args.only else ""
        ap.error(f"{args.model} is quantized {where}already; quantize the float model it came from")
    feeds = list(calibration_feeds(args.model, args.data))

    class Feeds(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.it = iter(feeds)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.it, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        if args.only:  # onnxruntime's pre-processing would fold the int8 parts' weights to float
            pre = args.model
        else:
            quant_pre_process(str(args.model), str(pre), skip_symbolic_shape=True)
        nodes = graph_nodes if args.only else onnx.load(str(pre)).graph.node
        keep = [n.name for n in nodes if any(k in n.name for k in args.keep)]
        only = [n.name for n in chosen if n.name not in keep] if args.only else []
        args.out.parent.mkdir(parents=True, exist_ok=True)
        quantize_static(
            str(pre),
            str(args.out),
            Feeds(),
            quant_format=QuantFormat.QDQ,
            per_channel=args.per_channel,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=keep,
            nodes_to_quantize=only or None,
        )
        model = onnx.load(str(args.out))
        drop_dead_nodes(model.graph)
        onnx.save(model, str(args.out))
    print(
        f"wrote {args.out} ({args.out.stat().st_size} bytes): {len(feeds)} calibration inputs,"
        f" {len(keep)} nodes kept in float",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
