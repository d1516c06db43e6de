"""Seeded synthetic dice scenes (numpy + OpenCV only) for training, tests and the demo camera.

A scene is a background (wood, felt, paper, printed text, a dice tray, tiles, plain or cluttered;
``marble`` is kept out of training to measure generalisation) with dice of many colours, pip
colours and sizes, rotated and seen at an angle (side faces with their own pips), with shadows,
glare, translucent or marbled dice, lighting gradients, blur, noise and JPEG artefacts.
Labels are the face value and the box of the top face in pixels.
"""

from __future__ import annotations

import math
import string
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Box = tuple[float, float, float, float]
Label = tuple[int, Box]
FloatImage = NDArray[Any]

TRAIN_BACKGROUNDS = ("wood", "felt", "paper", "text", "tray", "tiles", "plain", "clutter")
"""Background styles used for training."""

HELD_OUT_BACKGROUNDS = ("marble",)
"""Background styles never used in training (to estimate generalisation)."""

BACKGROUNDS = TRAIN_BACKGROUNDS + HELD_OUT_BACKGROUNDS
"""Every background style :func:`render_scene` knows."""

PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.5), (0.75, 0.5), (0.25, 0.75), (0.75, 0.75)),
}
"""Pip centres of each face as fractions of the face's side."""

PATCH = 96
"""Side in pixels of the face texture drawn before it is warped into the scene."""


