"""Scene descriptions for physically rendered dice (numpy only; :mod:`training.render` draws them).

A scene is drawn from a seed: a table (felt, wood, stone, plain), dice resting flat on it
(a face down, a random yaw, never overlapping), each with its own material (opaque, translucent,
smoky, marbled, glossy) and pip colour (white, black, red, gold), area lights, and a camera
looking down at them. Its :data:`LAYOUTS` say how many dice, how close and how steep the
camera: ``apart`` (1-8 dice apart, 0-40 degrees from straight above), ``steep`` (the same at
40-68 degrees, two or three faces of each die showing), ``heap`` (8-20 dice close together,
0-50 degrees) and ``pieces`` (1-6 dice among 3-10 game pieces that are not dice, unlabelled).
Everything the labels need is computed here, without Blender: the value on top from each die's
rotation, and each die's box as the camera sees it, projected from its rounded corners with the
same pinhole camera Blender is given.

A die's faces, in its own frame (opposite faces sum to 7; 1, 2, 3 run anticlockwise around
their shared corner, as on Western dice): 1 on +z, 6 on -z, 2 on +x, 5 on -x, 3 on +y, 4 on -y.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "FACE_NORMALS",
    "LAYOUTS",
    "MATERIALS",
    "PIECES",
    "PIP_COLOURS",
    "TABLES",
    "Camera",
    "Die",
    "Light",
    "Piece",
    "Scene",
    "die_box",
    "die_surface_points",
    "draw_scene",
    "face_frame",
    "pip_layout",
    "pip_points",
    "project",
    "resting_rotation",
    "rot_z",
    "top_value",
    "write_labels",
    "yolo_lines",
]

Vec = NDArray[np.float64]

FACE_NORMALS: dict[int, tuple[float, float, float]] = {
    1: (0.0, 0.0, 1.0),
    6: (0.0, 0.0, -1.0),
    2: (1.0, 0.0, 0.0),
    5: (-1.0, 0.0, 0.0),
    3: (0.0, 1.0, 0.0),
    4: (0.0, -1.0, 0.0),
}
"""The outward normal of each face value in the die's own frame."""

MATERIALS = ("opaque", "translucent", "smoky", "marbled", "glossy")
"""Die body materials a scene draws from."""

PIP_COLOURS: dict[str, tuple[float, float, float]] = {
    "white": (0.9, 0.9, 0.88),
    "black": (0.02, 0.02, 0.02),
    "red": (0.6, 0.02, 0.02),
    "gold": (0.9, 0.65, 0.25),
}
"""Pip colours (linear RGB; gold is rendered metallic)."""

TABLES = ("felt", "wood", "stone", "plain")
"""Table surfaces a scene draws from."""

PIECES = ("token", "cube", "coin", "road", "house", "bead")
"""Game pieces that are not dice: a number token (a disc with a printed number and dots, as
Catan's), a blank cube, a coin, a road (a long bar), a house and a bead."""

