"""Quantize a two-stage dice model to int8 (onnxruntime static quantization, QDQ), for speed.

    python -m training.quantize --model build/dice-qat-pair.onnx --out models/dice.onnx \
        [--keep /patch/ --keep heat ...]

The last step of ``make model`` (``make model-int8``) quantizes a float two-stage model this way.

Calibration (min-max) runs the model on a black and a white frame and patch (the inputs'
whole range), on real training photos (every tenth webcam photo and every fifth of the tray's
training part), each at both detector sizes, and on the second look's patches of their
candidates; never on validation photos. Weights are int8 per tensor, activations uint8.
``--keep`` leaves every node whose name contains the text in float (e.g.
``/patch/`` for the whole second look). The model card says what it gained and cost.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

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
    args = ap.parse_args(argv)
    if not args.model.is_file():
        ap.error(f"no model at {args.model}")
    if any(n.op_type == "DequantizeLinear" for n in onnx.load(str(args.model)).graph.node):
        ap.error(f"{args.model} is quantized already; quantize the float model it came from")
    feeds = list(calibration_feeds(args.model, args.data))

    class Feeds(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.it = iter(feeds)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.it, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(args.model), str(pre), skip_symbolic_shape=True)
        nodes = onnx.load(str(pre)).graph.node
        keep = [n.name for n in nodes if any(k in n.name for k in args.keep)]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        quantize_static(
            str(pre),
            str(args.out),
            Feeds(),
            quant_format=QuantFormat.QDQ,
            per_channel=False,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=keep,
        )
    print(
        f"wrote {args.out} ({args.out.stat().st_size} bytes): {len(feeds)} calibration inputs,"
        f" {len(keep)} nodes kept in float",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