def _rng(seed: int | np.random.Generator) -> np.random.Generator:
    """A generator from a seed, or the generator itself."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _lowfreq(rng: np.random.Generator, h: int, w: int, cells: int = 6) -> FloatImage:
    """Smooth noise in [-1, 1] of shape (h, w) from a coarse random grid."""
    gh, gw = max(2, cells * h // max(h, w) + 1), max(2, cells * w // max(h, w) + 1)
    grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return np.asarray(cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def _colour(
    rng: np.random.Generator, sat: tuple[float, float], val: tuple[float, float]
) -> FloatImage:
    """A random BGR colour in [0, 1] with saturation and value in the given ranges."""
    hsv = np.array(
        [[[rng.uniform(0, 180), rng.uniform(*sat) * 255, rng.uniform(*val) * 255]]], np.uint8
    )
    return np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0], np.float32) / 255


def _luma(c: FloatImage) -> float:
    """Grey level of a BGR colour in [0, 1]."""
    return float(0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2])


def _fill(h: int, w: int, colour: FloatImage) -> FloatImage:
    """An (h, w, 3) image of one colour."""
    out = np.empty((h, w, 3), np.float32)
    out[:] = colour
    return out


def _bg_wood(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """Wood grain: warped stripes between two tones, with plank seams."""
    a, b = _colour(rng, (0.2, 0.7), (0.45, 0.95)), _colour(rng, (0.2, 0.8), (0.3, 0.8))
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
    warp = _lowfreq(rng, h, w, 4) * rng.uniform(5, 30) + np.sin(u * rng.uniform(0.005, 0.03)) * 8
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
    c = _colour(rng, (0.3, 1.0), (0.15, 0.8))
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.8)
    img = _fill(h, w, c) * (1 + 0.06 * fine[..., None] + 0.08 * _lowfreq(rng, h, w)[..., None])
    return img


def _bg_paper(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """Paper: near white, faint grain, sometimes ruled or squared lines."""
    c = _colour(rng, (0.0, 0.15), (0.8, 1.0))
    img = _fill(h, w, c) * (1 + 0.02 * rng.normal(0, 1, (h, w, 1)).astype(np.float32))
    if rng.random() < 0.6:
        gap = int(rng.uniform(14, 36))
        line = _colour(rng, (0.3, 0.8), (0.4, 0.9))
        off = int(rng.integers(0, gap))
        for y in range(off, h, gap):
            cv2.line(img, (0, y), (w, y), line.tolist(), 1, cv2.LINE_AA)
        if rng.random() < 0.4:
            for x in range(off, w, gap):
                cv2.line(img, (x, 0), (x, h), line.tolist(), 1, cv2.LINE_AA)
    return np.asarray(img, np.float32)


_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)


def _text_lines(rng: np.random.Generator, img: FloatImage, density: float) -> None:
    """Print random lines of text (letters, digits, dots, colons) over ``img`` in place."""
    h, w = img.shape[:2]
    chars = string.ascii_letters + string.digits + "  ...::oO*"
    scale = rng.uniform(0.3, 1.2)
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    colour = (_colour(rng, (0, 0.6), (0.0, 0.35))).tolist()
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
    _text_lines(rng, img, rng.uniform(0.5, 1.0))
    return img


def _bg_tray(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """A dice tray: a light or grey floor with speckles and a dark rim, seen from above."""
    floor = _colour(rng, (0.0, 0.25), (0.5, 0.95))
    img = _fill(h, w, floor) * (1 + 0.04 * rng.normal(0, 1, (h, w, 1)).astype(np.float32))
    img *= 1 + 0.08 * _lowfreq(rng, h, w)[..., None]
    rim = _colour(rng, (0.0, 0.5), (0.05, 0.35)).tolist()
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
    a, b = _colour(rng, (0, 0.8), (0.2, 1.0)), _colour(rng, (0, 0.8), (0.2, 1.0))
    size = int(rng.uniform(30, 160))
    yy, xx = np.mgrid[0:h, 0:w]
    check = ((yy // size + xx // size) % 2).astype(np.float32)[..., None]
    img = a * (1 - check) + b * check
    grout = _colour(rng, (0, 0.3), (0.2, 0.9))
    img[(yy % size < 2) | (xx % size < 2)] = grout
    return np.asarray(img, np.float32)


def _bg_plain(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """One colour with a lighting gradient."""
    c = _colour(rng, (0, 1), (0.1, 1.0))
    return _fill(h, w, c) * (1 + 0.15 * _lowfreq(rng, h, w, 3)[..., None])


def _clutter(rng: np.random.Generator, img: FloatImage, n: int) -> None:
    """Draw distractors in place: shapes, dots, barcodes, spirals, text and blank squares."""
    h, w = img.shape[:2]
    for _ in range(n):
        kind = int(rng.integers(7))
        c = _colour(rng, (0, 1), (0, 1)).tolist()
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


def _decoys(rng: np.random.Generator, img: FloatImage, n: int, side: float) -> None:
    """Draw die-sized things that are not dice in place: a lone spot or ring (a pip with no
    die around it), a dark bead with a highlight, a coin, a screw head; some cast a shadow."""
    h, w = img.shape[:2]
    for _ in range(n):
        kind = int(rng.integers(5))
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        dark = rng.random() < 0.6
        c = _colour(rng, (0, 1), (0, 0.35) if dark else (0.5, 1.0))
        angle = float(rng.uniform(0, 180))
        if kind == 0:  # a lone spot
            r = side * rng.uniform(0.05, 0.2)
            axes = (r, r * rng.uniform(0.7, 1.0))
        elif kind == 1:  # a ring
            r = side * rng.uniform(0.08, 0.35)
            axes = (r, r * rng.uniform(0.7, 1.0))
        elif kind == 2:  # a bead or a blob
            axes = (side * rng.uniform(0.25, 0.6), side * rng.uniform(0.12, 0.4))
            c = _colour(rng, (0, 0.5), (0, 0.3))
        else:  # a coin or a screw head
            r = side * (rng.uniform(0.3, 0.55) if kind == 3 else rng.uniform(0.12, 0.3))
            axes = (r, r * rng.uniform(0.8, 1.0))
            c = _colour(rng, (0.1, 0.6), (0.35, 0.85))
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


def _bg_clutter(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """A plain or felt surface with many distractors on it."""
    img = _bg_plain(rng, h, w) if rng.random() < 0.5 else _bg_felt(rng, h, w)
    _clutter(rng, img, int(rng.integers(5, 25)))
    if rng.random() < 0.3:
        _text_lines(rng, img, 0.3)
    return img


def _bg_marble(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """Marble (held out of training): pale or dark stone with turbulent veins and speckle."""
    base = (
        _colour(rng, (0, 0.2), (0.7, 0.95))
        if rng.random() < 0.6
        else _colour(rng, (0, 0.3), (0.1, 0.3))
    )
    vein = _colour(rng, (0, 0.4), (0.0, 1.0))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    turb = _lowfreq(rng, h, w, 5) * 3 + _lowfreq(rng, h, w, 12) * 1.2
    f = rng.uniform(0.01, 0.04)
    ang = rng.uniform(0, math.pi)
    t = np.abs(np.sin((xx * math.cos(ang) + yy * math.sin(ang)) * f + turb * 2))
    veins = (1 - t) ** rng.uniform(6, 20)
    img = base * (1 - veins[..., None]) + vein * veins[..., None]
    speck = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.0)
    return np.asarray(img * (1 + 0.08 * speck[..., None]), np.float32)


_BG: dict[str, Any] = {
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


def background(rng: np.random.Generator, style: str, h: int, w: int) -> FloatImage:
    """A float BGR background of the given style in [0, 1].

    :raises ValueError: for a style not in :data:`BACKGROUNDS`.
    """
    if style not in _BG:
        raise ValueError(f"unknown background {style!r}; expected one of {', '.join(BACKGROUNDS)}")
    img: FloatImage = _BG[style](rng, h, w)
    return np.clip(img, 0, 1).astype(np.float32)


def face_patch(
    rng: np.random.Generator,
    value: int,
    face: FloatImage,
    pip: FloatImage,
    *,
    pip_radius: float,
    marble: FloatImage | None = None,
    swirl: bool = False,
) -> tuple[FloatImage, FloatImage]:
    """A PATCH×PATCH face texture with ``value`` pips, and its rounded-corner alpha mask.

    ``marble`` mixes in a second colour as round blotches, or as swirling bands with ``swirl``.
    """
    img = _fill(PATCH, PATCH, face)
    if marble is not None:
        m = _swirl(rng) if swirl else np.clip(_lowfreq(rng, PATCH, PATCH, 5) * 2, 0, 1) ** 2
        img = img * (1 - m[..., None]) + marble * m[..., None]
    img = img * (1 + 0.03 * rng.normal(0, 1, (PATCH, PATCH, 1)).astype(np.float32))
    margin = rng.uniform(0.0, 0.05)
    r = pip_radius * PATCH
    ring = rng.random() < 0.15
    for fx, fy in PIP_LAYOUT[value]:
        cx = (margin + fx * (1 - 2 * margin)) * PATCH + rng.normal(0, 0.6)
        cy = (margin + fy * (1 - 2 * margin)) * PATCH + rng.normal(0, 0.6)
        centre = (round(cx * 16), round(cy * 16))
        cv2.circle(img, centre, round(r * 16), pip.tolist(), -1, cv2.LINE_AA, 4)
        if ring:
            cv2.circle(img, centre, round(r * 16), (face * 0.6).tolist(), 2, cv2.LINE_AA, 4)
    alpha = np.zeros((PATCH, PATCH), np.float32)
    rad = int(rng.uniform(0.04, 0.2) * PATCH)
    cv2.rectangle(alpha, (rad, 0), (PATCH - 1 - rad, PATCH - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, rad), (PATCH - 1, PATCH - 1 - rad), 1.0, -1)
    for x, y in (
        (rad, rad),
        (PATCH - 1 - rad, rad),
        (rad, PATCH - 1 - rad),
        (PATCH - 1 - rad, PATCH - 1 - rad),
    ):
        cv2.circle(alpha, (x, y), rad, 1.0, -1, cv2.LINE_AA)
    return img, alpha


def _swirl(rng: np.random.Generator) -> FloatImage:
    """A PATCH×PATCH mask in [0, 1] of turbulent bands, as in a marbled die."""
    yy, xx = np.mgrid[0:PATCH, 0:PATCH].astype(np.float32) / PATCH
    ang = rng.uniform(0, math.pi)
    turb = _lowfreq(rng, PATCH, PATCH, 3) * rng.uniform(1.5, 4) + _lowfreq(rng, PATCH, PATCH, 7)
    t = np.sin((xx * math.cos(ang) + yy * math.sin(ang)) * rng.uniform(4, 12) + turb * 2)
    m = np.clip((t - rng.uniform(-0.3, 0.6)) * rng.uniform(2, 8), 0, 1)
    return np.asarray(m, np.float32)


def _paste(
    img: FloatImage, patch: FloatImage, alpha: FloatImage, quad: FloatImage, opacity: float
) -> None:
    """Warp ``patch`` (with ``alpha``) onto the quadrilateral ``quad`` of ``img`` in place."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [PATCH, 0], [PATCH, PATCH], [0, PATCH]], np.float32)
    m = cv2.getPerspectiveTransform(src, (quad - np.array([x0, y0], np.float32)).astype(np.float32))
    size = (int(x1 - x0), int(y1 - y0))
    warped = cv2.warpPerspective(patch, m, size, flags=cv2.INTER_AREA)
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR)[..., None] * opacity
    roi = img[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + warped * a


def _die_style(
    rng: np.random.Generator, colour_pips: float = 0.0, swirls: bool = False
) -> dict[str, Any]:
    """Random colours and material of one die (or of a set of dice); ``colour_pips`` of them
    with saturated pips that may differ from the face in hue more than in grey level; with
    ``swirls``, marbled dice have swirling bands instead of blotches."""
    r = rng.random()
    if r < 0.35:
        face = _colour(rng, (0, 0.15), (0.75, 1.0))
    elif r < 0.5:
        face = _colour(rng, (0, 0.4), (0.05, 0.25))
    else:
        face = _colour(rng, (0.35, 1.0), (0.3, 1.0))
    lf = _luma(face)
    if rng.random() < 0.75:
        pip = _colour(rng, (0, 0.3), (0.0, 0.15)) if lf > 0.5 else _colour(rng, (0, 0.2), (0.85, 1))
    else:
        pip = _colour(rng, (0, 1), (0, 1))
    if colour_pips and rng.random() < colour_pips:  # no draw at 0: old scenes stay the same
        pip = _colour(rng, (0.6, 1.0), (0.55, 1.0))  # e.g. red pips on a smoky die
        if float(np.abs(pip - face).max()) < 0.4:
            pip = 1.0 - face
    elif abs(_luma(pip) - lf) < 0.25:
        pip = np.zeros(3, np.float32) if lf > 0.5 else np.ones(3, np.float32) * 0.95
    return {
        "face": face,
        "pip": pip,
        "marble": _colour(rng, (0, 1), (0.1, 0.9)) if rng.random() < 0.15 else None,
        "opacity": rng.uniform(0.65, 0.9) if rng.random() < 0.15 else 1.0,
        "pip_radius": rng.uniform(0.07, 0.12),
        "swirl": swirls,
    }


def draw_die(
    rng: np.random.Generator,
    img: FloatImage,
    cx: float,
    cy: float,
    side: float,
    value: int,
    style: dict[str, Any],
    tilt: float,
    extrude: float,
    *,
    clean: bool = False,
    streak: float = 0.0,
) -> Box:
    """Draw one die at (cx, cy) with top-face side ``side`` in place; returns the top face box.

    ``streak`` is the chance of a specular streak across the top face (:func:`_streak`)."""
    theta = rng.uniform(0, 2 * math.pi)
    phi = rng.uniform(0, 2 * math.pi)
    half = side / 2
    sq = np.array([[-half, -half], [half, -half], [half, half], [-half, half]], np.float32)
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    rp = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
    squash = rp @ np.diag([1.0, math.cos(tilt)]) @ rp.T
    quad = (sq @ rot.T @ squash.T + rng.normal(0, 0.03 * side, (4, 2))).astype(np.float32)
    quad += np.array([cx, cy], np.float32)
    d = (np.array([-math.sin(phi), math.cos(phi)]) * extrude * side).astype(np.float32)
    if rng.random() < 0.5:
        d = -d
    kw = {"pip_radius": style["pip_radius"], "marble": style["marble"], "swirl": style["swirl"]}
    # shadow under the die
    h, w = img.shape[:2]
    if rng.random() < 0.7:
        sv = rng.normal(0, 0.25 * side, 2).astype(np.float32)
        hull = cv2.convexHull(np.concatenate([quad, quad + d]) + sv).astype(np.int32)
        mask = np.zeros((h, w), np.float32)
        cv2.fillConvexPoly(mask, hull, 1.0, cv2.LINE_AA)
        mask = np.asarray(
            cv2.GaussianBlur(mask, (0, 0), max(0.5, side * rng.uniform(0.05, 0.25))), np.float32
        )
        img *= 1 - rng.uniform(0.2, 0.6) * mask[..., None]
    # visible side faces, darker, with pips of their own
    body = (style["face"] * float(rng.uniform(0.45, 0.85))).astype(np.float32)
    if extrude > 0.02:
        centre = quad.mean(axis=0)
        for i in range(4):
            p, q = quad[i], quad[(i + 1) % 4]
            normal = (p + q) / 2 - centre
            if float(normal @ d) <= 0:
                continue
            shade = float(rng.uniform(0.4, 0.85))
            patch, _ = face_patch(
                rng, int(rng.integers(1, 7)), style["face"] * shade, style["pip"] * shade, **kw
            )
            side_quad = np.array([p, q, q + d, p + d], np.float32)
            cv2.fillConvexPoly(
                img, np.round(side_quad).astype(np.int32), body.tolist(), cv2.LINE_AA
            )
            _paste(
                img, patch, np.ones((PATCH, PATCH), np.float32), side_quad, style["opacity"] * 0.9
            )
    cv2.fillConvexPoly(img, np.round(quad).astype(np.int32), body.tolist(), cv2.LINE_AA)
    patch, alpha = face_patch(rng, value, style["face"], style["pip"], **kw)
    _paste(img, patch, alpha, quad, style["opacity"])
    if rng.random() < 0.2 and not clean:  # glare
        gx, gy = quad.mean(axis=0) + rng.normal(0, 0.25 * side, 2)
        yy, xx = np.ogrid[0:h, 0:w]
        rad = side * rng.uniform(0.08, 0.35)
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * rad * rad)).astype(np.float32)
        img += (1 - img) * rng.uniform(0.3, 0.9) * blob[..., None]
    if streak and not clean and rng.random() < streak:  # no draw at 0: old scenes stay the same
        _streak(rng, img, quad, side)
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def _streak(rng: np.random.Generator, img: FloatImage, quad: FloatImage, side: float) -> None:
    """A glossy die's specular streak in place: a thin bright band, straight or gently curved,
    across the top face ``quad`` near its middle (where a 4's or a 6's face has no pip), at times
    with a brighter spot on it, as a light tube reflects on the tray photos' glossy dice."""
    h, w = img.shape[:2]
    centre = quad.mean(axis=0) + rng.normal(0, 0.12 * side, 2)
    x0, y0 = np.floor(quad.min(axis=0) - side).astype(int).clip(0)
    x1, y1 = np.ceil(quad.max(axis=0) + side).astype(int)
    x1, y1 = min(int(x1), w), min(int(y1), h)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    s = 4  # drawn at 4× and shrunk, for sub-pixel widths
    mask = np.zeros(((y1 - y0) * s, (x1 - x0) * s), np.float32)
    angle = float(rng.uniform(0, 180))
    length = side * float(rng.uniform(0.6, 1.1))
    thick = max(1, round(side * float(rng.uniform(0.03, 0.09)) * s))
    cx, cy = (centre[0] - x0) * s, (centre[1] - y0) * s
    if rng.random() < 0.5:  # straight
        dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        p = (round(cx - dx * length * s / 2), round(cy - dy * length * s / 2))
        q = (round(cx + dx * length * s / 2), round(cy + dy * length * s / 2))
        cv2.line(mask, p, q, 1.0, thick, cv2.LINE_AA)
    else:  # an arc of a circle 1-4 sides across, its middle on the centre
        r = side * float(rng.uniform(1.0, 4.0)) * s
        sweep = math.degrees(length * s / r)
        ox = cx - r * math.cos(math.radians(angle))
        oy = cy - r * math.sin(math.radians(angle))
        cv2.ellipse(
            mask,
            (round(ox), round(oy)),
            (round(r), round(r)),
            0,
            angle - sweep / 2,
            angle + sweep / 2,
            1.0,
            thick,
            cv2.LINE_AA,
        )
    if rng.random() < 0.5:  # a brighter spot somewhere on it
        t = float(rng.uniform(-0.3, 0.3)) * length * s
        dx, dy = math.cos(math.radians(angle + 90)), math.sin(math.radians(angle + 90))
        rad = max(1, round(thick * float(rng.uniform(0.8, 1.6))))
        cv2.circle(mask, (round(cx + dx * t), round(cy + dy * t)), rad, 1.0, -1, cv2.LINE_AA)
    face = np.zeros_like(mask)
    cv2.fillConvexPoly(face, np.round((quad - [x0, y0]) * s).astype(np.int32), 1.0, cv2.LINE_AA)
    mask = cv2.resize(mask * face, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.3, side * float(rng.uniform(0.005, 0.02))))
    region = img[y0:y1, x0:x1]
    region += (1 - region) * float(rng.uniform(0.5, 0.95)) * mask[..., None]