_PIP_GRID: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
    5: ((-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


def pip_layout(value: int, spacing: float = 0.5) -> list[tuple[float, float]]:
    """A face's pips as (u, v) on it, in units of half the die's edge (the face is [-1, 1]²)."""
    if value not in _PIP_GRID:
        raise ValueError(f"a die face is 1-6, not {value!r}")
    return [(spacing * u, spacing * v) for u, v in _PIP_GRID[value]]


def face_frame(value: int) -> tuple[Vec, Vec, Vec]:
    """The face's outward normal and two in-face axes (u, v), a right-handed frame (u × v = n)."""
    n = np.array(FACE_NORMALS[value])
    helper = np.array((0.0, 0.0, 1.0)) if abs(n[2]) < 0.5 else np.array((1.0, 0.0, 0.0))
    u = np.cross(helper, n)
    u /= np.linalg.norm(u)
    v = np.cross(n, u)
    return n, u, v


def pip_points(value: int, half: float = 1.0) -> list[Vec]:
    """The centres of a face's pips on the die's surface, in the die's own frame."""
    n, u, v = face_frame(value)
    return [half * (n + a * u + b * v) for a, b in pip_layout(value)]


def rot_z(angle: float) -> Vec:
    """The rotation by ``angle`` radians about the vertical (z), a 3×3 matrix."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array(((c, -s, 0.0), (s, c, 0.0), (0.0, 0.0, 1.0)))


def resting_rotation(top: int, yaw: float) -> Vec:
    """The rotation (die frame to world) that puts face ``top`` up, turned ``yaw`` radians."""
    n = np.array(FACE_NORMALS[top])
    z = np.array((0.0, 0.0, 1.0))
    if np.allclose(n, z):
        tilt = np.eye(3)
    elif np.allclose(n, -z):
        tilt = np.diag((1.0, -1.0, -1.0))  # half a turn about x
    else:  # a quarter turn about the horizontal axis n × z
        k = np.cross(n, z)
        kx = np.array(((0, -k[2], k[1]), (k[2], 0, -k[0]), (-k[1], k[0], 0)))
        tilt = np.eye(3) + kx + kx @ kx
    return rot_z(yaw) @ tilt


def top_value(rotation: Vec) -> int:
    """The value facing up (world +z) for a die turned by ``rotation`` (die frame to world)."""
    up = np.asarray(rotation)[2]  # world z of each die axis
    return max(FACE_NORMALS, key=lambda value: float(up @ np.array(FACE_NORMALS[value])))


@dataclass(frozen=True)
class Die:
    """One die: where it rests, how it is turned, what it is made of."""

    size: float
    """Edge length in metres."""
    position: tuple[float, float, float]
    """Its centre in the world (on the table: z = size / 2)."""
    rotation: tuple[tuple[float, float, float], ...]
    """Die frame to world, a 3×3 rotation."""
    value: int
    """The face on top."""
    material: str
    body_colour: tuple[float, float, float]
    second_colour: tuple[float, float, float]
    """The marbled dice's veins (unused by the others)."""
    pip_colour: str
    roughness: float
    bevel: float
    """Radius of the rounded edges as a share of the edge length."""


@dataclass(frozen=True)
class Piece:
    """A game piece lying among the dice, never labelled: one of :data:`PIECES`."""

    kind: str
    size: float
    """Its width (a road's length) in metres."""
    position: tuple[float, float, float]
    """The middle of its base, on the table."""
    yaw: float
    """Its turn about the vertical, in radians."""
    colour: tuple[float, float, float]
    number: int
    """The number printed on a token, 2-12 but 7 (0 for the other pieces)."""
    dots: int
    """Dots printed under a token's number: 6 - |7 - number|, as on Catan's (0 for the others)."""
    dot_colour: str
    """Of the token's dots and number, one of :data:`PIP_COLOURS`."""


@dataclass(frozen=True)
class Light:
    """A rectangular area light aimed at the dice (long and thin ones throw glare streaks)."""

    position: tuple[float, float, float]
    target: tuple[float, float, float]
    size: tuple[float, float]
    power: float
    """Watts."""
    warmth: float
    """0 = bluish white, 1 = warm white."""


@dataclass(frozen=True)
class Camera:
    """A pinhole camera (Blender's convention: it looks down its own -z, +y is up in the image)."""

    position: tuple[float, float, float]
    rotation: tuple[tuple[float, float, float], ...]
    """Camera frame to world, a 3×3 rotation."""
    focal_px: float
    width: int
    height: int
    tilt_deg: float
    """Angle between the view and straight down."""


@dataclass(frozen=True)
class Scene:
    """Everything one render needs, drawn from ``(seed, index)``."""

    name: str
    seed: int
    index: int
    table: str
    table_colour: tuple[float, float, float]
    table_scale: float
    dice: tuple[Die, ...]
    lights: tuple[Light, ...]
    camera: Camera
    world_strength: float
    exposure: float
    samples: int
    extra: dict[str, float] = field(default_factory=dict)
    layout: str = "apart"
    pieces: tuple[Piece, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The scene as plain JSON-ready data."""
        return asdict(self)


def _colour(
    rng: np.random.Generator,
    sat: tuple[float, float],
    val: tuple[float, float],
    hue: tuple[float, float] = (0.0, 1.0),
) -> tuple[float, float, float]:
    """A random colour from hue, saturation and value ranges (sRGB-like), as linear RGB."""
    h = float(rng.uniform(*hue))
    s = float(rng.uniform(*sat))
    v = float(rng.uniform(*val))
    i = int(h * 6) % 6
    f = h * 6 - int(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    rgb = ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))[i]
    return (rgb[0] ** 2.2, rgb[1] ** 2.2, rgb[2] ** 2.2)


def look_at(eye: Vec, target: Vec, roll: float) -> Vec:
    """Camera frame to world for a camera at ``eye`` looking at ``target`` (+y roughly up)."""
    back = eye - target
    back /= np.linalg.norm(back)
    up_hint = np.array((0.0, 1.0, 0.0)) if abs(back[2]) > 0.999 else np.array((0.0, 0.0, 1.0))
    right = np.cross(up_hint, back)
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    rot = np.stack((right, up, back), axis=1)
    return rot @ rot_z(roll)


def project(camera: Camera, points: Vec) -> Vec:
    """World points (N×3) to pixels (N×2: x right, y down from the top-left corner)."""
    rot = np.array(camera.rotation)
    local = (np.asarray(points, dtype=float) - np.array(camera.position)) @ rot
    depth = -local[:, 2]
    if np.any(depth <= 1e-9):
        raise ValueError("a point is behind the camera")
    x = camera.width / 2 + camera.focal_px * local[:, 0] / depth
    y = camera.height / 2 - camera.focal_px * local[:, 1] / depth
    return np.stack((x, y), axis=1)


def _sphere_directions(count: int = 64) -> Vec:
    """Evenly spread unit vectors (a Fibonacci sphere)."""
    i = np.arange(count) + 0.5
    z = 1 - 2 * i / count
    r = np.sqrt(1 - z * z)
    phi = math.pi * (1 + 5**0.5) * i
    return np.stack((r * np.cos(phi), r * np.sin(phi), z), axis=1)


_SPHERE = np.vstack((_sphere_directions(), np.eye(3), -np.eye(3)))
_CORNERS = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)


def die_surface_points(die: Die) -> Vec:
    """Points on the outside of the rounded die (its corners' spheres), in the world."""
    half = die.size / 2
    radius = die.bevel * die.size
    inner = _CORNERS * (half - radius)
    local = (inner[:, None, :] + radius * _SPHERE[None, :, :]).reshape(-1, 3)
    return local @ np.array(die.rotation).T + np.array(die.position)


def _pixel_box(camera: Camera, points: Vec) -> tuple[float, float, float, float]:
    """The box round world ``points`` as the camera sees them, in pixels: (x0, y0, x1, y1)."""
    xy = project(camera, points)
    return (
        float(xy[:, 0].min()),
        float(xy[:, 1].min()),
        float(xy[:, 0].max()),
        float(xy[:, 1].max()),
    )


def die_box(camera: Camera, die: Die) -> tuple[float, float, float, float]:
    """The die's box as the camera sees it, in pixels: (x0, y0, x1, y1)."""
    return _pixel_box(camera, die_surface_points(die))


def top_face_box(camera: Camera, die: Die) -> tuple[float, float, float, float]:
    """The box of the die's top face as the camera sees it, (x0, y0, x1, y1): the square
    ``1 - bevel`` of a half-side about the face's middle (its flat part and half its rounded
    edge), so it may reach a pixel past the rounded die's own box."""
    rot = np.array(die.rotation)
    up = int(np.argmax(np.abs(rot[2])))  # the die axis nearest the world's vertical
    side_a, side_b = (axis for axis in range(3) if axis != up)
    half = die.size / 2
    flat = half * (1 - die.bevel)
    corners = np.zeros((4, 3))
    corners[:, up] = math.copysign(half, rot[2, up])
    corners[:, side_a] = (-flat, -flat, flat, flat)
    corners[:, side_b] = (-flat, flat, -flat, flat)
    return _pixel_box(camera, corners @ rot.T + np.array(die.position))


def box_lines(
    camera: Camera,
    dice: Sequence[Die],
    box: Callable[[Camera, Die], tuple[float, float, float, float]] = die_box,
) -> list[str]:
    """YOLO lines ``CLASS XC YC W H`` (class = top value - 1) of each die's ``box`` as the camera
    sees it, clipped to the frame; a die wholly outside it is left out."""
    w, h = camera.width, camera.height
    lines = []
    for die in dice:
        x0, y0, x1, y1 = box(camera, die)
        x0, y0, x1, y1 = max(x0, 0.0), max(y0, 0.0), min(x1, float(w)), min(y1, float(h))
        if x1 - x0 < 1 or y1 - y0 < 1:
            continue
        xc, yc = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h
        lines.append(f"{die.value - 1} {xc:.6f} {yc:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}")
    return lines


def yolo_lines(scene: Scene) -> list[str]:
    """The scene's YOLO label lines, ``CLASS XC YC W H`` with class = top value - 1 (in frame)."""
    return box_lines(scene.camera, scene.dice)


def write_labels(scene: Scene, folder: Path) -> Path:
    """Write ``labels/NAME.txt`` for the scene under ``folder``; returns its path."""
    path = folder / "labels" / f"{scene.name}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = yolo_lines(scene)
    path.write_text("".join(line + "\n" for line in lines))
    return path


@dataclass(frozen=True)
class Layout:
    """How a scene's dice lie and how steeply the camera looks down at them."""

    dice: tuple[int, int]
    """Fewest and most dice."""
    tilt_deg: tuple[float, float]
    """The camera's angle from straight down, drawn between these."""
    gap: float
    """Centres at least this many times the sum of two dice's sizes apart (half the diagonal of
    each is 0.71 of its size: above that they never overlap)."""
    spread: tuple[float, float]
    """The dice are dropped within ``a + b * sqrt(count)`` sizes of the middle."""
    pieces: tuple[int, int] = (0, 0)
    """Fewest and most game pieces among the dice."""


LAYOUTS: dict[str, Layout] = {
    "apart": Layout((1, 8), (0.0, 40.0), 0.75 * 1.02, (1.2, 1.1)),
    "steep": Layout((1, 8), (40.0, 68.0), 0.75 * 1.02, (1.2, 1.1)),
    "heap": Layout((8, 20), (0.0, 50.0), 0.715, (0.5, 0.6)),
    "pieces": Layout((1, 6), (0.0, 60.0), 0.75 * 1.02, (1.2, 1.1), pieces=(3, 10)),
}
"""The kinds of scene :func:`draw_scene` draws, by name."""


def _place(
    rng: np.random.Generator, sizes: list[float], layout: Layout
) -> list[tuple[float, float]]:
    """Centres on the table for dice of these sizes, no two closer than the layout allows."""
    a, b = layout.spread
    spread = max(sizes) * (a + b * math.sqrt(len(sizes)))
    placed: list[tuple[float, float, float]] = []
    for size in sizes:
        for attempt in range(2000):
            radius = spread * (1 + attempt / 400)
            r = radius * math.sqrt(float(rng.uniform(0, 1)))
            a = float(rng.uniform(0, 2 * math.pi))
            x, y = r * math.cos(a), r * math.sin(a)
            if all(math.hypot(x - px, y - py) > layout.gap * (size + ps) for px, py, ps in placed):
                placed.append((x, y, size))
                break
        else:  # pragma: no cover - the spread grows until there is room
            raise RuntimeError("no room for a die")
    return [(x, y) for x, y, _ in placed]


def _frame_dice(
    rng: np.random.Generator,
    dice: list[Die],
    width: int,
    height: int,
    tilt_deg: tuple[float, float],
) -> Camera:
    """A camera looking down within ``tilt_deg`` of straight down that holds every die, filling a
    random share of the frame."""
    tilt = math.radians(float(rng.uniform(*tilt_deg)))
    azimuth = float(rng.uniform(0, 2 * math.pi))
    roll = float(rng.normal(0, 0.08))
    focal_px = width / 36 * float(rng.uniform(26, 50))  # a 26-50 mm lens on a 36 mm sensor
    centres = np.array([d.position for d in dice])
    target = centres.mean(axis=0) + np.array((*rng.normal(0, 0.2 * dice[0].size, 2), 0.0))
    direction = np.array(
        (math.sin(tilt) * math.cos(azimuth), math.sin(tilt) * math.sin(azimuth), math.cos(tilt))
    )
    fill = float(rng.uniform(0.45, 0.9))  # share of the frame the dice's boxes span at most
    margin = 0.03

    def seen_from(distance: float) -> tuple[Camera, bool, float]:
        """The camera at ``distance``, whether every die is in frame, and the share they span."""
        eye = target + distance * direction
        cam = Camera(
            position=tuple(eye.tolist()),
            rotation=tuple(tuple(row) for row in look_at(eye, target, roll).tolist()),
            focal_px=focal_px,
            width=width,
            height=height,
            tilt_deg=math.degrees(tilt),
        )
        boxes = np.array([die_box(cam, d) for d in dice])
        x0, y0 = boxes[:, 0].min(), boxes[:, 1].min()
        x1, y1 = boxes[:, 2].max(), boxes[:, 3].max()
        span = max((x1 - x0) / width, (y1 - y0) / height)
        inside = x0 > margin * width and y0 > margin * height
        inside = inside and x1 < (1 - margin) * width and y1 < (1 - margin) * height
        return cam, bool(inside), float(span)

    distance = 0.3
    for _ in range(60):
        cam, inside, span = seen_from(distance)
        if inside and abs(span - fill) < 0.02:
            break
        # Scale the distance toward the wanted fill; step back when a die is out of frame.
        distance *= (span / fill) ** 0.8 if inside else 1.15
    while not inside:  # the fill was not reached: step back until every die is in frame
        distance *= 1.15
        cam, inside, span = seen_from(distance)
    return cam


def _materials(
    rng: np.random.Generator,
) -> tuple[str, tuple[float, float, float], tuple[float, float, float], float]:
    """A die's material, body colour, second (vein) colour and roughness."""
    material = MATERIALS[int(rng.integers(len(MATERIALS)))]
    second = _colour(rng, (0.0, 0.6), (0.6, 1.0))
    if material == "opaque":
        body = _colour(rng, (0.0, 1.0), (0.15, 1.0))
        rough = float(rng.uniform(0.25, 0.6))
    elif material == "translucent":
        body = _colour(rng, (0.3, 1.0), (0.6, 1.0))
        rough = float(rng.uniform(0.0, 0.1))
    elif material == "smoky":
        grey = float(rng.uniform(0.25, 0.55))
        tint = _colour(rng, (0.0, 0.35), (0.8, 1.0))
        body = (grey * tint[0], grey * tint[1], grey * tint[2])
        rough = float(rng.uniform(0.0, 0.12))
    elif material == "marbled":
        body = _colour(rng, (0.2, 1.0), (0.2, 0.9))
        rough = float(rng.uniform(0.1, 0.4))
    else:  # glossy
        body = _colour(rng, (0.0, 1.0), (0.1, 1.0))
        rough = float(rng.uniform(0.0, 0.08))
    return material, body, second, rough


def draw_scene(
    seed: int,
    index: int,
    width: int = 512,
    height: int = 384,
    samples: int = 16,
    layout: str = "apart",
) -> Scene:
    """The scene number ``index`` of ``seed`` in ``layout`` (one of :data:`LAYOUTS`): the same
    arguments always give the same scene.

    :raises ValueError: an unknown layout.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; the layouts are {', '.join(LAYOUTS)}")
    kind = LAYOUTS[layout]
    code = list(LAYOUTS).index(layout)
    rng = np.random.default_rng([seed, index] if code == 0 else [seed, index, code])
    n = int(rng.integers(kind.dice[0], kind.dice[1] + 1))
    sizes = [float(rng.uniform(0.014, 0.022)) for _ in range(n)]
    spots = _place(rng, sizes, kind)
    pip_names = tuple(PIP_COLOURS)
    dice: list[Die] = []
    for size, (x, y) in zip(sizes, spots, strict=True):
        value = int(rng.integers(1, 7))
        rot = resting_rotation(value, float(rng.uniform(0, 2 * math.pi)))
        material, body, second, rough = _materials(rng)
        pips = pip_names[int(rng.integers(len(pip_names)))]
        lum = 0.2126 * body[0] + 0.7152 * body[1] + 0.0722 * body[2]
        if pips == "white" and material == "opaque" and lum > 0.3:
            pips = "black"  # white pips on a white die cannot be read by anyone
        if pips == "black" and (material == "smoky" or lum < 0.06):
            pips = ("white", "red", "gold")[int(rng.integers(3))]  # nor black on black
        dice.append(
            Die(
                size=size,
                position=(x, y, size / 2),
                rotation=tuple(tuple(row) for row in rot.tolist()),
                value=value,
                material=material,
                body_colour=body,
                second_colour=second,
                pip_colour=pips,
                roughness=rough,
                bevel=(0.08, 0.12, 0.16)[int(rng.integers(3))],
            )
        )
    table = TABLES[int(rng.integers(len(TABLES)))]
    table_colour = {
        "felt": lambda: _colour(rng, (0.4, 0.9), (0.2, 0.6)),
        "wood": lambda: _colour(rng, (0.4, 0.8), (0.3, 0.85), hue=(0.04, 0.11)),
        "stone": lambda: _colour(rng, (0.0, 0.15), (0.2, 0.8)),
        "plain": lambda: _colour(rng, (0.0, 0.6), (0.2, 0.95)),
    }[table]()
    camera = _frame_dice(rng, dice, width, height, kind.tilt_deg)
    centre = np.array(camera.position)
    lights = []
    for k in range(int(rng.integers(1, 4))):
        along = float(rng.uniform(0.05, 0.5))
        across = (
            along * float(rng.uniform(0.03, 0.3))
            if k == 0
            else along * float(rng.uniform(0.3, 1.0))
        )
        a = float(rng.uniform(0, 2 * math.pi))
        height_m = float(rng.uniform(0.4, 1.5))
        off = float(rng.uniform(0.0, 0.8))
        # The first light sits roughly opposite the camera so its reflection crosses the dice.
        if k == 0:
            flat = -centre[:2] / max(float(np.linalg.norm(centre[:2])), 1e-6)
            pos = (float(flat[0]) * off, float(flat[1]) * off, height_m)
        else:
            pos = (off * math.cos(a), off * math.sin(a), height_m)
        lights.append(
            Light(
                position=pos,
                target=(float(rng.normal(0, 0.03)), float(rng.normal(0, 0.03)), 0.0),
                size=(along, across),
                power=float(rng.uniform(3, 12)) * height_m**2 * (1.0 if k == 0 else 0.5),
                warmth=float(rng.uniform(0, 1)),
            )
        )
    pieces = _pieces(rng, dice, kind.pieces)
    return Scene(
        name=f"render-s{seed}-{index:05d}" if code == 0 else f"render-{layout}-s{seed}-{index:05d}",
        seed=seed,
        index=index,
        table=table,
        table_colour=table_colour,
        table_scale=float(rng.uniform(0.5, 2.0)),
        dice=tuple(dice),
        lights=tuple(lights),
        camera=camera,
        world_strength=float(rng.uniform(0.05, 0.5)),
        exposure=float(rng.normal(0, 0.3)),
        samples=samples,
        extra={"noise_seed": float(rng.integers(0, 2**31 - 1))},
        layout=layout,
        pieces=pieces,
    )


def _pieces(rng: np.random.Generator, dice: list[Die], count: tuple[int, int]) -> tuple[Piece, ...]:
    """``count`` (fewest, most) game pieces on the table among ``dice``, none touching a die or
    another piece (nothing is drawn from ``rng`` for none)."""
    if count[1] == 0:
        return ()
    unit = max(d.size for d in dice)
    centres = np.array([d.position[:2] for d in dice])
    middle = centres.mean(axis=0)
    reach = float(np.linalg.norm(centres - middle, axis=1).max()) + 2 * unit
    taken = [(float(x), float(y), d.size * 0.75) for (x, y), d in zip(centres, dice, strict=True)]
    out: list[Piece] = []
    for _ in range(int(rng.integers(count[0], count[1] + 1))):
        kind = PIECES[int(rng.integers(len(PIECES)))]
        size = unit * float(
            {"token": rng.uniform(1.3, 1.9), "cube": rng.uniform(0.5, 1.0),
             "coin": rng.uniform(1.0, 1.6), "road": rng.uniform(2.0, 3.0),
             "house": rng.uniform(0.8, 1.3), "bead": rng.uniform(0.5, 1.0)}[kind]
        )  # fmt: skip
        colour = (
            _colour(rng, (0.15, 0.4), (0.7, 0.95), hue=(0.08, 0.14))
            if kind == "token"
            else _colour(rng, (0.0, 1.0), (0.2, 1.0))
        )
        number = int(rng.choice((2, 3, 4, 5, 6, 8, 9, 10, 11, 12))) if kind == "token" else 0
        dots = 6 - abs(7 - number) if number else 0
        dot_colour = ("black", "red")[int(rng.integers(2))]
        yaw = float(rng.uniform(0, 2 * math.pi))
        for _attempt in range(200):
            r = reach * math.sqrt(float(rng.uniform(0, 1)))
            a = float(rng.uniform(0, 2 * math.pi))
            x, y = middle[0] + r * math.cos(a), middle[1] + r * math.sin(a)
            if all(math.hypot(x - px, y - py) > size * 0.75 + pr for px, py, pr in taken):
                taken.append((x, y, size * 0.75))
                out.append(Piece(kind, size, (x, y, 0.0), yaw, colour, number, dots, dot_colour))
                break
    return tuple(out)
