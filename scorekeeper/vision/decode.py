"""Decoding the detector's maps: heat-map peaks and their dice, in frame pixels."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scorekeeper.vision.detection import Detection
from scorekeeper.vision.softmax import softmax


def _blocks(padded: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """(N, 9): the 3×3 block, in row-major order, around each cell of a map padded by one cell
    (``padded``), the cells given as flat indices into ``padded``."""
    w = padded.shape[1]
    offsets = np.array([-w - 1, -w, -w + 1, -1, 0, 1, w - 1, w, w + 1])
    out: np.ndarray = padded.ravel()[flat[:, None] + offsets]
    return out


def _peak_cells(heat: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`local_peaks`'s rows and columns, and the map padded by one cell of -inf that
    found them (for :func:`decode` to reuse)."""
    rows, cols = np.nonzero(heat >= threshold)
    h, w = heat.shape
    padded = np.full((h + 2, w + 2), -np.inf, heat.dtype)
    padded[1:-1, 1:-1] = heat
    if rows.size == 0:
        return rows, cols, padded
    blocks = _blocks(padded, (rows + 1) * (w + 2) + cols + 1)
    centre = blocks[:, 4:5]
    # strictly greater than the neighbours before it, >= those after it (plateau tie-break)
    keep = (centre > blocks[:, :4]).all(axis=1) & (centre >= blocks[:, 5:]).all(axis=1)
    return rows[keep], cols[keep], padded


def local_peaks(heat: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of cells that are the maximum of their 3×3 block and >= threshold.

    Ties are broken towards the first cell in row-major order, so a plateau gives one peak.

    >>> h = np.zeros((5, 5), np.float32); h[1, 1] = 0.9; h[3, 3] = 0.6; h[3, 4] = 0.6
    >>> local_peaks(h, 0.5)
    (array([1, 3]), array([1, 3]))
    """
    if heat.ndim != 2:
        raise ValueError(f"heat map must be 2-D, got shape {heat.shape}")
    rows, cols, _ = _peak_cells(heat, threshold)
    return rows, cols


def decode(
    heat: np.ndarray,
    values: np.ndarray,
    sizes: np.ndarray,
    *,
    stride: int,
    scale: float,
    frame_size: tuple[int, int],
    threshold: float,
) -> list[Detection]:
    """Turn model maps into detections in frame pixels.

    ``heat`` is (h, w) in [0, 1]; ``values`` is (6, h, w) logits for faces 1..6; ``sizes`` is
    (2, h, w) with log(width / stride) and log(height / stride) of the box in input pixels.
    Peaks of the heat map at or above ``threshold`` become dice; the centre is refined by the
    heat-weighted mean of the 3×3 block; peaks whose centre lies in the inner half of a
    stronger die's box are suppressed. ``confidence`` = peak heat × value probability.

    >>> heat = np.zeros((8, 8), np.float32); heat[4, 2] = 0.9
    >>> vals = np.zeros((6, 8, 8), np.float32); vals[4, 4, 2] = 5.0
    >>> sizes = np.zeros((2, 8, 8), np.float32)
    >>> d = decode(heat, vals, sizes, stride=4, scale=0.5, frame_size=(64, 64), threshold=0.5)
    >>> [(x.value, x.box) for x in d]
    [(5, (16.0, 32.0, 24.0, 40.0))]
    """
    return decode_levels(
        heat,
        values,
        sizes,
        stride=stride,
        scale=scale,
        frame_size=frame_size,
        thresholds=(threshold,),
    )[0]


def decode_levels(
    heat: np.ndarray,
    values: np.ndarray,
    sizes: np.ndarray,
    *,
    stride: int,
    scale: float,
    frame_size: tuple[int, int],
    thresholds: Sequence[float],
) -> list[list[Detection]]:
    """:func:`decode` at each of ``thresholds``, the maps decoded once: a peak is kept or
    suppressed only by stronger peaks, so each threshold's dice are the lowest one's with a
    peak at or above it.

    >>> heat = np.zeros((8, 8), np.float32); heat[2, 2] = 0.9; heat[6, 6] = 0.3
    >>> maps = np.zeros((6, 8, 8), np.float32), np.zeros((2, 8, 8), np.float32)
    >>> levels = decode_levels(heat, *maps, stride=4, scale=1.0, frame_size=(32, 32),
    ...                        thresholds=(0.4, 0.2))
    >>> [len(level) for level in levels]
    [1, 2]
    """
    if heat.ndim != 2:
        raise ValueError(f"heat map must be 2-D, got shape {heat.shape}")
    if not thresholds:
        return []
    rows, cols, padded = _peak_cells(heat, min(thresholds))
    if rows.size == 0:
        return [[] for _ in thresholds]
    order = np.argsort(-heat[rows, cols], kind="stable")
    rows, cols = rows[order], cols[order]
    padded[[0, -1], :] = 0.0  # the centre's weighted mean counts cells outside the map as 0
    padded[:, [0, -1]] = 0.0
    blocks = _blocks(padded, (rows + 1) * padded.shape[1] + cols + 1).T
    blocks = np.ascontiguousarray(blocks).astype(np.float64).reshape(3, 3, -1)  # row, col, peak
    total = blocks.sum(axis=(0, 1))
    dy = (blocks[2].sum(axis=0) - blocks[0].sum(axis=0)) / total
    dx = (blocks[:, 2].sum(axis=0) - blocks[:, 0].sum(axis=0)) / total
    cxs = ((cols + 0.5 + dx) * stride / scale).tolist()
    cys = ((rows + 0.5 + dy) * stride / scale).tolist()
    wide = np.exp(np.clip(sizes[:, rows, cols], -3.0, 6.0)).astype(np.float64) * stride / scale
    bws, bhs = wide[0].tolist(), wide[1].tolist()
    probs = softmax(values[:, rows, cols].astype(np.float64), axis=0)
    best = np.argmax(probs, axis=0)
    faces = (best + 1).tolist()
    peaks = heat[rows, cols]
    confs = (peaks.astype(np.float64) * probs[best, np.arange(rows.size)]).tolist()
    fw, fh = frame_size
    kept: list[tuple[float, float, float, float]] = []
    out: list[Detection] = []
    taken: list[int] = []
    for i, (cx, cy, bw, bh, value, conf) in enumerate(
        zip(cxs, cys, bws, bhs, faces, confs, strict=True)
    ):
        if any(abs(cx - kx) < 0.25 * kw and abs(cy - ky) < 0.25 * kh for kx, ky, kw, kh in kept):
            continue
        if not (0 <= cx < fw and 0 <= cy < fh):
            continue
        kept.append((cx, cy, bw, bh))
        box = (
            max(0.0, cx - bw / 2),
            max(0.0, cy - bh / 2),
            min(float(fw), cx + bw / 2),
            min(float(fh), cy + bh / 2),
        )
        out.append(Detection(value=value, box=box, confidence=conf))
        taken.append(i)
    kept_peaks = peaks[taken]  # compared as the map is, in its own float type
    return [[d for d, up in zip(out, kept_peaks >= t, strict=True) if up] for t in thresholds]
