"""Training samples: real labelled photos and synthetic scenes, augmented, with heat-map targets.

Every sample is a pure function of (seed, index), so training is deterministic given the seed
whatever the number of loader workers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.vision.evaluate import list_labelled, parse_yolo
from training.synth import TRAIN_BACKGROUNDS, render_scene

CROP = 192
STRIDE = 4
DIE_RANGE = (10.0, 72.0)  # die side in model-input pixels


@dataclass
class Sample:
    """One image (BGR uint8) with die centres (N, 2), sizes (N,) and values (N,) in pixels."""

    image: np.ndarray
    centres: np.ndarray
    sizes: np.ndarray
    values: np.ndarray


def _from_truth(
    image: np.ndarray, truth: list[tuple[int, tuple[float, float, float, float]]]
) -> Sample:
    """A Sample from labelled boxes; the die size is the box's geometric mean side."""
    if truth:
        boxes = np.array([b for _, b in truth], np.float32)
        centres = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], 1)
        sizes = np.sqrt(
            np.maximum(boxes[:, 2] - boxes[:, 0], 1) * np.maximum(boxes[:, 3] - boxes[:, 1], 1)
        )
        values = np.array([v for v, _ in truth], np.int64)
    else:
        centres, sizes, values = (
            np.zeros((0, 2), np.float32),
            np.zeros(0, np.float32),
            np.zeros(0, np.int64),
        )
    return Sample(image, centres.astype(np.float32), sizes.astype(np.float32), values)


def load_folder(folder: str | Path, split: str = "all", limit: int | None = None) -> list[Sample]:
    """Every labelled image of a dice-data folder (images/ + labels/) as Samples."""
    out = []
    for img_path, label_path in list_labelled(folder, split)[:limit]:
        image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        truth = parse_yolo(label_path.read_text(), w, h) if label_path.exists() else []
        out.append(_from_truth(image, truth))
    return out


def synth_sample(seed: int, styles: tuple[str, ...] = TRAIN_BACKGROUNDS) -> Sample:
    """A synthetic training scene at crop size with dice across the whole size range, on one of
    ``styles`` (a style listed twice is drawn twice as often)."""
    rng = np.random.default_rng(seed)
    lo = math.exp(rng.uniform(math.log(DIE_RANGE[0]), math.log(DIE_RANGE[1])))
    image, truth = render_scene(
        rng,
        CROP,
        CROP,
        n_dice=int(rng.integers(0, 9)),
        die_size=(lo, lo * 1.15),
        styles=styles,
    )
    return _from_truth(image, truth)


