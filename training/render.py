"""Physically rendered dice (Blender's Cycles on the CPU, through the ``bpy`` module) for training.

    make render [RENDER_OUT=../rendered-dice] [RENDER_COUNT=300] [RENDER_SEED=0]
    .venv-render/bin/python -m training.render --out DIR --count N --seed S [--threads 1]

Renders the scenes of :mod:`training.dice_scene` (the same ``--seed`` and ``--count`` give the
same scenes): rounded dice with recessed pips, opaque, translucent, smoky, marbled and glossy,
lit by area lights whose reflections streak across the faces, on felt, wood, stone or a plain
table. Writes ``images/NAME.jpg`` and ``labels/NAME.txt`` (YOLO lines ``CLASS XC YC W H``,
class = top value - 1, the box the whole die as seen) under ``--out`` (the layout of ``make
data``) and ``scenes.jsonl`` (each scene's description and render seconds), and prints each
image's render time and the total. ``bpy`` needs its own Python 3.11 environment
(``.venv-render``, made by ``make render``); the labels come from :mod:`training.dice_scene`
alone, so they are tested without Blender.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from training.dice_scene import (
    LAYOUTS,
    PIP_COLOURS,
    Die,
    Piece,
    Scene,
    die_surface_points,
    draw_scene,
    face_frame,
    pip_layout,
    project,
    rot_z,
    write_labels,
)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT.parent / "rendered-dice"

PIP_RADIUS = 0.085
"""A pip's radius as a share of the edge."""
PIP_DEPTH = 0.035
"""How deep a pip is recessed, as a share of the edge."""

bpy: Any = None  # imported by _blender(): the module is big and absent outside .venv-render


def _blender() -> Any:
    """Import ``bpy`` (once), or exit with a message saying how to get it."""
    global bpy
    if bpy is None:
        try:
            import bpy as module
        except ImportError:
            print(
                "error: Blender's bpy module is not installed in this Python. "
                "Run `make render` (it makes .venv-render with bpy for Python 3.11).",
                file=sys.stderr,
            )
            sys.exit(2)
        bpy = module
    return bpy


# --- meshes -----------------------------------------------------------------------------------


def _die_mesh(bevel: float) -> Any:
    """A unit die (edge 1, centred) with rounded edges and recessed pips; pips use material 1."""
    import bmesh

    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.bevel(
        bm,
        geom=list(bm.edges) + list(bm.verts),
        offset=bevel,
        segments=4,
        profile=0.5,
        affect="EDGES",
        clamp_overlap=True,
    )
    body = bpy.data.meshes.new("die-body")
    bm.to_mesh(body)
    bm.free()

    # One cutter holding a sphere per pip, each cutting a dimple PIP_RADIUS wide, PIP_DEPTH deep.
    sphere_r = (PIP_RADIUS**2 + PIP_DEPTH**2) / (2 * PIP_DEPTH)
    lift = sphere_r - PIP_DEPTH
    bm = bmesh.new()
    centres = []
    for value in range(1, 7):
        n, u, v = face_frame(value)
        for a, b in pip_layout(value):
            c = 0.5 * (n + a * u + b * v) + lift * n
            centres.append(c)
            bmesh.ops.create_uvsphere(
                bm,
                u_segments=32,
                v_segments=16,
                radius=sphere_r,
                matrix=_translation(c),
            )
    cutter_mesh = bpy.data.meshes.new("pip-cutter")
    bm.to_mesh(cutter_mesh)
    bm.free()

    scene = bpy.context.scene
    body_obj = bpy.data.objects.new("die-body", body)
    cutter = bpy.data.objects.new("pip-cutter", cutter_mesh)
    scene.collection.objects.link(body_obj)
    scene.collection.objects.link(cutter)
    mod = body_obj.modifiers.new("pips", "BOOLEAN")
    mod.operation = "DIFFERENCE"
    mod.solver = "EXACT"
    mod.object = cutter
    depsgraph = bpy.context.evaluated_depsgraph_get()
    depsgraph.update()
    mesh = bpy.data.meshes.new_from_object(body_obj.evaluated_get(depsgraph))
    bpy.data.objects.remove(body_obj)
    bpy.data.objects.remove(cutter)

    mesh.materials.clear()
    mesh.materials.append(None)  # the body; each die sets its own (object-linked slots)
    mesh.materials.append(None)  # the pips
    # The dimples' faces (every corner on or inside one cutting sphere, sunk below the face)
    # take the pip material. The cut's new corners lie on the sphere's flat facets, inside it.
    pts = np.array(centres)
    co = np.array([v.co[:] for v in mesh.vertices])
    in_sphere = np.linalg.norm(co[:, None, :] - pts[None], axis=2) < sphere_r + 1e-4
    for poly in mesh.polygons:
        shared = np.all(in_sphere[list(poly.vertices)], axis=0)
        sunk = float(np.abs(np.array(poly.center)).max()) < 0.5 - 1e-4  # below the flat face
        poly.material_index = 1 if bool(shared.any()) and sunk else 0
        poly.use_smooth = True
    bm = bmesh.new()
    bm.from_mesh(mesh)
    for edge in bm.edges:  # sharp where faces meet at over 30°: the dimples' rims, cube faces
        if len(edge.link_faces) == 2 and edge.calc_face_angle(0.0) > math.radians(30):
            edge.smooth = False
    bm.to_mesh(mesh)
    bm.free()
    return mesh


