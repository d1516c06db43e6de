"""The second look's features: the tensor its last layer reads, exposed as a graph output.

A table's own dice are learnt on these features (:mod:`scorekeeper.vision.adapt`). The model
file is left as it is: the output is added to a copy of the graph in memory when the session is
built, found by structure (the input of the matrix product that makes ``patch_logits``, through
any quantize/dequantize pairs), so any model exported the same way works. In a model whose
second look joins two networks (``training.ensemble``), the features are the first network's.
"""

from __future__ import annotations

from pathlib import Path

from scorekeeper.errors import ImageError

FEATURE_OUTPUT = "patch_features"
"""The added graph output: (N, F) float32, the second look's features for each patch."""

JOINED_FIRST_LOGITS = "a/patch_logits"
"""In a joined model, the first network's own logits (``patch_logits`` is then their mean with
the second network's log-probabilities)."""

_PASS_THROUGH = {"QuantizeLinear", "DequantizeLinear", "Identity", "Cast"}
_PRODUCTS = {"Gemm", "MatMul"}


def with_feature_output(path: Path, logits_output: str) -> bytes:
    """The model at ``path`` serialised with :data:`FEATURE_OUTPUT` added: an ``Identity`` of
    the tensor that feeds the matrix product behind ``logits_output``.

    :raises ImageError: when the ``onnx`` package is missing, the file does not load, or no
        matrix product leads to ``logits_output``.
    """
    try:
        import onnx
        from onnx import helper
    except ImportError:
        raise ImageError(
            "teaching the camera needs the onnx package (pip install onnx); the reader works"
            " without it"
        ) from None
    if not path.is_file():
        raise ImageError(f"no dice model at {path}; build one with `make model`")
    try:
        model = onnx.load(str(path))
    except Exception as exc:  # onnx raises its own decode errors
        raise ImageError(f"{path} is not a loadable ONNX model: {exc}") from None
    graph = model.graph
    made_by = {out: node for node in graph.node for out in node.output}
    if JOINED_FIRST_LOGITS in made_by:
        logits_output = JOINED_FIRST_LOGITS
    tensor, node = logits_output, made_by.get(logits_output)
    for _ in range(16):
        if node is None or node.op_type not in _PASS_THROUGH:
            break
        tensor = node.input[0]
        node = made_by.get(tensor)
    if node is None or node.op_type not in _PRODUCTS:
        raise ImageError(f"{path}: no matrix product leads to {logits_output!r}")
    graph.node.append(helper.make_node("Identity", [node.input[0]], [FEATURE_OUTPUT]))
    graph.output.append(helper.make_tensor_value_info(FEATURE_OUTPUT, onnx.TensorProto.FLOAT, None))
    data: bytes = model.SerializeToString()
    return data
