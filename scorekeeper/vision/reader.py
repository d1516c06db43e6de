"""The dice reader: an ONNX heat-map model plus pure-numpy pre- and post-processing."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.vision.imageio import check_frame, to_grey
from scorekeeper.vision.patches import PATCH_CONTEXT, PATCH_SIZE, patch_batch

DEFAULT_LONG_SIDE = 512
"""The model's input long side when the ONNX file does not say otherwise."""

DEFAULT_STRIDE = 4
"""Input pixels per heat-map cell when the ONNX file does not say otherwise."""

MIN_LONG_SIDE, MAX_LONG_SIDE = 64, 4096
"""The input long sides a reader accepts."""

MULTIPLE = 16
"""The model's input height and width are padded to a multiple of this."""

DEFAULT_SCORE_THRESHOLD = 0.5
"""Die probability (heat, for a one-stage model) a die needs, unless the model says."""

DEFAULT_CANDIDATE_THRESHOLD = 0.3
"""Heat a peak needs to become a candidate for the second look, unless the model says."""

COARSE_FACTOR = 0.4
"""A two-stage reader also looks at the frame at this fraction of ``long_side``, for big dice."""

COARSEST_FACTOR = 0.15625
"""The third and smallest look, at this fraction of ``long_side`` (80 px of 512), finds dice too
big even for the coarse look: over about 225 px across in a 640×480 frame, as in a phone photo
of a die or two. 80 px is a multiple of 16 (82 px would be padded to 96 and take twice as
long). It runs only when the first two looks suggest a close-up (:data:`COARSEST_AFTER`,
:data:`COARSEST_FEW`), so that it costs time only where it may find something."""

COARSEST_AFTER = 32.0
"""A coarse candidate this big, in the coarse look's input pixels (100 px in a 640×480 frame),
calls for the third look: the coarse look finds such dice in close-ups and seldom otherwise."""

COARSEST_FEW = 2
"""So do one to this many candidates from the first two looks together: in a close-up of a 1 or
a 2 the coarse look sees only a pip or two, each smaller than :data:`COARSEST_AFTER`. A frame
with none (an empty table between throws) skips it: a die close up always shows the first two
looks a pip or more."""

COARSEST_LEAST = 0.75
"""The third look adds only candidates of at least this share of the coarse look's
:data:`WHOLE_SIDE`: dice the coarse look may not see whole. (Its boxes of smaller dice come
out up to twice too big, and would swallow them.)"""

ZOOM_BELOW = 30.0
"""When the dice read are this small (their median side, in the fine look's input pixels) in a
frame of :data:`ZOOM_ROOM` times ``long_side`` or more, as in a phone photo of dice across a
table, the frame is read again at a larger size (:meth:`DiceReader.zoom_side`): the detector
finds small dice less surely than dice of 30-70 px, and a big frame has the pixels."""

ZOOM_TO = 42.0
"""The zoomed reading makes the dice's median side about this many input pixels (between the
validation photos' 31 px, tray, and 52 px, webcam)."""

ZOOM_ROOM = 1.5
"""The frame's longer side must be at least this many times ``long_side`` for a zoomed look:
a 640×480 webcam frame never gets one (it would only be enlarged)."""

MAX_ZOOM_SIDE = 1536
"""The zoomed reading's fine look is at most this long (9 times the 512 px look's pixels)."""

RELOOK_BAND = (0.3, 0.9)
"""A candidate whose die probability lies in this band (from, up to) is a close call: its patch
is looked at again turned a quarter, mirrored and turned half round, and judged on the mean of
the four views' log-probabilities (:meth:`DiceReader.relook`)."""

SIZE_RATIO = 2.5
"""A coarse candidate is the same as an overlapping fine one within this ratio of areas."""

WHOLE_SIDE = 72.0
"""The largest die the detector was trained to see whole: its side in model-input pixels (the
top of ``training.data.DIE_RANGE``). A bigger die, close to the camera, is found by the coarse
look, while the fine look sees its pips as small dice (:func:`resolve_overlaps`)."""

PART_RATIO = 4.0
"""A die too big for the fine look outranks, whatever their confidences, a die of at most
1 / PART_RATIO of its box area near it (:data:`PART_REACH`): a pip or two of its faces."""