TOKEN_TOP = 0.12
"""A token's height, as a share of its width."""


def _piece_mesh(kind: str) -> Any:
    """A piece's body mesh, width 1, its base on z = 0."""
    if kind == "house":
        w, d, wall, top = 0.5, 0.35, 0.6, 0.95
        verts = [(x, y, z) for z in (0.0, wall) for x, y in ((-w, -d), (w, -d), (w, d), (-w, d))]
        verts += [(-w, 0.0, top), (w, 0.0, top)]
        faces = [(0, 3, 2, 1), (0, 1, 5, 4), (2, 3, 7, 6), (1, 2, 6, 9, 5), (3, 0, 4, 8, 7),
                 (4, 5, 9, 8), (6, 7, 8, 9)]  # fmt: skip
        mesh = bpy.data.meshes.new("piece-house")
        mesh.from_pydata(verts, [], faces)
        return mesh
    import bmesh

    bm = bmesh.new()
    if kind in ("token", "coin"):
        depth = TOKEN_TOP if kind == "token" else 0.07
        bmesh.ops.create_cone(
            bm, cap_ends=True, segments=48, radius1=0.5, radius2=0.5, depth=depth,
            matrix=_translation((0, 0, depth / 2)),
        )  # fmt: skip
    elif kind in ("cube", "road"):
        bmesh.ops.create_cube(bm, size=1.0, matrix=_translation((0, 0, 0.5)))
        if kind == "road":
            bmesh.ops.scale(bm, vec=(1.0, 0.2, 0.2), verts=bm.verts)
        bmesh.ops.bevel(
            bm, geom=list(bm.edges), offset=0.03, segments=2, profile=0.5, affect="EDGES",
            clamp_overlap=True,
        )  # fmt: skip
    else:  # bead
        bmesh.ops.create_uvsphere(
            bm, u_segments=32, v_segments=16, radius=0.5, matrix=_translation((0, 0, 0.5))
        )
    body = bpy.data.meshes.new(f"piece-{kind}")
    bm.to_mesh(body)
    bm.free()
    for poly in body.polygons:
        poly.use_smooth = kind in ("bead", "token", "coin")
    return body


def _token_print(piece: Piece, ink: Any, world: Any) -> list[Any]:
    """What is printed on a token's top: its dots (a mesh) and its number (a text object)."""
    import bmesh

    bm = bmesh.new()
    for i in range(piece.dots):
        bmesh.ops.create_cone(
            bm, cap_ends=True, segments=24, radius1=0.035, radius2=0.035, depth=0.004,
            matrix=_translation(((i - (piece.dots - 1) / 2) * 0.1, -0.22, TOKEN_TOP + 0.001)),
        )  # fmt: skip
    dots = bpy.data.meshes.new("piece-dots")
    bm.to_mesh(dots)
    bm.free()
    dots.materials.append(ink)
    curve = bpy.data.curves.new(f"number-{piece.number}", type="FONT")
    curve.body = str(piece.number)
    curve.align_x, curve.align_y = "CENTER", "CENTER"
    curve.size = 0.5 if piece.number < 10 else 0.4
    curve.offset = 0.012  # bold, as tokens' numbers are printed
    curve.extrude = 0.002
    curve.materials.append(ink)
    out = [bpy.data.objects.new("piece-dots", dots), bpy.data.objects.new("number", curve)]
    out[0].matrix_world = world
    out[1].matrix_world = world @ _translation((0.0, 0.07, TOKEN_TOP + 0.003))
    return out


def _translation(c: Any) -> Any:
    from mathutils import Matrix

    return Matrix.Translation(tuple(float(x) for x in c))


