"""The reader's figures on the validation photos as other cameras might give them.

    python -m training.eval_shift [--model PATH] [--shift NAME ...] [--data DIR] [--folder DIR ...]

Each shift turns every validation photo (the webcam set and the tray hold-out, as in the
held-out figures) into what a different camera or light could give: brighter or darker,
flatter, warmer, softer, noisier, more compressed, at half or three times the resolution, or
turned a quarter (a portrait camera). Boxes are mapped back to the photo's own pixels, so the
figures compare with the unshifted ones. ``--folder`` reads other labelled folders instead, every
photo in them (a source no model trained on, such as ``../dice-extra/cream-carpet/all``).
Prints one line per shift and set: precision / recall / value accuracy / exact images, on how
many photos the camera panel would advise turning the exposure down
(:func:`scorekeeper.vision.exposure.exposure_advice`), and the median and largest share of a
photo blown out to white.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.detection import Detection
from scorekeeper.vision.evaluate import list_labelled, read_labelled
from scorekeeper.vision.exposure import blown_out_share, exposure_advice
from training.sets import DEFAULT_DATA, VALID_FOLDERS

Image = NDArray[np.uint8]


def _levels(img: Image, gain: float, offset: float) -> Image:
    return np.clip(img.astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)


def _gamma(img: Image, g: float) -> Image:
    lut = np.clip(255 * (np.arange(256) / 255.0) ** g + 0.5, 0, 255).astype(np.uint8)
    return np.asarray(cv2.LUT(img, lut), np.uint8)


def _jpeg(img: Image, quality: int) -> Image:
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return np.asarray(cv2.imdecode(enc, cv2.IMREAD_COLOR), np.uint8) if ok else img


def _noise(img: Image, sigma: float) -> Image:
    n = np.random.default_rng(0).normal(0, sigma, img.shape)
    return np.clip(img + n, 0, 255).astype(np.uint8)


def _resize(img: Image, k: float) -> Image:
    interp = cv2.INTER_CUBIC if k > 1 else cv2.INTER_AREA
    return np.asarray(cv2.resize(img, None, fx=k, fy=k, interpolation=interp), np.uint8)


SHIFTS: dict[str, tuple[Callable[[Image], Image], float]] = {
    "none": (lambda im: im, 1.0),
    "brighter": (lambda im: _levels(im, 1.3, 10), 1.0),
    "overexposed": (lambda im: _levels(im, 1.6, 20), 1.0),
    "darker": (lambda im: _levels(im, 0.4, 0), 1.0),
    "lifted": (lambda im: _gamma(im, 0.6), 1.0),
    "flat": (lambda im: _levels(im, 0.5, 64), 1.0),
    "warm": (lambda im: np.clip(im * np.array([0.7, 1.0, 1.3]), 0, 255).astype(np.uint8), 1.0),
    "soft": (lambda im: np.asarray(cv2.GaussianBlur(im, (0, 0), 2.0), np.uint8), 1.0),
    "noisy": (lambda im: _noise(im, 12), 1.0),
    "jpeg20": (lambda im: _jpeg(im, 20), 1.0),
    "half": (lambda im: _resize(im, 0.5), 0.5),
    "triple": (lambda im: _resize(im, 3.0), 3.0),
    "third": (lambda im: _resize(im, 4 / 3), 4 / 3),
    "turned": (lambda im: np.asarray(cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE), np.uint8), 1.0),
}
"""Name → (the shift, the scale it applies to the photo's size)."""

TURNED = {"turned"}
"""Shifts that turn the photo a quarter clockwise (a camera held the other way up)."""


def shifted_reader(
    reader: DiceReader, shift: str, blown: list[float] | None = None
) -> Callable[[Image], list[Detection]]:
    """``reader.infer`` on the shifted photo, with its boxes in the photo's own pixels; the
    shifted photo's blown-out share is appended to ``blown`` when given."""
    fn, k = SHIFTS[shift]

    def infer(image: Image) -> list[Detection]:
        height = image.shape[0]
        image = fn(image)
        if blown is not None:
            blown.append(blown_out_share(image))
        out = [
            Detection(
                d.value, (d.box[0] / k, d.box[1] / k, d.box[2] / k, d.box[3] / k), d.confidence
            )
            for d in reader.infer(image)
        ]
        if shift in TURNED:  # (x, y) in the photo is (height - y, x) in the turned one
            out = [
                Detection(
                    d.value,
                    (d.box[1], height - d.box[2], d.box[3], height - d.box[0]),
                    d.confidence,
                )
                for d in out
            ]
        return out

    return infer


def main(argv: list[str] | None = None) -> int:
    """Read every validation photo under each shift; print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--shift", action="append", choices=list(SHIFTS), help="default: all")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--threshold", type=float, default=None, help="default: the model's")
    ap.add_argument("--candidate-threshold", type=float, default=None)
    ap.add_argument(
        "--folder",
        action="append",
        type=Path,
        default=[],
        help="a labelled folder (images/ + labels/) read whole instead of the validation sets",
    )
    args = ap.parse_args(argv)
    missing = [f for f in args.folder if not (f / "images").is_dir()]
    if missing:
        print(f"--folder {missing[0]}: expected a folder with images/ and labels/", file=sys.stderr)
        return 2
    sets = [(f, "all") for f in args.folder] or [
        (args.data / f, s) for f, s in VALID_FOLDERS if (args.data / f).is_dir()
    ]
    if not sets:
        print(f"no validation folders under {args.data}", file=sys.stderr)
        return 2
    reader = DiceReader(
        args.model or default_model_path(),
        ReaderConfig(args.threshold, threads=2, candidate_threshold=args.candidate_threshold),
    )
    for shift in args.shift or list(SHIFTS):
        for folder, split in sets:
            pairs = list_labelled(folder, split)
            blown: list[float] = []
            tally = read_labelled(shifted_reader(reader, shift, blown), pairs)
            advised = sum(exposure_advice(b) is not None for b in blown)
            name = folder.relative_to(args.data) if folder.is_relative_to(args.data) else folder
            print(
                f"{shift:12} {name}",
                tally.brief(),
                f"exposure advice on {advised}/{len(blown)}",
                f"(blown out: median {np.median(blown):.3f}, max {max(blown, default=0):.3f})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