def _grey(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Grey with random channel weights around the usual luma weights."""
    w = np.array([0.114, 0.587, 0.299]) * rng.uniform(0.5, 1.5, 3)
    w /= w.sum()
    return np.clip(image.astype(np.float32) @ w.astype(np.float32), 0, 255)


def blow_out(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``img`` (floats in 0..1) overexposed: brightened 1.2–1.8× and clipped to white."""
    return np.minimum(img * np.float32(rng.uniform(1.2, 1.8)) + np.float32(rng.uniform(0, 0.1)), 1)


def augment(
    s: Sample,
    rng: np.random.Generator,
    real: bool,
    focus: float = 0.8,
    overexpose: float = 0.0,
    max_turn: float | None = None,
) -> tuple[np.ndarray, Sample]:
    """A CROP×CROP grey float crop (0..1) of a randomly scaled, rotated, tilted sample;
    ``overexpose`` of them blown out (white dice and a pale table clipped to white); a real
    photo turned at most ``max_turn`` degrees either way (None: any turn), so that what lies
    above a die in the photo stays above it."""
    h, w = s.image.shape[:2]
    if real:
        target = math.exp(rng.uniform(math.log(DIE_RANGE[0]), math.log(DIE_RANGE[1])))
        scale = target / float(np.median(s.sizes)) if len(s.sizes) else rng.uniform(0.3, 1.0)
        angle = rng.uniform(0, 360)
        if max_turn is not None:  # drawn after the free turn: the other draws stay the same
            angle = rng.uniform(-max_turn, max_turn)
    else:
        scale = rng.uniform(0.85, 1.15)
        angle = float(rng.integers(4)) * 90 + rng.normal(0, 5)
    if not real:
        focus = np.array([w / 2, h / 2]) + rng.normal(0, 8, 2)
    elif len(s.centres) and rng.random() < focus:
        focus = s.centres[int(rng.integers(len(s.centres)))] + rng.normal(0, 0.3 * CROP / scale, 2)
    else:
        focus = np.array([rng.uniform(0, w), rng.uniform(0, h)])
    m = cv2.getRotationMatrix2D((float(focus[0]), float(focus[1])), angle, scale)
    m[:, 2] += np.array([CROP / 2, CROP / 2]) - focus
    if rng.random() < 0.5:  # mirror (die faces are mirror-symmetric up to rotation)
        m[0] = -m[0]
        m[0, 2] += CROP
    a = np.vstack([m, [0, 0, 1]])
    persp = np.eye(3)
    persp[2, :2] = rng.normal(0, 0.0008, 2)
    t = np.array([[1, 0, -CROP / 2], [0, 1, -CROP / 2], [0, 0, 1]])
    full = np.linalg.inv(t) @ persp @ t @ a
    grey = _grey(s.image, rng)
    border = float(rng.uniform(0, 255))
    interp = cv2.INTER_AREA if scale < 0.7 else cv2.INTER_LINEAR
    if scale < 0.7:  # pre-shrink so warpPerspective does not alias
        k = max(0.0, 0.5 / scale - 0.5)
        grey = cv2.GaussianBlur(grey, (0, 0), k) if k > 0.3 else grey
        interp = cv2.INTER_LINEAR
    out = cv2.warpPerspective(
        grey, full, (CROP, CROP), flags=interp, borderMode=cv2.BORDER_CONSTANT, borderValue=border
    )
    if len(s.centres):
        pts = np.concatenate([s.centres, np.ones((len(s.centres), 1), np.float32)], 1) @ full.T
        centres = (pts[:, :2] / pts[:, 2:3]).astype(np.float32)
        sizes = (s.sizes * scale).astype(np.float32)
    else:
        centres, sizes = s.centres, s.sizes
    img = out / 255.0
    if overexpose and rng.random() < overexpose:  # no draw at 0: earlier runs stay the same
        img = blow_out(img, rng)
    # photometric
    if rng.random() < 0.15:
        img = 1.0 - img
    img = (img - 0.5) * rng.uniform(0.5, 1.4) + 0.5 + rng.uniform(-0.25, 0.25)
    img = np.clip(img, 0, 1) ** rng.uniform(0.6, 1.6)
    if rng.random() < 0.5:  # lighting gradient
        g = rng.uniform(-0.3, 0.3)
        ramp = np.linspace(-g, g, CROP, dtype=np.float32)
        img = img * (1 + (ramp[None, :] if rng.random() < 0.5 else ramp[:, None]))
    r = rng.random()
    if r < 0.3:
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), rng.uniform(0.3, 1.3))
    elif r < 0.4:
        k = int(rng.integers(3, 8))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, rot, (k, k))
        img = cv2.filter2D(img.astype(np.float32), -1, kern / max(float(kern.sum()), 1e-6))
    img = img + rng.normal(0, rng.uniform(0, 0.04), img.shape)
    img = np.clip(img, 0, 1).astype(np.float32)
    if rng.random() < 0.25:
        q = int(rng.uniform(30, 95))
        _ok, enc = cv2.imencode(
            ".jpg", (img * 255 + 0.5).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, q]
        )
        img = cv2.imdecode(enc, cv2.IMREAD_GRAYSCALE).astype(np.float32) / 255
    if len(centres):
        inside = (centres >= 0).all(1) & (centres < CROP).all(1)
        near = (centres >= -0.6 * sizes[:, None]).all(1) & (
            centres < CROP + 0.6 * sizes[:, None]
        ).all(1)
        values = np.where(inside, s.values, 0)  # value 0: a die cut by the edge, ignored
        keep = near
    else:
        values, keep = s.values, np.zeros(0, bool)
    return img, Sample(np.zeros(0), centres[keep], sizes[keep], values[keep])


def targets(s: Sample, crop: int = CROP, stride: int = STRIDE) -> dict[str, np.ndarray]:
    """Heat (1, g, g) Gaussians at die centres, value index (g, g; -1 none), log size (2, g, g)
    and the mask (g, g) of cells that carry value and size targets."""
    g = crop // stride
    heat = np.zeros((g, g), np.float32)
    value = np.full((g, g), -1, np.int64)
    size = np.zeros((2, g, g), np.float32)
    weight = np.zeros((g, g), np.float32)
    ignore = np.zeros((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32) + 0.5
    order = np.argsort(-s.sizes) if len(s.sizes) else []
    for i in order:  # large first so small dice win shared cells
        cx, cy = s.centres[i] / stride
        side = float(s.sizes[i]) / stride
        sigma = max(0.6, 0.14 * side)
        gauss = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma * sigma))
        if s.values[i] == 0:  # centre outside the crop: neither die nor background
            ignore[((xx - cx) ** 2 + (yy - cy) ** 2) <= (0.6 * side) ** 2] = 1.0
            continue
        heat = np.maximum(heat, gauss)
        ci, cj = min(g - 1, int(cy)), min(g - 1, int(cx))
        heat[ci, cj] = 1.0
        rad = max(1.0, 0.22 * side)
        cells = ((xx - cx) ** 2 + (yy - cy) ** 2) <= rad * rad
        cells[ci, cj] = True
        value[cells] = int(s.values[i]) - 1
        size[:, cells] = math.log(max(side, 0.5))
        weight[cells] = gauss[cells] * 0.5 + 0.5
    ignore[heat > 0.05] = 0.0
    return {
        "heat": heat[None],
        "ignore": ignore[None],
        "value": value,
        "size": size,
        "weight": weight,
    }