# --- materials --------------------------------------------------------------------------------


def _principled(name: str) -> tuple[Any, Any, Any]:
    """A new material with its Principled BSDF and output nodes."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    return mat, nodes["Principled BSDF"], nodes["Material Output"]


def _noise(mat: Any, scale: float, detail: float, distortion: float, seed: float) -> Any:
    """A noise texture on the object's own coordinates, offset by ``seed``; returns its node."""
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    coords = nodes.new("ShaderNodeTexCoord")
    shift = nodes.new("ShaderNodeVectorMath")
    shift.operation = "ADD"
    shift.inputs[1].default_value = (seed % 97, seed % 89, seed % 83)
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = detail
    noise.inputs["Distortion"].default_value = distortion
    links.new(coords.outputs["Object"], shift.inputs[0])
    links.new(shift.outputs["Vector"], noise.inputs["Vector"])
    return noise


def _ramp(
    mat: Any, source: Any, a: tuple[float, ...], b: tuple[float, ...], lo: float, hi: float
) -> Any:
    """A colour ramp from colour ``a`` (at ``lo``) to ``b`` (at ``hi``) fed by ``source``."""
    ramp = mat.node_tree.nodes.new("ShaderNodeValToRGB")
    els = ramp.color_ramp.elements
    els[0].position, els[0].color = lo, (*a, 1.0)
    els[1].position, els[1].color = hi, (*b, 1.0)
    mat.node_tree.links.new(source, ramp.inputs["Fac"])
    return ramp


def _body_material(die: Die, index: int, seed: float) -> Any:
    """The die body's material, after its kind."""
    mat, bsdf, out = _principled(f"body-{index}")
    links = mat.node_tree.links
    bsdf.inputs["Base Color"].default_value = (*die.body_colour, 1.0)
    bsdf.inputs["Roughness"].default_value = die.roughness
    bsdf.inputs["IOR"].default_value = 1.49
    rng = np.random.default_rng(int(seed) + index)
    if die.material in ("translucent", "smoky"):
        bsdf.inputs["Transmission Weight"].default_value = 1.0
        if die.material == "smoky":  # a dark tint that deepens with the distance inside
            bsdf.inputs["Base Color"].default_value = (0.85, 0.85, 0.85, 1.0)
            vol = mat.node_tree.nodes.new("ShaderNodeVolumeAbsorption")
            vol.inputs["Color"].default_value = (*die.body_colour, 1.0)
            vol.inputs["Density"].default_value = float(rng.uniform(40, 160))
            links.new(vol.outputs["Volume"], out.inputs["Volume"])
    elif die.material == "marbled":
        noise = _noise(
            mat,
            scale=float(rng.uniform(1.5, 5)),
            detail=float(rng.uniform(4, 10)),
            distortion=float(rng.uniform(1, 6)),
            seed=seed + index,
        )
        lo = float(rng.uniform(0.4, 0.55))
        ramp = _ramp(mat, noise.outputs["Fac"], die.body_colour, die.second_colour, lo, lo + 0.08)
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
        if rng.random() < 0.5:  # a partly clear marble: the body clear, the veins not
            clear = _ramp(mat, noise.outputs["Fac"], (0.9,) * 3, (0.0,) * 3, lo, lo + 0.08)
            links.new(clear.outputs["Color"], bsdf.inputs["Transmission Weight"])
    elif die.material == "glossy":
        bsdf.inputs["Coat Weight"].default_value = 1.0
        bsdf.inputs["Coat Roughness"].default_value = float(rng.uniform(0.0, 0.05))
    else:
        bsdf.inputs["Coat Weight"].default_value = float(rng.uniform(0.0, 0.5))
    return mat


def _pip_material(name: str) -> Any:
    """The pips' paint (gold is metallic)."""
    mat, bsdf, _ = _principled(f"pips-{name}")
    bsdf.inputs["Base Color"].default_value = (*PIP_COLOURS[name], 1.0)
    bsdf.inputs["Roughness"].default_value = 0.45
    if name == "gold":
        bsdf.inputs["Metallic"].default_value = 1.0
        bsdf.inputs["Roughness"].default_value = 0.3
    return mat


