"""The ONNX dice model on the CPU: its detector head, its second-look head and its metadata."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.vision.config import (
    DEFAULT_CANDIDATE_THRESHOLD,
    DEFAULT_LONG_SIDE,
    DEFAULT_SCORE_THRESHOLD,
    DEFAULT_STRIDE,
    MAX_RESCUE_SCALE,
    is_from_0_to_1,
    is_rescue_scale,
    number_or_nan,
)
from scorekeeper.vision.detection import UNSURE_BELOW
from scorekeeper.vision.features import FEATURE_OUTPUT, add_feature_output
from scorekeeper.vision.patches import PATCH_CONTEXT, PATCH_SIZE

if TYPE_CHECKING:
    import onnx

DETECTOR_OUTPUTS = ("heat", "value", "size")
"""The detector head's outputs: heat (1, 1, h, w), face logits (1, 6, h, w), sizes (1, 2, h, w)."""

PATCH_INPUT, PATCH_OUTPUT = "patches", "patch_logits"
"""The second-look head's input (N, 3, size, size) and output (N, 7), when the model has one."""


class DiceModel:
    """A loaded dice model: ``detect`` runs the detector head, ``classify`` the second look.

    :raises ImageError: when the file is missing, not loadable or not a dice model.
    """

    def __init__(self, path: Path, threads: int, *, features: bool = False) -> None:
        """Load ``path`` on ``threads`` CPU threads and read its inputs and metadata; with
        ``features``, the second look's features too (:meth:`classify_features`).

        :raises ImageError: also when ``features`` is asked of a model without a second look or
            whose features cannot be found (:func:`add_feature_output`).
        """
        self.path = path
        model = _read_model(path)
        if features:
            add_feature_output(model, PATCH_OUTPUT, path)
        self.features: bool = features
        """Whether :meth:`classify_features` is available."""
        inputs = _graph_inputs(model)
        name = "image" if "image" in inputs else next(iter(inputs)) if len(inputs) == 1 else None
        if name is None or len(inputs[name]) != 4 or set(inputs) - {name, PATCH_INPUT}:
            raise ImageError(f"{path}: expected an (N, 1, H, W) 'image' input")
        self.image_input: str = name
        """The detector's input name, as the model has it."""
        self.two_stage: bool = PATCH_INPUT in inputs
        """True when the model has the second-look head."""
        names = {o.name for o in model.graph.output}
        missing = set(DETECTOR_OUTPUTS) | ({PATCH_OUTPUT} if self.two_stage else set())
        missing -= names
        if missing:
            raise ImageError(f"{path}: the model lacks outputs {sorted(missing)}")
        meta = {p.key: p.value for p in model.metadata_props}
        fixed = [d for d in inputs[name][2:] if isinstance(d, int)]
        self.fixed_side: int | None = max(fixed) if len(fixed) == 2 else None
        """The input long side of a model of fixed input size, else None."""
        self.long_side = int(meta.get("long_side", DEFAULT_LONG_SIDE))
        """The input long side the model was made for."""
        self.stride = int(meta.get("stride", DEFAULT_STRIDE))
        """Input pixels per heat-map cell."""
        self.patch_size = int(meta.get("patch_size", PATCH_SIZE))
        """The second look's patch side in pixels."""
        self.patch_context = float(meta.get("patch_context", PATCH_CONTEXT))
        """A patch covers this many times its candidate box's longer side."""
        self.score_threshold = _probability(meta, "score_threshold", DEFAULT_SCORE_THRESHOLD, path)
        """The die probability the model's makers chose."""
        self.candidate_threshold = _probability(
            meta, "candidate_threshold", DEFAULT_CANDIDATE_THRESHOLD, path
        )
        """The candidate heat the model's makers chose."""
        self.unsure_below = _probability(meta, "unsure_below", UNSURE_BELOW, path)
        """The confidence below which a die is marked unsure, as the model's makers chose."""
        self.relook_face_below = (
            _probability(meta, "relook_face_below", 0.5, path)
            if "relook_face_below" in meta
            else 0.0
        )
        """A die whose likeliest face is under this is read again turned half round, as the
        model's makers chose (0.0, none, when the model does not say)."""
        self.rescue_scale = _rescue_scale(meta, path)
        """A turned-down candidate is read again in a patch this many times as wide, as the
        model's makers chose (0.0, never, when the model does not say)."""
        self.colour_above = _share(meta, "colour_above", path)
        """A die read surely whose colour runs on above its box by more than this share is
        marked unsure, as the model's makers chose (0.0, never, when the model does not say)."""
        self._looker: Any = None
        if self.two_stage:  # each head in a session of its own, so a run feeds only its input
            patch_outputs = [PATCH_OUTPUT, *([FEATURE_OUTPUT] if features else [])]
            detector, looker = _branches(
                path,
                model,
                [([self.image_input], list(DETECTOR_OUTPUTS)), ([PATCH_INPUT], patch_outputs)],
            )
            self._detector: Any = _open_session(path, threads, detector)
            self._looker = _open_session(path, threads, looker)
        else:
            self._detector = _open_session(path, threads)

    def detect(self, tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The detector's maps for a (1, 1, H, W) tensor: heat (h, w), values (6, h, w), sizes
        (2, h, w)."""
        heat, values, sizes = self._detector.run(list(DETECTOR_OUTPUTS), {self.image_input: tensor})
        return np.asarray(heat)[0, 0], np.asarray(values)[0], np.asarray(sizes)[0]

    def classify(self, patches: np.ndarray) -> np.ndarray:
        """The second look's (N, 7) logits for ready (N, 3, size, size) float32 patches.

        :raises ImageError: the model has no second-look head.
        """
        if self._looker is None:
            raise ImageError(f"{self.path} has no second-look head")
        (logits,) = self._looker.run([PATCH_OUTPUT], {PATCH_INPUT: patches})
        return np.asarray(logits, np.float32)

    def classify_features(self, patches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The second look's (N, 7) logits and (N, F) features for ready patches.

        :raises ImageError: the model was loaded without ``features``.
        """
        if not self.features or self._looker is None:
            raise ImageError(f"{self.path} was loaded without the second look's features")
        logits, feats = self._looker.run([PATCH_OUTPUT, FEATURE_OUTPUT], {PATCH_INPUT: patches})
        return np.asarray(logits, np.float32), np.asarray(feats, np.float32).reshape(
            len(patches), -1
        )


def _open_session(path: Path, threads: int, graph: bytes | None = None) -> Any:
    """An onnxruntime CPU session of ``path`` (or of ``graph``, that file's graph changed), on
    ``threads`` threads, sequential, optimised."""
    import onnxruntime as ort

    if not path.is_file():
        raise ImageError(f"no dice model at {path}; build one with `make model`")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        source = str(path) if graph is None else graph
        return ort.InferenceSession(source, opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ImageError(f"{path} is not a loadable ONNX model: {exc}") from exc


def _read_model(path: Path) -> onnx.ModelProto:
    """The ONNX model at ``path``, its weights and all.

    :raises ImageError: when there is no file there or it is not an ONNX model.
    """
    import onnx

    if not path.is_file():
        raise ImageError(f"no dice model at {path}; build one with `make model`")
    try:
        model = onnx.load(str(path))
    except Exception as exc:  # onnx raises its own decode errors
        raise ImageError(f"{path} is not a loadable ONNX model: {exc}") from None
    if not model.graph.node:  # an empty file, or bytes that happen to decode
        raise ImageError(f"{path} is not a loadable ONNX model: it holds no graph")
    return model


def _graph_inputs(model: onnx.ModelProto) -> dict[str, list[int | str | None]]:
    """The inputs a run feeds (the graph's inputs less its weights), each with its shape: a
    number for a fixed dimension, a name or None for one that varies."""
    weights = {t.name for t in model.graph.initializer}
    return {
        i.name: [
            d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
            for d in i.type.tensor_type.shape.dim
        ]
        for i in model.graph.input
        if i.name not in weights
    }


def _branches(
    path: Path, model: onnx.ModelProto, parts: list[tuple[list[str], list[str]]]
) -> list[bytes]:
    """For each ``(inputs, outputs)`` of ``parts``, the part of ``model`` (read from ``path``,
    named in messages) that makes those outputs from those inputs, serialised
    (``onnx.utils.Extractor``).

    :raises ImageError: when the graph does not split there.
    """
    from onnx.utils import Extractor

    try:
        whole = Extractor(model)
    except Exception as exc:  # onnx raises its own exception types
        raise ImageError(f"{path} is not a loadable ONNX model: {exc}") from None
    out: list[bytes] = []
    for inputs, outputs in parts:
        try:
            out.append(whole.extract_model(inputs, outputs).SerializeToString())
        except Exception as exc:  # onnx raises its own exception types
            raise ImageError(f"{path}: cannot take {outputs} from {inputs} alone: {exc}") from None
    return out


def _meta_number(text: str | None, default: float) -> float:
    """A metadata value as a number: ``default`` when absent, NaN when not a number (which every
    range check then refuses)."""
    return default if text is None else number_or_nan(text)


def _probability(meta: dict[str, str], key: str, default: float, path: Path) -> float:
    """The metadata value ``key`` as a probability strictly between 0 and 1 (``default`` when
    absent).

    :raises ImageError: for a value that is not such a number.
    """
    text = meta.get(key)
    value = _meta_number(text, default)
    if not 0.0 < value < 1.0:
        raise ImageError(f"{path}: metadata {key}={text!r} is not a probability between 0 and 1")
    return value


def _share(meta: dict[str, str], key: str, path: Path) -> float:
    """The metadata value ``key`` as a share from 0 to 1 (0.0, never, when absent).

    :raises ImageError: for a value that is not such a number.
    """
    text = meta.get(key)
    value = _meta_number(text, 0.0)
    if not is_from_0_to_1(value):
        raise ImageError(f"{path}: metadata {key}={text!r} is not 0 (never) or a share up to 1")
    return value


def _rescue_scale(meta: dict[str, str], path: Path) -> float:
    """The metadata ``rescue_scale``: 0.0 when absent or 0, else a factor over 1 up to
    :data:`MAX_RESCUE_SCALE`.

    :raises ImageError: for a value that is not such a number.
    """
    text = meta.get("rescue_scale")
    value = _meta_number(text, 0.0)
    if not is_rescue_scale(value):
        raise ImageError(
            f"{path}: metadata rescue_scale={text!r} is not 0 or a factor over 1 up to"
            f" {MAX_RESCUE_SCALE:g}"
        )
    return value