def _finish(rng: np.random.Generator, img: FloatImage, side: float) -> NDArray[np.uint8]:
    """Lighting, colour cast, blur, noise and JPEG artefacts; returns uint8 BGR."""
    h, w = img.shape[:2]
    img = img * (1 + 0.35 * _lowfreq(rng, h, w, 3)[..., None] * rng.random())
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


def _finish_clean(rng: np.random.Generator, img: FloatImage) -> NDArray[np.uint8]:
    """Mild lighting, slight blur and noise: a well-lit, focused camera frame."""
    h, w = img.shape[:2]
    img = img * (1 + 0.1 * _lowfreq(rng, h, w, 3)[..., None]) * rng.uniform(0.9, 1.1)
    img = cv2.GaussianBlur(np.clip(img, 0, 1).astype(np.float32), (0, 0), 0.6)
    img = img + rng.normal(0, 0.01, img.shape).astype(np.float32)
    return np.ascontiguousarray(np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8))


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
) -> tuple[NDArray[np.uint8], list[Label]]:
    """A synthetic BGR scene and its labels ``[(value, (x0, y0, x1, y1)), ...]`` (top faces).

    The same seed gives the same scene. ``die_size`` bounds the top face's side in pixels;
    ``background_style`` picks one style, else one of ``styles`` is drawn at random.
    ``clean`` renders a well-lit, focused frame (opaque plain dice, no glare, less tilt, mild
    blur and noise). ``decoys`` die-sized things that are not dice (spots, rings, beads, coins,
    screw heads) are drawn on the background first. ``colour_pips`` is the share of dice styles
    whose pips stand out by colour more than by grey level (red pips on a smoky die).
    ``swirls`` draws marbled dice with swirling bands rather than blotches. ``streaks`` is each
    die's chance of a specular streak across its top face.

    >>> img, labels = render_scene(3, 160, 120, n_dice=2, die_size=(20, 30))
    >>> img.shape, img.dtype, len(labels), all(1 <= v <= 6 for v, _ in labels)
    ((120, 160, 3), dtype('uint8'), 2, True)
    """
    rng = _rng(seed)
    style_name = background_style or styles[int(rng.integers(len(styles)))]
    img = background(rng, style_name, height, width)
    if style_name in ("plain", "felt", "wood") and rng.random() < 0.25:
        _clutter(rng, img, int(rng.integers(1, 6)))
    base = rng.uniform(*die_size)
    if decoys:
        _decoys(rng, img, decoys, base)
    n = n_dice if n_dice is not None else int(rng.integers(1, 7))
    one_set = rng.random() < 0.4
    shared_style = _die_style(rng, colour_pips, swirls)
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
        style = shared_style if one_set else _die_style(rng, colour_pips, swirls)
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
    return (_finish_clean(rng, img) if clean else _finish(rng, img, base)), labels