def _table_material(scene: Scene) -> Any:
    """The table's surface, procedural: felt, wood, stone or plain."""
    mat, bsdf, _ = _principled(f"table-{scene.table}")
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    colour = scene.table_colour
    darker = tuple(c * 0.45 for c in colour)
    lighter = tuple(min(1.0, c * 1.5 + 0.02) for c in colour)
    seed = scene.extra["noise_seed"]
    s = scene.table_scale
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    if scene.table == "felt":
        bsdf.inputs["Roughness"].default_value = 1.0
        bsdf.inputs["Sheen Weight"].default_value = 0.6
        noise = _noise(mat, scale=900 * s, detail=2, distortion=0, seed=seed)
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.3
        links.new(noise.outputs["Fac"], bump.inputs["Height"])
        links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
        ramp = _ramp(mat, noise.outputs["Fac"], darker, lighter, 0.2, 0.8)
        mix = nodes.new("ShaderNodeMix")
        mix.data_type = "RGBA"
        mix.inputs["Factor"].default_value = 0.15
        mix.inputs["A"].default_value = (*colour, 1.0)
        links.new(ramp.outputs["Color"], mix.inputs["B"])
        links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
    elif scene.table == "wood":
        coords = nodes.new("ShaderNodeTexCoord")
        stretch = nodes.new("ShaderNodeVectorMath")  # grain: long along y, fine across x
        stretch.operation = "MULTIPLY"
        stretch.inputs[1].default_value = (1.0, 0.04, 1.0)
        wave = nodes.new("ShaderNodeTexWave")
        wave.wave_type = "BANDS"
        wave.bands_direction = "X"
        wave.inputs["Scale"].default_value = 70 * s
        wave.inputs["Distortion"].default_value = 12.0
        wave.inputs["Detail"].default_value = 6.0
        wave.inputs["Detail Scale"].default_value = 1.0
        wave.inputs["Detail Roughness"].default_value = 0.6
        links.new(coords.outputs["Object"], stretch.inputs[0])
        links.new(stretch.outputs["Vector"], wave.inputs["Vector"])
        ramp = _ramp(mat, wave.outputs["Fac"], darker, colour, 0.2, 0.9)
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = 0.45
        bsdf.inputs["Coat Weight"].default_value = 0.3
        bsdf.inputs["Coat Roughness"].default_value = 0.15
    elif scene.table == "stone":
        coords = nodes.new("ShaderNodeTexCoord")
        vor = nodes.new("ShaderNodeTexVoronoi")
        vor.inputs["Scale"].default_value = 60 * s
        links.new(coords.outputs["Object"], vor.inputs["Vector"])
        noise = _noise(mat, scale=200 * s, detail=4, distortion=0.5, seed=seed)
        mixv = nodes.new("ShaderNodeMath")
        mixv.operation = "MULTIPLY_ADD"
        mixv.inputs[1].default_value = 0.5
        links.new(vor.outputs["Distance"], mixv.inputs[0])
        links.new(noise.outputs["Fac"], mixv.inputs[2])
        ramp = _ramp(mat, mixv.outputs["Value"], darker, lighter, 0.35, 0.9)
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.15
        links.new(noise.outputs["Fac"], bump.inputs["Height"])
        links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
        bsdf.inputs["Roughness"].default_value = 0.55
    else:
        bsdf.inputs["Roughness"].default_value = 0.3 + 0.5 * (seed % 7) / 7
    return mat


# --- the scene --------------------------------------------------------------------------------


def _matrix(rotation: Any, position: Any, scale: float = 1.0) -> Any:
    """A 4×4 world matrix from a 3×3 rotation, a position and a uniform scale."""
    from mathutils import Matrix

    r = np.array(rotation) * scale
    rows = [(*r[i].tolist(), float(position[i])) for i in range(3)]
    return Matrix((*rows, (0.0, 0.0, 0.0, 1.0)))


def _aim(position: Any, target: Any) -> Any:
    """A rotation whose -z looks from ``position`` at ``target``."""
    back = np.array(position, dtype=float) - np.array(target, dtype=float)
    back /= np.linalg.norm(back)
    hint = np.array((0.0, 1.0, 0.0)) if abs(back[2]) > 0.999 else np.array((0.0, 0.0, 1.0))
    right = np.cross(hint, back)
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    return np.stack((right, up, back), axis=1)


_MESHES: dict[float, Any] = {}
"""The die meshes made so far, by bevel (a boolean cut of 21 pips takes about half a second)."""


def _reset() -> None:
    """Empty Blender's scene, keeping the die meshes made so far."""
    if not _MESHES:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        return
    data = bpy.data
    bpy.data.batch_remove(list(data.objects))
    kept = {m.name for m in _MESHES.values()}
    for pool in (data.materials, data.lights, data.cameras, data.worlds, data.node_groups):
        bpy.data.batch_remove(list(pool))
    bpy.data.batch_remove([m for m in data.meshes if m.name not in kept])


