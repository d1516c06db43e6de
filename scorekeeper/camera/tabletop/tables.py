"""The tables dice are thrown on: wood, felt, paper, printed text, a dice tray, tiles, plain,
cluttered and marble, each drawn from a seeded generator."""

from __future__ import annotations

import math
import string
from collections.abc import Callable

import cv2
import numpy as np

from scorekeeper.camera.tabletop.paint import FloatImage, filled, lowfreq, random_colour


def _bg_wood(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """Wood grain: warped stripes between two tones, with plank seams."""
    a, b = random_colour(rng, (0.2, 0.7), (0.45, 0.95)), random_colour(rng, (0.2, 0.8), (0.3, 0.8))
    if rng.random() < 0.6:  # tan, brown, honey
        hue = rng.uniform(8, 25)
        a = (
            np.asarray(
                cv2.cvtColor(
                    np.array([[[hue, rng.uniform(40, 120), rng.uniform(150, 245)]]], np.uint8),
                    cv2.COLOR_HSV2BGR,
                )[0, 0],
                np.float32,
            )
            / 255
        )
        b = a * rng.uniform(0.65, 0.9)
    ang = rng.uniform(0, math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = xx * math.cos(ang) + yy * math.sin(ang)
    v = -xx * math.sin(ang) + yy * math.cos(ang)
    warp = lowfreq(rng, h, w, 4) * rng.uniform(5, 30) + np.sin(u * rng.uniform(0.005, 0.03)) * 8
    t = 0.5 + 0.5 * np.sin((v + warp) * rng.uniform(0.08, 0.4))
    t = t ** rng.uniform(1, 4)
    img = a[None, None] * (1 - t[..., None]) + b[None, None] * t[..., None]
    if rng.random() < 0.5:
        period = rng.uniform(60, 200)
        seam = np.abs(((v + rng.uniform(0, period)) % period) - period / 2) > period / 2 - 1.2
        img[seam] *= 0.6
    return np.asarray(img, np.float32)


def _bg_felt(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """Felt or cloth: one colour with fine fibre noise and mottling."""
    c = random_colour(rng, (0.3, 1.0), (0.15, 0.8))
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.8)
    img = filled(h, w, c) * (1 + 0.06 * fine[..., None] + 0.08 * lowfreq(rng, h, w)[..., None])
    return img


def _bg_paper(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """Paper: near white, faint grain, sometimes ruled or squared lines."""
    c = random_colour(rng, (0.0, 0.15), (0.8, 1.0))
    img = filled(h, w, c) * (1 + 0.02 * rng.normal(0, 1, (h, w, 1)).astype(np.float32))
    if rng.random() < 0.6:
        gap = int(rng.uniform(14, 36))
        line = random_colour(rng, (0.3, 0.8), (0.4, 0.9))
        off = int(rng.integers(0, gap))
        for y in range(off, h, gap):
            cv2.line(img, (0, y), (w, y), line.tolist(), 1, cv2.LINE_AA)
        if rng.random() < 0.4:
            for x in range(off, w, gap):
                cv2.line(img, (x, 0), (x, h), line.tolist(), 1, cv2.LINE_AA)
    return np.asarray(img, np.float32)


FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)


def print_text(rng: np.random.Generator, img: FloatImage, density: float) -> None:
    """Print random lines of text (letters, digits, dots, colons) over ``img`` in place."""
    h, w = img.shape[:2]
    chars = string.ascii_letters + string.digits + "  ...::oO*"
    scale = rng.uniform(0.3, 1.2)
    font = FONTS[int(rng.integers(len(FONTS)))]
    colour = (random_colour(rng, (0, 0.6), (0.0, 0.35))).tolist()
    step = max(8, int(28 * scale))
    mask = np.zeros((h, w), np.uint8)
    for y in range(int(rng.integers(4, step + 4)), h, step):
        if rng.random() > density:
            continue
        text = "".join(rng.choice(list(chars), int(rng.integers(10, 70))))
        x = int(rng.integers(-20, 20))
        cv2.putText(mask, text, (x, y), font, scale, 255, 1 + int(rng.random() < 0.3), cv2.LINE_AA)
    m = (mask.astype(np.float32) / 255)[..., None]
    img[:] = img * (1 - m) + np.asarray(colour, np.float32) * m


def _bg_text(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """A printed page: paper with lines of text in one font."""
    img = _bg_paper(rng, h, w)
    print_text(rng, img, rng.uniform(0.5, 1.0))
    return img


def _bg_tray(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """A dice tray: a light or grey floor with speckles and a dark rim, seen from above."""
    floor = random_colour(rng, (0.0, 0.25), (0.5, 0.95))
    img = filled(h, w, floor) * (1 + 0.04 * rng.normal(0, 1, (h, w, 1)).astype(np.float32))
    img *= 1 + 0.08 * lowfreq(rng, h, w)[..., None]
    rim = random_colour(rng, (0.0, 0.5), (0.05, 0.35)).tolist()
    t = int(rng.uniform(0.03, 0.12) * min(h, w))
    x0, y0 = int(rng.integers(-t, t + 1)), int(rng.integers(-t, t + 1))
    x1, y1 = w - int(rng.integers(-t, t + 1)), h - int(rng.integers(-t, t + 1))
    cv2.rectangle(img, (x0, y0), (x1, y1), rim, t)
    inner = (np.clip(floor * 0.85, 0, 1)).tolist()
    cv2.rectangle(
        img, (x0 + t // 2, y0 + t // 2), (x1 - t // 2, y1 - t // 2), inner, max(1, t // 4)
    )
    return np.asarray(img, np.float32)


def _bg_tiles(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """Tiles or a checkerboard with grout lines."""
    a, b = random_colour(rng, (0, 0.8), (0.2, 1.0)), random_colour(rng, (0, 0.8), (0.2, 1.0))
    size = int(rng.uniform(30, 160))
    yy, xx = np.mgrid[0:h, 0:w]
    check = ((yy // size + xx // size) % 2).astype(np.float32)[..., None]
    img = a * (1 - check) + b * check
    grout = random_colour(rng, (0, 0.3), (0.2, 0.9))
    img[(yy % size < 2) | (xx % size < 2)] = grout
    return np.asarray(img, np.float32)


def _bg_plain(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """One colour with a lighting gradient."""
    c = random_colour(rng, (0, 1), (0.1, 1.0))
    return filled(h, w, c) * (1 + 0.15 * lowfreq(rng, h, w, 3)[..., None])


def scatter_clutter(rng: np.random.Generator, img: FloatImage, n: int) -> None:
    """Draw distractors in place: shapes, dots, barcodes, spirals, text and blank squares."""
    h, w = img.shape[:2]
    for _ in range(n):
        kind = int(rng.integers(7))
        c = random_colour(rng, (0, 1), (0, 1)).tolist()
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        r = int(rng.uniform(3, 0.15 * max(h, w)))
        if kind == 0:
            cv2.rectangle(img, (x, y), (x + r, y + int(rng.uniform(0.3, 2) * r)), c, -1)
        elif kind == 1:
            cv2.circle(img, (x, y), max(2, r // 3), c, -1, cv2.LINE_AA)
        elif kind == 2:  # a few dots, pip-like
            for _ in range(int(rng.integers(2, 9))):
                cv2.circle(
                    img,
                    (x + int(rng.integers(-r, r + 1)), y + int(rng.integers(-r, r + 1))),
                    max(1, int(rng.uniform(1, 5))),
                    c,
                    -1,
                    cv2.LINE_AA,
                )
        elif kind == 3:  # barcode
            bx = x
            for _ in range(int(rng.integers(10, 40))):
                bw = int(rng.integers(1, 4))
                cv2.rectangle(img, (bx, y), (bx + bw - 1, y + r), c, -1)
                bx += bw + int(rng.integers(1, 4))
        elif kind == 4:  # notebook spiral
            for k in range(int(rng.integers(4, 15))):
                cv2.circle(img, (x, y + k * 12), 4, c, 2, cv2.LINE_AA)
        elif kind == 5:
            p2 = (x + int(rng.integers(-r, r + 1)), y + int(rng.integers(-r, r + 1)))
            cv2.line(img, (x, y), p2, c, int(rng.integers(1, 6)), cv2.LINE_AA)
        else:  # a blank die-sized square, rotated
            s = rng.uniform(10, 60)
            rect = ((float(x), float(y)), (s, s), float(rng.uniform(0, 90)))
            pts = cv2.boxPoints(rect).astype(np.int32)
            cv2.fillConvexPoly(img, pts, c, cv2.LINE_AA)


def _bg_clutter(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """A plain or felt surface with many distractors on it."""
    img = _bg_plain(rng, h, w) if rng.random() < 0.5 else _bg_felt(rng, h, w)
    scatter_clutter(rng, img, int(rng.integers(5, 25)))
    if rng.random() < 0.3:
        print_text(rng, img, 0.3)
    return img


def _bg_marble(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """Marble (held out of training): pale or dark stone with turbulent veins and speckle."""
    base = (
        random_colour(rng, (0, 0.2), (0.7, 0.95))
        if rng.random() < 0.6
        else random_colour(rng, (0, 0.3), (0.1, 0.3))
    )
    vein = random_colour(rng, (0, 0.4), (0.0, 1.0))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    turb = lowfreq(rng, h, w, 5) * 3 + lowfreq(rng, h, w, 12) * 1.2
    f = rng.uniform(0.01, 0.04)
    ang = rng.uniform(0, math.pi)
    t = np.abs(np.sin((xx * math.cos(ang) + yy * math.sin(ang)) * f + turb * 2))
    veins = (1 - t) ** rng.uniform(6, 20)
    img = base * (1 - veins[..., None]) + vein * veins[..., None]
    speck = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.0)
    return np.asarray(img * (1 + 0.08 * speck[..., None]), np.float32)


TABLES: dict[str, Callable[[np.random.Generator, int, int], FloatImage]] = {
    "wood": _bg_wood,
    "felt": _bg_felt,
    "paper": _bg_paper,
    "text": _bg_text,
    "tray": _bg_tray,
    "tiles": _bg_tiles,
    "plain": _bg_plain,
    "clutter": _bg_clutter,
    "marble": _bg_marble,
}
"""Every background style by name (``marble`` is kept out of training, to measure how the
reader does on a table it has never seen)."""


def background(rng: np.random.Generator, style: str, h: int, w: int) -> FloatImage:
    """A float BGR background of the given style in [0, 1].

    :raises ValueError: for a style not in :data:`TABLES`.
    """
    if style not in TABLES:
        raise ValueError(f"unknown background {style!r}; expected one of {', '.join(TABLES)}")
    img: FloatImage = TABLES[style](rng, h, w)
    return np.clip(img, 0, 1).astype(np.float32)


def lay_table(rng: np.random.Generator, style: str, h: int, w: int) -> FloatImage:
    """The table of ``style`` (:func:`background`); a plain, felt or wood one sometimes has a
    few things lying on it (:func:`scatter_clutter`)."""
    img = background(rng, style, h, w)
    if style in ("plain", "felt", "wood") and rng.random() < 0.25:
        scatter_clutter(rng, img, int(rng.integers(1, 6)))
    return img