PART_CONFIDENCE = 0.8
"""... but only when the big die is read at least this surely: false big dice (a box round two
real dice, a patch of marble) were read at 0.34-0.75 on the validation and synthetic scenes;
of the close-ups' dice read right (``training/eval_closeup.py``), 2% fall below it."""

PART_REACH = 2.5
"""How near: the small one's centre lies in the big die's box, or in that box grown this many
times about its centre if it is pip-sized (:data:`PIP_RATIO`): a side face's pips lie outside
the top face's box, and so do the neighbouring dice that a small box may be drawn round."""

PIP_RATIO = 9.0
"""Pip-sized: a box of at most a ninth of the big die's box area (a third of its side)."""


def default_model_path() -> Path:
    """The bundled model: ``$SCOREKEEPER_MODEL`` if set, else ``models/dice.onnx`` in the repo."""
    env = os.environ.get("SCOREKEEPER_MODEL")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "models" / "dice.onnx"


UNSURE_BELOW = 0.8
"""A die read with less confidence is one to check: the camera marks it, ``read`` prints "5?"
(on the real validation photos 1.8% of right readings fall below it, but not the reader's one
misread there, read at 0.84; on synthetic scenes 2.2-5.5% of right and 80-92% of wrong ones:
``benchmarks/bench_unsure.py``)."""


@dataclass(frozen=True)
class Detection:
    """One die: its face value, its box (x0, y0, x1, y1) in frame pixels, and a confidence."""

    value: int
    box: tuple[float, float, float, float]
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"value", "box", "confidence"}`` with rounded floats."""
        return {
            "value": self.value,
            "box": [round(v, 1) for v in self.box],
            "confidence": round(self.confidence, 4),
        }

    @property
    def unsure(self) -> bool:
        """Whether the reader's confidence is below :data:`UNSURE_BELOW`: worth a second look.

        >>> Detection(5, (0, 0, 9, 9), 0.55).unsure, Detection(5, (0, 0, 9, 9), 0.97).unsure
        (True, False)
        """
        return self.confidence < UNSURE_BELOW

    def centre(self) -> tuple[float, float]:
        """The centre of the box."""
        x0, y0, x1, y1 = self.box
        return (x0 + x1) / 2, (y0 + y1) / 2

    def scaled(self, k: float) -> Detection:
        """The same die with every box coordinate times ``k`` (a frame read at 1/k of a size).

        >>> Detection(3, (1, 2, 3, 4), 0.9).scaled(2).box
        (2, 4, 6, 8)
        """
        return replace(self, box=_scaled(self.box, k))


@dataclass(frozen=True)
class Prepared:
    """A frame ready for the model: the (1, 1, H, W) float32 tensor and its scale to the frame."""

    tensor: np.ndarray
    scale: float
    frame_size: tuple[int, int]


def preprocess(frame: np.ndarray, long_side: int = DEFAULT_LONG_SIDE) -> Prepared:
    """Grey, resized so the longer side is ``long_side``, padded to a multiple of 16, in [0, 1].

    >>> p = preprocess(np.zeros((480, 640, 3), np.uint8), 512)
    >>> p.tensor.shape, p.scale, p.frame_size
    ((1, 1, 384, 512), 0.8, (640, 480))

    :raises ImageError: for a frame that :func:`check_frame` refuses.
    """
    grey = to_grey(check_frame(frame))
    h, w = grey.shape
    scale = long_side / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    small = cv2.resize(grey, (nw, nh), interpolation=interp)
    ph, pw = -nh % MULTIPLE, -nw % MULTIPLE
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    tensor = (small.astype(np.float32) * np.float32(1 / 255))[None, None]
    return Prepared(tensor=tensor, scale=scale, frame_size=(w, h))


def halved_for(grey: np.ndarray, long_side: int) -> tuple[np.ndarray, int]:
    """A big grey frame halved (OpenCV's fast 2×2 average) until its longer side is under
    twice ``long_side``, and the factor it shrank by; a smaller frame (or one of odd size) as it
    is, factor 1. Each pass's area resize then has less to do: a 1920×1080 frame is read from
    960×540.

    >>> g, f = halved_for(np.zeros((1080, 1920), np.uint8), 512)
    >>> g.shape, f, halved_for(np.zeros((480, 640), np.uint8), 512)[1]
    ((540, 960), 2, 1)
    """
    factor = 1
    while max(grey.shape) >= 2 * long_side and grey.shape[0] % 2 == 0 and grey.shape[1] % 2 == 0:
        h, w = grey.shape
        grey = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        factor *= 2
    return grey, factor


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


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Numerically stable softmax along ``axis``."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    out: np.ndarray = e / e.sum(axis=axis, keepdims=True)
    return out


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
    if heat.ndim != 2:
        raise ValueError(f"heat map must be 2-D, got shape {heat.shape}")
    rows, cols, padded = _peak_cells(heat, threshold)
    if rows.size == 0:
        return []
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
    probs = _softmax(values[:, rows, cols].astype(np.float64), axis=0)
    best = np.argmax(probs, axis=0)
    faces = (best + 1).tolist()
    confs = (heat[rows, cols].astype(np.float64) * probs[best, np.arange(rows.size)]).tolist()
    fw, fh = frame_size
    kept: list[tuple[float, float, float, float]] = []
    out: list[Detection] = []
    for cx, cy, bw, bh, value, conf in zip(cxs, cys, bws, bhs, faces, confs, strict=True):
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
    return out


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise log-probabilities of (N, K) logits."""
    x = logits.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    return np.asarray(x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True)))