def build(scene: Scene, threads: int) -> None:
    """Replace Blender's scene with ``scene``, ready to render."""
    _reset()
    bs = bpy.context.scene
    bs.render.engine = "CYCLES"
    cyc = bs.cycles
    cyc.device = "CPU"
    cyc.samples = scene.samples
    cyc.use_adaptive_sampling = True
    cyc.adaptive_threshold = 0.05
    cyc.use_denoising = True
    try:
        cyc.denoiser = "OPENIMAGEDENOISE"
    except TypeError:  # pragma: no cover - a build without OIDN
        cyc.use_denoising = False
    cyc.denoising_quality = "FAST"  # "HIGH" and an "ACCURATE" prefilter cost 4 s an image
    cyc.denoising_prefilter = "FAST"
    cyc.use_light_tree = False
    cyc.seed = int(scene.extra["noise_seed"]) % (2**31 - 1)
    cyc.max_bounces = 6
    cyc.diffuse_bounces = 1
    cyc.glossy_bounces = 2
    cyc.transmission_bounces = 6
    cyc.volume_bounces = 0
    cyc.transparent_max_bounces = 4
    cyc.caustics_reflective = False
    cyc.blur_glossy = 0.5
    bs.render.threads_mode = "FIXED"
    bs.render.threads = threads
    bs.render.resolution_x = scene.camera.width
    bs.render.resolution_y = scene.camera.height
    bs.render.resolution_percentage = 100
    bs.render.image_settings.file_format = "JPEG"
    bs.render.image_settings.quality = 90
    bs.view_settings.view_transform = "Standard"
    bs.view_settings.exposure = scene.exposure

    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    warm = 0.5 + 0.5 * (scene.extra["noise_seed"] % 11) / 11
    bg.inputs["Color"].default_value = (0.8 * warm + 0.2, 0.8 * warm + 0.15, 1.0 - 0.3 * warm, 1.0)
    bg.inputs["Strength"].default_value = scene.world_strength
    bs.world = world

    table_mesh = bpy.data.meshes.new("table")
    half = 1.0
    table_mesh.from_pydata(
        [(-half, -half, 0), (half, -half, 0), (half, half, 0), (-half, half, 0)], [], [(0, 1, 2, 3)]
    )
    table = bpy.data.objects.new("table", table_mesh)
    table.data.materials.append(_table_material(scene))
    bs.collection.objects.link(table)

    meshes = _MESHES
    pip_mats: dict[str, Any] = {}
    for i, die in enumerate(scene.dice):
        if die.bevel not in meshes:
            meshes[die.bevel] = _die_mesh(die.bevel)
        if die.pip_colour not in pip_mats:
            pip_mats[die.pip_colour] = _pip_material(die.pip_colour)
        obj = bpy.data.objects.new(f"die-{i}", meshes[die.bevel])
        bs.collection.objects.link(obj)
        for slot in obj.material_slots:
            slot.link = "OBJECT"
        obj.material_slots[0].material = _body_material(die, i, scene.extra["noise_seed"])
        obj.material_slots[1].material = pip_mats[die.pip_colour]
        obj.matrix_world = _matrix(die.rotation, die.position, die.size)

    for i, piece in enumerate(scene.pieces):
        body = _piece_mesh(piece.kind)
        mat, bsdf, _ = _principled(f"piece-{i}")
        bsdf.inputs["Base Color"].default_value = (*piece.colour, 1.0)
        bsdf.inputs["Roughness"].default_value = 0.3 if piece.kind == "coin" else 0.55
        bsdf.inputs["Metallic"].default_value = 1.0 if piece.kind == "coin" else 0.0
        body.materials.append(mat)
        world = _matrix(rot_z(piece.yaw), piece.position, piece.size)
        parts = [bpy.data.objects.new(f"piece-{i}", body)]
        parts[0].matrix_world = world
        if piece.kind == "token":
            if piece.dot_colour not in pip_mats:
                pip_mats[piece.dot_colour] = _pip_material(piece.dot_colour)
            parts += _token_print(piece, pip_mats[piece.dot_colour], world)
        for obj in parts:
            bs.collection.objects.link(obj)

    for k, light in enumerate(scene.lights):
        data = bpy.data.lights.new(f"light-{k}", "AREA")
        data.shape = "RECTANGLE"
        data.size, data.size_y = light.size
        data.energy = light.power
        w = light.warmth
        data.color = (1.0, 0.85 + 0.15 * (1 - w), 0.7 + 0.3 * (1 - w))
        obj = bpy.data.objects.new(f"light-{k}", data)
        obj.matrix_world = _matrix(_aim(light.position, light.target), light.position)
        bs.collection.objects.link(obj)

    cam_data = bpy.data.cameras.new("camera")
    cam_data.sensor_fit = "HORIZONTAL"
    cam_data.sensor_width = 36.0
    cam_data.lens = scene.camera.focal_px * 36.0 / scene.camera.width
    cam_data.clip_start = 0.005
    cam = bpy.data.objects.new("camera", cam_data)
    cam.matrix_world = _matrix(scene.camera.rotation, scene.camera.position)
    bs.collection.objects.link(cam)
    bs.camera = cam


