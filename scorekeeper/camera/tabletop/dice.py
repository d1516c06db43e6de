"""Drawing a die: its face texture, colours and material, its pose, shadow, side faces, glare
and a glossy streak."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from scorekeeper.camera.tabletop.paint import Box, FloatImage, filled, lowfreq, luma, random_colour

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
    img = filled(PATCH, PATCH, face)
    if marble is not None:
        m = swirl_mask(rng) if swirl else np.clip(lowfreq(rng, PATCH, PATCH, 5) * 2, 0, 1) ** 2
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


def swirl_mask(rng: np.random.Generator) -> FloatImage:
    """A PATCH×PATCH mask in [0, 1] of turbulent bands, as in a marbled die."""
    yy, xx = np.mgrid[0:PATCH, 0:PATCH].astype(np.float32) / PATCH
    ang = rng.uniform(0, math.pi)
    turb = lowfreq(rng, PATCH, PATCH, 3) * rng.uniform(1.5, 4) + lowfreq(rng, PATCH, PATCH, 7)
    t = np.sin((xx * math.cos(ang) + yy * math.sin(ang)) * rng.uniform(4, 12) + turb * 2)
    m = np.clip((t - rng.uniform(-0.3, 0.6)) * rng.uniform(2, 8), 0, 1)
    return np.asarray(m, np.float32)


def paste_patch(
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


def die_style(
    rng: np.random.Generator, colour_pips: float = 0.0, swirls: bool = False
) -> dict[str, Any]:
    """Random colours and material of one die (or of a set of dice); ``colour_pips`` of them
    with saturated pips that may differ from the face in hue more than in grey level; with
    ``swirls``, marbled dice have swirling bands instead of blotches."""
    r = rng.random()
    if r < 0.35:
        face = random_colour(rng, (0, 0.15), (0.75, 1.0))
    elif r < 0.5:
        face = random_colour(rng, (0, 0.4), (0.05, 0.25))
    else:
        face = random_colour(rng, (0.35, 1.0), (0.3, 1.0))
    lf = luma(face)
    if rng.random() < 0.75:
        pip = (
            random_colour(rng, (0, 0.3), (0.0, 0.15))
            if lf > 0.5
            else random_colour(rng, (0, 0.2), (0.85, 1))
        )
    else:
        pip = random_colour(rng, (0, 1), (0, 1))
    if colour_pips and rng.random() < colour_pips:  # no draw at 0: old scenes stay the same
        pip = random_colour(rng, (0.6, 1.0), (0.55, 1.0))  # e.g. red pips on a smoky die
        if float(np.abs(pip - face).max()) < 0.4:
            pip = 1.0 - face
    elif abs(luma(pip) - lf) < 0.25:
        pip = np.zeros(3, np.float32) if lf > 0.5 else np.ones(3, np.float32) * 0.95
    return {
        "face": face,
        "pip": pip,
        "marble": random_colour(rng, (0, 1), (0.1, 0.9)) if rng.random() < 0.15 else None,
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

    ``streak`` is the chance of a specular streak across the top face (:func:`draw_streak`)."""
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
            paste_patch(
                img, patch, np.ones((PATCH, PATCH), np.float32), side_quad, style["opacity"] * 0.9
            )
    cv2.fillConvexPoly(img, np.round(quad).astype(np.int32), body.tolist(), cv2.LINE_AA)
    patch, alpha = face_patch(rng, value, style["face"], style["pip"], **kw)
    paste_patch(img, patch, alpha, quad, style["opacity"])
    if rng.random() < 0.2 and not clean:  # glare
        gx, gy = quad.mean(axis=0) + rng.normal(0, 0.25 * side, 2)
        yy, xx = np.ogrid[0:h, 0:w]
        rad = side * rng.uniform(0.08, 0.35)
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * rad * rad)).astype(np.float32)
        img += (1 - img) * rng.uniform(0.3, 0.9) * blob[..., None]
    if streak and not clean and rng.random() < streak:  # no draw at 0: old scenes stay the same
        draw_streak(rng, img, quad, side)
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def draw_streak(rng: np.random.Generator, img: FloatImage, quad: FloatImage, side: float) -> None:
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
