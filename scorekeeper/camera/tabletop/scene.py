"""A throw of dice on a table, as a camera sees it: the demo's clean throws
(:func:`render_throw`) and the steps training's synthetic scenes share with them."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from scorekeeper.camera.tabletop.dice import die_style, draw_die
from scorekeeper.camera.tabletop.paint import FloatImage, Label, lowfreq, rng_of
from scorekeeper.camera.tabletop.tables import lay_table


def finish_camera(rng: np.random.Generator, img: FloatImage, side: float) -> NDArray[np.uint8]:
    """Lighting, colour cast, blur, noise and JPEG artefacts; returns uint8 BGR."""
    h, w = img.shape[:2]
    img = img * (1 + 0.35 * lowfreq(rng, h, w, 3)[..., None] * rng.random())
    img = img * rng.uniform(0.55, 1.25) * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    img = np.clip(img, 0, 1) ** rng.uniform(0.7, 1.4)
    r = rng.random()
    if r < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0) * max(0.6, side / 40))
    elif r < 0.55:
        k = max(3, int(rng.uniform(0.05, 0.2) * side) | 1)
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1 / k
        m = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = np.asarray(cv2.warpAffine(kern, m, (k, k)), np.float32)
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    img = img + rng.normal(0, rng.uniform(0, 0.04), img.shape).astype(np.float32)
    out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(35, 95))])
        if ok:
            out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return np.ascontiguousarray(out)


def finish_clean(rng: np.random.Generator, img: FloatImage) -> NDArray[np.uint8]:
    """Mild lighting, slight blur and noise: a well-lit, focused camera frame."""
    h, w = img.shape[:2]
    img = img * (1 + 0.1 * lowfreq(rng, h, w, 3)[..., None]) * rng.uniform(0.9, 1.1)
    img = cv2.GaussianBlur(np.clip(img, 0, 1).astype(np.float32), (0, 0), 0.6)
    img = img + rng.normal(0, 0.01, img.shape).astype(np.float32)
    return np.ascontiguousarray(np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8))


def throw_dice(
    rng: np.random.Generator,
    img: FloatImage,
    base: float,
    *,
    n_dice: int | None = None,
    clean: bool = False,
    colour_pips: float = 0.0,
    swirls: bool = False,
    streaks: float = 0.0,
) -> list[Label]:
    """Draw ``n_dice`` dice (None: one to six) of top-face side about ``base`` on ``img`` in
    place, apart from each other; returns their labels. ``clean``: opaque plain dice, less
    tilt, no glare; the other options are :func:`training.synth.render_scene`'s."""
    height, width = img.shape[:2]
    n = n_dice if n_dice is not None else int(rng.integers(1, 7))
    one_set = rng.random() < 0.4
    shared_style = die_style(rng, colour_pips, swirls)
    tilt = rng.uniform(0, 0.6)
    extrude = rng.uniform(0, 0.4)
    if clean:
        tilt, extrude = tilt * 0.5, extrude * 0.5
    labels: list[Label] = []
    placed: list[tuple[float, float, float]] = []
    tries = 0
    while len(labels) < n and tries < 60 * n:
        tries += 1
        side = base * rng.uniform(0.85, 1.15)
        m = side * (0.75 + extrude)
        if width <= 2 * m or height <= 2 * m:
            break
        cx, cy = rng.uniform(m, width - m), rng.uniform(m, height - m)
        gap = rng.uniform(1.3, 1.6)
        if any(
            math.hypot(cx - px, cy - py) < gap * (side + ps) / 2 + extrude * side
            for px, py, ps in placed
        ):
            continue
        placed.append((cx, cy, side))
        value = int(rng.integers(1, 7))
        style = shared_style if one_set else die_style(rng, colour_pips, swirls)
        if clean:  # opaque, plain-coloured dice
            style = {**style, "marble": None, "opacity": 1.0}
        box = draw_die(
            rng,
            img,
            cx,
            cy,
            side,
            value,
            style,
            tilt * rng.uniform(0.7, 1.0),
            extrude * rng.uniform(0.7, 1.0),
            clean=clean,
            streak=streaks,
        )
        labels.append((value, box))
    return labels


def render_throw(
    seed: int | np.random.Generator,
    width: int,
    height: int,
    *,
    n_dice: int,
    die_size: tuple[float, float],
    style: str,
) -> tuple[NDArray[np.uint8], list[Label]]:
    """A clean BGR picture of ``n_dice`` dice thrown on a table of ``style``, and their labels
    ``[(value, (x0, y0, x1, y1)), ...]`` (top faces); the same seed gives the same picture.

    >>> img, labels = render_throw(3, 160, 120, n_dice=2, die_size=(20, 30), style="felt")
    >>> img.shape, img.dtype, len(labels), all(1 <= v <= 6 for v, _ in labels)
    ((120, 160, 3), dtype('uint8'), 2, True)
    """
    rng = rng_of(seed)
    img = lay_table(rng, style, height, width)
    base = rng.uniform(*die_size)
    labels = throw_dice(rng, img, base, n_dice=n_dice, clean=True)
    return finish_clean(rng, img), labels
