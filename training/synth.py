"""Seeded synthetic dice scenes for training and measuring the reader (numpy + OpenCV only).

A scene is a table (:mod:`scorekeeper.camera.tabletop.tables`; ``marble`` is kept out of
training to measure generalisation) with dice of many colours, pip colours and sizes, rotated
and seen at an angle (side faces with their own pips), with shadows, glare, translucent or
marbled dice, lighting gradients, blur, noise and JPEG artefacts, and at times decoys: things
that are not dice. Labels are the face value and the box of the top face in pixels. The demo
camera's clean throws are drawn by the same code (:func:`scorekeeper.camera.tabletop.render_throw`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from scorekeeper.camera.tabletop.paint import FloatImage, Label, random_colour, rng_of
from scorekeeper.camera.tabletop.scene import finish_camera, finish_clean, throw_dice
from scorekeeper.camera.tabletop.tables import lay_table

__all__ = [
    "BACKGROUNDS",
    "HELD_OUT_BACKGROUNDS",
    "TRAIN_BACKGROUNDS",
    "Label",
    "render_scene",
]

TRAIN_BACKGROUNDS = ("wood", "felt", "paper", "text", "tray", "tiles", "plain", "clutter")
"""Background styles used for training."""

HELD_OUT_BACKGROUNDS = ("marble",)
"""Background styles never used in training (to estimate generalisation)."""

BACKGROUNDS = TRAIN_BACKGROUNDS + HELD_OUT_BACKGROUNDS
"""Every background style :func:`render_scene` knows."""


def _decoys(rng: np.random.Generator, img: FloatImage, n: int, side: float) -> None:
    """Draw die-sized things that are not dice in place: a lone spot or ring (a pip with no
    die around it), a dark bead with a highlight, a coin, a screw head; some cast a shadow."""
    h, w = img.shape[:2]
    for _ in range(n):
        kind = int(rng.integers(5))
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        dark = rng.random() < 0.6
        c = random_colour(rng, (0, 1), (0, 0.35) if dark else (0.5, 1.0))
        angle = float(rng.uniform(0, 180))
        if kind == 0:  # a lone spot
            r = side * rng.uniform(0.05, 0.2)
            axes = (r, r * rng.uniform(0.7, 1.0))
        elif kind == 1:  # a ring
            r = side * rng.uniform(0.08, 0.35)
            axes = (r, r * rng.uniform(0.7, 1.0))
        elif kind == 2:  # a bead or a blob
            axes = (side * rng.uniform(0.25, 0.6), side * rng.uniform(0.12, 0.4))
            c = random_colour(rng, (0, 0.5), (0, 0.3))
        else:  # a coin or a screw head
            r = side * (rng.uniform(0.3, 0.55) if kind == 3 else rng.uniform(0.12, 0.3))
            axes = (r, r * rng.uniform(0.8, 1.0))
            c = random_colour(rng, (0.1, 0.6), (0.35, 0.85))
        centre = (cx, cy)
        size2 = (2 * axes[0], 2 * axes[1])
        if kind >= 2 and rng.random() < 0.6:  # a soft shadow to one side
            sh = np.zeros((h, w), np.float32)
            off = side * rng.uniform(0.03, 0.15)
            cv2.ellipse(sh, ((cx + off, cy + off), size2, angle), 1.0, -1, cv2.LINE_AA)
            sh = cv2.GaussianBlur(sh, (0, 0), max(0.8, 0.1 * side)) * rng.uniform(0.2, 0.5)
            img *= 1 - sh[..., None]
        col = c.tolist()
        if kind == 1:
            cv2.ellipse(img, (centre, size2, angle), col, int(rng.integers(1, 4)), cv2.LINE_AA)
        else:
            cv2.ellipse(img, (centre, size2, angle), col, -1, cv2.LINE_AA)
        if kind == 3:  # the coin's rim
            rim = (c * rng.uniform(0.5, 0.8)).tolist()
            cv2.ellipse(
                img, (centre, (size2[0] * 0.85, size2[1] * 0.85), angle), rim, 1, cv2.LINE_AA
            )
        elif kind == 4:  # the screw's slot
            dx, dy = (
                math.cos(math.radians(angle)) * axes[0],
                math.sin(math.radians(angle)) * axes[0],
            )
            p0, p1 = (round(cx - dx), round(cy - dy)), (round(cx + dx), round(cy + dy))
            cv2.line(img, p0, p1, (c * 0.4).tolist(), max(1, round(0.15 * axes[0])), cv2.LINE_AA)
        if kind >= 2 and rng.random() < 0.7:  # a specular highlight
            hl = (cx + rng.uniform(-0.4, 0.4) * axes[0], cy + rng.uniform(-0.4, 0.4) * axes[1])
            hs = (axes[0] * rng.uniform(0.2, 0.6), axes[1] * rng.uniform(0.1, 0.4))
            g = np.zeros((h, w), np.float32)
            cv2.ellipse(g, (hl, hs, angle), 1.0, -1, cv2.LINE_AA)
            g = cv2.GaussianBlur(g, (0, 0), max(0.5, 0.04 * side)) * rng.uniform(0.4, 0.9)
            img += g[..., None] * (1 - img)


def _tokens(rng: np.random.Generator, img: FloatImage, n: int, side: float) -> None:
    """Draw board-game number tokens in place: a pale disc about a die's size with a number
    (2 to 12 but 7) and a row of one to five dots under it, as on a Catan board; some with a
    rim, some casting a shadow."""
    h, w = img.shape[:2]
    for _ in range(n):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = side * rng.uniform(0.45, 0.75)
        face = random_colour(rng, (0, 0.25), (0.7, 1.0))
        if rng.random() < 0.5:  # a soft shadow to one side
            sh = np.zeros((h, w), np.float32)
            off = side * rng.uniform(0.03, 0.12)
            cv2.circle(sh, (round(cx + off), round(cy + off)), round(r), 1.0, -1, cv2.LINE_AA)
            sh = cv2.GaussianBlur(sh, (0, 0), max(0.8, 0.1 * side)) * rng.uniform(0.2, 0.5)
            img *= 1 - sh[..., None]
        cv2.circle(img, (round(cx), round(cy)), round(r), face.tolist(), -1, cv2.LINE_AA)
        if rng.random() < 0.5:
            rim = (face * rng.uniform(0.4, 0.8)).tolist()
            cv2.circle(img, (round(cx), round(cy)), round(r), rim, max(1, round(0.06 * r)))
        number = int(rng.choice([2, 3, 4, 5, 6, 8, 9, 10, 11, 12]))
        ink = [0.1, 0.1, 0.6] if number in (6, 8) or rng.random() < 0.2 else [0.1, 0.1, 0.1]
        scale = r / 30.0
        text = str(number)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        thick = max(1, round(scale * 2))
        org = (round(cx - tw / 2), round(cy + th / 2 - 0.15 * r))
        mask = np.zeros((h, w), np.uint8)  # putText draws on 8-bit images only
        cv2.putText(mask, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thick, cv2.LINE_AA)
        m = mask.astype(np.float32)[..., None] / 255.0
        img *= 1 - m
        img += m * np.array(ink, np.float32)
        dots = 6 - abs(7 - number)
        gap, dot = 0.2 * r, max(1, round(0.07 * r))
        for k in range(dots):
            x = cx + (k - (dots - 1) / 2) * gap
            cv2.circle(img, (round(x), round(cy + 0.5 * r)), dot, ink, -1, cv2.LINE_AA)


def render_scene(
    seed: int | np.random.Generator,
    width: int = 640,
    height: int = 480,
    *,
    n_dice: int | None = None,
    die_size: tuple[float, float] = (28.0, 90.0),
    background_style: str | None = None,
    styles: tuple[str, ...] = TRAIN_BACKGROUNDS,
    clean: bool = False,
    decoys: int = 0,
    colour_pips: float = 0.0,
    swirls: bool = False,
    streaks: float = 0.0,
    tokens: int = 0,
) -> tuple[NDArray[np.uint8], list[Label]]:
    """A synthetic BGR scene and its labels ``[(value, (x0, y0, x1, y1)), ...]`` (top faces).

    The same seed gives the same scene. ``die_size`` bounds the top face's side in pixels;
    ``background_style`` picks one style, else one of ``styles`` is drawn at random.
    ``clean`` renders a well-lit, focused frame (opaque plain dice, no glare, less tilt, mild
    blur and noise). ``decoys`` die-sized things that are not dice (spots, rings, beads, coins,
    screw heads) are drawn on the background first. ``colour_pips`` is the share of dice styles
    whose pips stand out by colour more than by grey level (red pips on a smoky die).
    ``swirls`` draws marbled dice with swirling bands rather than blotches. ``streaks`` is each
    die's chance of a specular streak across its top face. ``tokens`` board-game number tokens
    (a pale disc, a number, a row of dots) are drawn on the background after the decoys.

    >>> img, labels = render_scene(3, 160, 120, n_dice=2, die_size=(20, 30))
    >>> img.shape, img.dtype, len(labels), all(1 <= v <= 6 for v, _ in labels)
    ((120, 160, 3), dtype('uint8'), 2, True)
    """
    rng = rng_of(seed)
    style_name = background_style or styles[int(rng.integers(len(styles)))]
    img = lay_table(rng, style_name, height, width)
    base = rng.uniform(*die_size)
    if decoys:
        _decoys(rng, img, decoys, base)
    if tokens:  # from a stream of their own: the same scene but for the tokens
        _tokens(rng.spawn(1)[0], img, tokens, base)
    labels = throw_dice(
        rng,
        img,
        base,
        n_dice=n_dice,
        clean=clean,
        colour_pips=colour_pips,
        swirls=swirls,
        streaks=streaks,
    )
    return (finish_clean(rng, img) if clean else finish_camera(rng, img, base)), labels