def projection_error(scene: Scene) -> float:
    """The largest distance in pixels between where Blender's camera puts each die's surface
    points and where :func:`training.dice_scene.project` (which makes the labels) does."""
    _blender()
    from bpy_extras.object_utils import world_to_camera_view
    from mathutils import Vector

    build(scene, 1)
    bs = bpy.context.scene
    worst = 0.0
    for die in scene.dice:
        points = die_surface_points(die)
        ours = project(scene.camera, points)
        for p, q in zip(points, ours, strict=True):
            ndc = world_to_camera_view(bs, bs.camera, Vector(p.tolist()))
            x, y = ndc.x * scene.camera.width, (1 - ndc.y) * scene.camera.height
            worst = max(worst, math.hypot(x - q[0], y - q[1]))
    return worst


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence Blender's own progress lines (written to the C-level stdout)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def render(scene: Scene, out: Path, threads: int) -> tuple[float, float]:
    """Render one scene to ``out/images/NAME.jpg`` with its labels; returns the seconds taken,
    on the clock and of CPU (less than the clock when other work shares the cores)."""
    start, cpu = time.perf_counter(), time.process_time()
    build(scene, threads)
    image = out / "images" / f"{scene.name}.jpg"
    image.parent.mkdir(parents=True, exist_ok=True)
    bpy.context.scene.render.filepath = str(image)
    with _quiet():
        bpy.ops.render.render(write_still=True)
    write_labels(scene, out)
    return time.perf_counter() - start, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    """Render ``--count`` scenes of ``--seed`` into ``--out``, printing each one's time."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder (outside the repo)")
    ap.add_argument("--count", type=int, default=300, help="number of images")
    ap.add_argument("--seed", type=int, default=0, help="the same seed and count, the same scenes")
    ap.add_argument("--start", type=int, default=0, help="first scene index (to resume)")
    ap.add_argument("--threads", type=int, default=1, help="Cycles threads")
    ap.add_argument("--samples", type=int, default=6, help="Cycles samples per pixel (denoised)")
    ap.add_argument("--size", type=int, nargs=2, default=(512, 384), metavar=("W", "H"))
    ap.add_argument(
        "--layout", choices=tuple(LAYOUTS), default="apart", help="how the dice lie (dice_scene)"
    )
    args = ap.parse_args(argv)
    if args.count < 1 or args.threads < 1 or args.samples < 1 or min(args.size) < 16:
        ap.error("--count, --threads and --samples must be at least 1, --size at least 16 16")
    if args.out.resolve().is_relative_to(ROOT):
        ap.error(
            f"--out {args.out} is inside the repository; render outside it (e.g. {DEFAULT_OUT})"
        )
    _blender()
    args.out.mkdir(parents=True, exist_ok=True)
    total = total_cpu = 0.0
    with (args.out / "scenes.jsonl").open("a") as log:
        for index in range(args.start, args.start + args.count):
            scene = draw_scene(
                args.seed, index, args.size[0], args.size[1], args.samples, args.layout
            )
            seconds, cpu = render(scene, args.out, args.threads)
            total, total_cpu = total + seconds, total_cpu + cpu
            print(
                f"{scene.name}.jpg  {len(scene.dice)} dice  {scene.table:5s}  "
                f"{seconds:6.2f} s  ({cpu:5.2f} s CPU)",
                flush=True,
            )
            record = {"seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3)}
            log.write(json.dumps({**record, **scene.to_json()}) + "\n")
            log.flush()
    n = args.count
    print(
        f"rendered {n} images in {total:.1f} s ({total / n:.2f} s an image; "
        f"{total_cpu / n:.2f} s CPU an image) to {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