def relook_rows(log_probs: np.ndarray) -> np.ndarray:
    """Indices of the close calls among (N, 7) second-look log-probabilities: a die probability
    in :data:`RELOOK_BAND`.

    >>> not_die = np.array([0.9, 0.5, 0.05])  # die probabilities 0.1, 0.5 and 0.95
    >>> lp = np.log(np.column_stack([not_die] + [(1 - not_die) / 6] * 6))
    >>> relook_rows(lp).tolist()
    [1]
    """
    die = 1.0 - np.exp(log_probs[:, 0])
    return np.nonzero((die >= RELOOK_BAND[0]) & (die < RELOOK_BAND[1]))[0]


def patch_views(patches: np.ndarray) -> list[np.ndarray]:
    """Three more views of (N, 3, H, W) patches: turned a quarter, mirrored, turned half round."""
    return [
        np.ascontiguousarray(np.rot90(patches, 1, axes=(2, 3))),
        np.ascontiguousarray(patches[:, :, :, ::-1]),
        np.ascontiguousarray(np.rot90(patches, 2, axes=(2, 3))),
    ]


def second_look(
    candidates: list[Detection], logits: np.ndarray, threshold: float
) -> list[Detection]:
    """Keep the candidates whose patch the second look calls a die, with its value.

    ``logits`` is (N, 7): "not a die" then faces 1..6. A candidate stays when the summed
    probability of the six faces is at least ``threshold``; its value is the likeliest face and
    its confidence that face's probability.

    >>> c = [Detection(3, (0, 0, 9, 9), 0.9), Detection(2, (20, 0, 29, 9), 0.8)]
    >>> lg = np.array([[-5, 0, 0, 0, 0, 6, 0], [5, 0, 0, 0, 0, 0, 0]], np.float32)
    >>> [(d.value, round(d.confidence, 2)) for d in second_look(c, lg, 0.5)]
    [(5, 0.99)]
    """
    if logits.shape != (len(candidates), 7):
        raise ValueError(f"expected ({len(candidates)}, 7) patch logits, got {logits.shape}")
    probs = _softmax(logits.astype(np.float64), axis=1)
    out = []
    for cand, p in zip(candidates, probs, strict=True):
        if 1.0 - p[0] < threshold:
            continue
        value = int(np.argmax(p[1:])) + 1
        out.append(Detection(value=value, box=cand.box, confidence=float(p[value])))
    out.sort(key=lambda d: -d.confidence)
    return out


def _scaled(box: tuple[float, float, float, float], k: float) -> tuple[float, float, float, float]:
    """A box with every coordinate times ``k``."""
    x0, y0, x1, y1 = box
    return x0 * k, y0 * k, x1 * k, y1 * k


def _side(box: tuple[float, float, float, float]) -> float:
    """The longer side of a box."""
    return max(box[2] - box[0], box[3] - box[1])


def _area(box: tuple[float, float, float, float]) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def _inside(point: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _overlap(a: Detection, b: Detection) -> bool:
    """True when either box holds the other's centre."""
    return _inside(a.centre(), b.box) or _inside(b.centre(), a.box)


def merge_scales(fine: list[Detection], coarse: list[Detection]) -> list[Detection]:
    """The fine pass's candidates plus the coarse pass's that no fine candidate already covers.

    A coarse candidate is covered when a fine one of similar size (area within
    :data:`SIZE_RATIO` either way) overlaps it.

    >>> fine = [Detection(2, (0, 0, 10, 10), 0.9)]
    >>> coarse = [Detection(2, (1, 1, 11, 11), 0.8), Detection(5, (-20, -20, 40, 40), 0.7)]
    >>> [d.value for d in merge_scales(fine, coarse)]
    [2, 5]
    """
    out = list(fine)
    for c in coarse:
        a = _area(c.box)
        if not any(
            _overlap(c, f) and a / SIZE_RATIO <= _area(f.box) <= a * SIZE_RATIO for f in fine
        ):
            out.append(c)
    return out


def _part_of(small: Detection, big: Detection, whole_side: float) -> bool:
    """True when ``big``, its longer side at least ``whole_side``, holds ``small`` as a part
    (:data:`PART_RATIO`, :data:`PART_REACH`)."""
    x0, y0, x1, y1 = big.box
    ratio = _area(big.box) / max(_area(small.box), 1e-9)
    if _side(big.box) < whole_side or big.confidence < PART_CONFIDENCE or ratio < PART_RATIO:
        return False
    if _inside(small.centre(), big.box):
        return True
    cx, cy = big.centre()
    half_w, half_h = (x1 - x0) * PART_REACH / 2, (y1 - y0) * PART_REACH / 2
    near = _inside(small.centre(), (cx - half_w, cy - half_h, cx + half_w, cy + half_h))
    return near and ratio >= PIP_RATIO


def resolve_overlaps(dice: list[Detection], whole_side: float = math.inf) -> list[Detection]:
    """One die per place. A die near one of at least ``whole_side`` pixels (the
    :data:`WHOLE_SIDE` of the fine look, in the frame's pixels) and many times its size goes:
    a pip or two of that die (:data:`PART_RATIO`). Then, of dice whose boxes hold each other's
    centre, the most confident stays.

    >>> pip = Detection(1, (40, 40, 50, 50), 0.95)
    >>> big = Detection(4, (10, 10, 90, 90), 0.9)
    >>> twin = Detection(3, (12, 12, 88, 88), 0.5)
    >>> far = Detection(2, (200, 0, 220, 20), 0.4)
    >>> [d.value for d in resolve_overlaps([pip, big, twin, far])]
    [1, 2]
    >>> [d.value for d in resolve_overlaps([pip, big, twin, far], whole_side=60)]
    [4, 2]
    """
    whole = [d for d in dice if not any(_part_of(d, b, whole_side) for b in dice)]
    kept: list[Detection] = []
    for d in sorted(whole, key=lambda d: -d.confidence):
        if not any(_overlap(d, k) for k in kept):
            kept.append(d)
    return kept


class DiceReader:
    """Finds every die in a frame and reads its face, with an ONNX model on the CPU.

    The model's first stage finds candidate dice on a grey heat map; when the model has a
    second-look head (a ``patches`` input), a colour patch around each candidate, cut from the
    full-resolution frame, decides whether it is a die and reads its face; a close call is
    looked at again in three more views (:meth:`relook`).
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        score_threshold: float | None = None,
        threads: int = 1,
        *,
        long_side: int | None = None,
        candidate_threshold: float | None = None,
        coarse: bool = True,
        third_look: bool = True,
        zoom: bool = True,
    ) -> None:
        """Load the model (``default_model_path()`` when None) on ``threads`` CPU threads.

        ``score_threshold`` is the die probability the second look needs (the heat a peak
        needs for a one-stage model); ``candidate_threshold`` the heat a peak needs to be
        looked at again. Both default to the model's metadata, else 0.5 and 0.3.
        ``long_side`` overrides the input size stored in the model (larger reads smaller dice,
        slower). A two-stage reader also looks at the frame at :data:`COARSE_FACTOR` of that
        size, so that dice too big for the first size are found, and in a close-up at
        :data:`COARSEST_FACTOR` of it too; ``coarse=False`` turns both off, ``third_look=False``
        the last. Small dice in a big frame get a zoomed look (:meth:`zoom_side`) unless
        ``zoom=False``.
        :raises ImageError: when the model file is missing or not a dice model;
            ValueError for a threshold outside (0, 1), threads < 1 or a ``long_side`` outside
            64–4096.
        """
        import onnxruntime as ort

        for name, t in (
            ("score_threshold", score_threshold),
            ("candidate_threshold", candidate_threshold),
        ):
            if t is not None and not 0.0 < t < 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {t}")
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        if long_side is not None and not MIN_LONG_SIDE <= long_side <= MAX_LONG_SIDE:
            raise ValueError(
                f"long_side must be {MIN_LONG_SIDE} to {MAX_LONG_SIDE} pixels, got {long_side}"
            )
        path = Path(model_path) if model_path is not None else default_model_path()
        if not path.is_file():
            raise ImageError(f"no dice model at {path}; build one with `make model`")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self._session = ort.InferenceSession(
                str(path), opts, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ImageError(f"{path} is not a loadable ONNX model: {exc}") from exc
        inputs = {i.name: i for i in self._session.get_inputs()}
        image = inputs.get("image") or (next(iter(inputs.values())) if len(inputs) == 1 else None)
        if image is None or len(image.shape) != 4 or set(inputs) - {image.name, "patches"}:
            raise ImageError(f"{path}: expected an (N, 1, H, W) 'image' input")
        self._input_name: str = image.name
        names = {o.name for o in self._session.get_outputs()}
        wanted = {"heat", "value", "size"} | ({"patch_logits"} if "patches" in inputs else set())
        missing = wanted - names
        if missing:
            raise ImageError(f"{path}: the model lacks outputs {sorted(missing)}")
        self._outputs = ["heat", "value", "size"]
        meta = self._session.get_modelmeta().custom_metadata_map
        self.stride: int = int(meta.get("stride", DEFAULT_STRIDE))
        fixed = image.shape[2:]
        if all(isinstance(d, int) for d in fixed):
            self.long_side: int = int(max(fixed))
            coarse = False  # a fixed input size cannot take a second size
        else:
            self.long_side = int(long_side or meta.get("long_side", DEFAULT_LONG_SIDE))
        self.two_stage: bool = "patches" in inputs
        """True when the model has the second-look head."""
        self.coarse_side: int | None = (
            round(self.long_side * COARSE_FACTOR) if self.two_stage and coarse else None
        )
        """The second, smaller input size a two-stage reader also looks at (big dice), if any."""
        self.coarsest_side: int | None = (
            round(self.long_side * COARSEST_FACTOR) if self.coarse_side and third_look else None
        )
        """The third and smallest size, looked at when the first two suggest a close-up."""
        self.zoom: bool = zoom and self.two_stage and not all(isinstance(d, int) for d in fixed)
        """Whether small dice in a big frame get a zoomed look."""
        self.patch_size: int = int(meta.get("patch_size", PATCH_SIZE))
        self.patch_context: float = float(meta.get("patch_context", PATCH_CONTEXT))
        if score_threshold is None:
            score_threshold = float(meta.get("score_threshold", DEFAULT_SCORE_THRESHOLD))
        if self.two_stage:
            self.candidate_threshold: float = candidate_threshold or float(
                meta.get("candidate_threshold", DEFAULT_CANDIDATE_THRESHOLD)
            )
            # each run feeds both inputs; the one not in use gets a tiny blank
            self._blank_image = np.zeros((1, 1, MULTIPLE, MULTIPLE), np.float32)
            self._blank_patches = self._no_patches()
        else:
            self.candidate_threshold = candidate_threshold or score_threshold
        self.score_threshold = score_threshold
        self.threads = threads
        self.model_path = path

    def _no_patches(self) -> np.ndarray:
        """The second look's blank for a detector run: no patches at all where the runtime takes
        an empty batch (the second look then costs nothing), else one blank patch."""
        empty = np.zeros((0, 3, self.patch_size, self.patch_size), np.float32)
        try:
            self._session.run(["heat"], {self._input_name: self._blank_image, "patches": empty})
        except Exception:  # onnxruntime raises its own exception types
            return np.zeros((1, 3, self.patch_size, self.patch_size), np.float32)
        return empty

    def raw(self, prepared: Prepared) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run the model on a prepared tensor: (heat (h, w), values (6, h, w), sizes (2, h, w))."""
        feed = {self._input_name: prepared.tensor}
        if self.two_stage:
            feed["patches"] = self._blank_patches
        heat, values, sizes = self._session.run(self._outputs, feed)
        return np.asarray(heat)[0, 0], np.asarray(values)[0], np.asarray(sizes)[0]

    def candidates(
        self, frame: np.ndarray, threshold: float | None = None, *, long_side: int | None = None
    ) -> list[Detection]:
        """The first stage alone at one input size (default ``self.long_side``): peaks of the
        heat map at ``threshold`` (default: the candidate threshold), valued by the heat-map
        head, strongest first.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        prepared = preprocess(frame, long_side or self.long_side)
        heat, values, sizes = self.raw(prepared)
        return decode(
            heat,
            values,
            sizes,
            stride=self.stride,
            scale=prepared.scale,
            frame_size=prepared.frame_size,
            threshold=self.candidate_threshold if threshold is None else threshold,
        )

    def patch_logits(
        self, frame: np.ndarray, boxes: list[tuple[float, float, float, float]]
    ) -> np.ndarray:
        """The second look's (N, 7) logits ("not a die", faces 1..6) for boxes in a frame."""
        if not self.two_stage:
            raise ImageError(f"{self.model_path} has no second-look head")
        if not boxes:
            return np.zeros((0, 7), np.float32)
        return self.run_patches(
            patch_batch(check_frame(frame), boxes, self.patch_size, self.patch_context)
        )

    def look(self, frame: np.ndarray, candidates: list[Detection]) -> np.ndarray:
        """The second look's (N, 7) log-probabilities ("not a die", faces 1..6) for candidates
        in a frame, each close call looked at again in more views (:meth:`relook`)."""
        if not self.two_stage:
            raise ImageError(f"{self.model_path} has no second-look head")
        if not candidates:
            return np.zeros((0, 7), np.float64)
        boxes = [d.box for d in candidates]
        patches = patch_batch(check_frame(frame), boxes, self.patch_size, self.patch_context)
        return self.relook(patches, self.run_patches(patches))

    def run_patches(self, patches: np.ndarray) -> np.ndarray:
        """The second look's (N, 7) logits for ready (N, 3, size, size) float32 patches."""
        if not self.two_stage:
            raise ImageError(f"{self.model_path} has no second-look head")
        (logits,) = self._session.run(
            ["patch_logits"], {self._input_name: self._blank_image, "patches": patches}
        )
        return np.asarray(logits, np.float32)

    def infer(self, frame: np.ndarray) -> list[Detection]:
        """Every die in the frame (uint8 BGR, grey or BGRA), strongest first; when they are
        small dice in a big frame, as read again at a larger size (:meth:`zoom_side`).

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        dice = self._read_at(frame, self.long_side)
        zoom = self.zoom_side(dice, max(frame.shape[:2]))
        return self._read_at(frame, zoom) if zoom else dice

    def _read_at(self, frame: np.ndarray, side: int) -> list[Detection]:
        """:meth:`infer` with the fine look at ``side`` pixels, and no zoomed look."""
        found = self.all_candidates(frame, long_side=side)
        if not self.two_stage or not found:
            return found
        return resolve_overlaps(
            second_look(found, self.look(frame, found), self.score_threshold),
            self.whole_side(frame, side),
        )

    def whole_side(self, frame: np.ndarray, long_side: int | None = None) -> float:
        """The :data:`WHOLE_SIDE` of the fine look (at ``long_side``, default the reader's) in
        ``frame``'s pixels."""
        return WHOLE_SIDE * float(max(frame.shape[:2])) / (long_side or self.long_side)

    def zoom_side(self, dice: list[Detection], size: int) -> int | None:
        """The fine look's size for reading again a frame whose longer side is ``size``
        pixels, given the dice read in it, or None when it needs no second reading.

        There must be dice (a frame of none, or only of false candidates, is not read again),
        and their median side must be under :data:`ZOOM_BELOW` pixels of the fine look's
        input; the zoomed size makes it :data:`ZOOM_TO`, at most ``size`` (never enlarging the
        frame) and :data:`MAX_ZOOM_SIDE`, and it must be at least :data:`ZOOM_ROOM` times
        ``long_side``: a 640×480 frame never gets one.

        >>> r = DiceReader.__new__(DiceReader); r.long_side, r.zoom = 512, True
        >>> dice = [Detection(2, (0, 0, 80, 80), 0.9), Detection(5, (90, 0, 166, 76), 0.9)]
        >>> r.zoom_side(dice, 2048), r.zoom_side(dice, 4032), r.zoom_side(dice[:1], 640)
        (1088, 1536, None)
        """
        if not self.zoom or not dice or size < ZOOM_ROOM * self.long_side:
            return None
        median = float(np.median([_side(d.box) for d in dice])) * self.long_side / size
        if median >= ZOOM_BELOW:
            return None
        side = min(size, MAX_ZOOM_SIDE, self.long_side * ZOOM_TO / max(median, 1.0))
        side = int(side) // MULTIPLE * MULTIPLE
        return side if side >= ZOOM_ROOM * self.long_side else None

    def relook(self, patches: np.ndarray, logits: np.ndarray) -> np.ndarray:
        """The second look's log-probabilities for ``patches`` given their first ``logits``,
        with each close call (:func:`relook_rows`) replaced by the mean over four views of its
        patch (:func:`patch_views`)."""
        out = log_softmax(logits)
        rows = relook_rows(out)
        if len(rows):
            views = [out[rows]] + [
                log_softmax(self.run_patches(v)) for v in patch_views(patches[rows])
            ]
            out[rows] = np.mean(views, axis=0)
        return out

    def _coarsest(
        self,
        grey: np.ndarray,
        threshold: float | None,
        coarse: list[Detection],
        found: list[Detection],
        sides: tuple[int | None, int | None],
    ) -> list[Detection]:
        """``found`` plus the third look's big dice, when ``coarse`` or ``found`` call for it;
        ``sides`` are the coarse and the third look's sizes."""
        coarse_side, coarsest_side = sides
        if not coarsest_side or not coarse_side:
            return found
        to_input = coarse_side / max(grey.shape[:2])  # grey's pixels -> coarse input
        biggest = max((_side(d.box) for d in coarse), default=0.0) * to_input
        if biggest < COARSEST_AFTER and not 0 < len(found) <= COARSEST_FEW:
            return found
        least = COARSEST_LEAST * WHOLE_SIDE / to_input
        big = self.candidates(grey, threshold, long_side=coarsest_side)
        return merge_scales(found, [d for d in big if _side(d.box) >= least])

    def all_candidates(
        self, frame: np.ndarray, threshold: float | None = None, *, long_side: int | None = None
    ) -> list[Detection]:
        """What the second look judges: the first stage's candidates at ``long_side`` (default
        the reader's) plus those at :data:`COARSE_FACTOR` of it that they do not already cover
        (:func:`merge_scales`), and when these suggest a close-up (:data:`COARSEST_AFTER`,
        :data:`COARSEST_FEW`), the big ones at :data:`COARSEST_FACTOR` of it too. A frame of
        twice ``long_side`` or more is halved first (:func:`halved_for`); the boxes are in the
        frame's own pixels either way.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        side = long_side or self.long_side
        k = side / self.long_side
        sides = (
            round(self.coarse_side * k) if self.coarse_side else None,
            round(self.coarsest_side * k) if self.coarsest_side else None,
        )
        grey = to_grey(check_frame(frame))  # once for every size
        grey, factor = halved_for(grey, side)
        found = self.candidates(grey, threshold, long_side=side)
        if sides[0]:
            coarse = self.candidates(grey, threshold, long_side=sides[0])
            found = self._coarsest(grey, threshold, coarse, merge_scales(found, coarse), sides)
        if factor > 1:
            found = [d.scaled(factor) for d in found]
        return found
