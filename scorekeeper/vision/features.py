"""The second look's features: the tensor its last layer reads, exposed as a graph output.

A table's own dice are learnt on these features (:mod:`scorekeeper.vision.adapt`). The model
file is left as it is: the output is added to the graph loaded in memory before the session is
built, found by structure (the input of the matrix product that makes ``patch_logits``, through
any quantize/dequantize pairs), so any model exported the same way works. In a model whose
second look joins two networks (``training.ensemble``), the features are the first network's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from scorekeeper.errors import ImageError

if TYPE_CHECKING:
    import onnx

FEATURE_OUTPUT = "patch_features"
"""The added graph output: (N, F) float32, the second look's features for each patch."""

JOINED_FIRST_LOGITS = "a/patch_logits"
"""In a joined model, the first network's own logits (``patch_logits`` is then their mean with
the second network's log-probabilities)."""

_PASS_THROUGH = {"QuantizeLinear", "DequantizeLinear", "Identity", "Cast"}
_PRODUCTS = {"Gemm", "MatMul"}


def add_feature_output(model: onnx.ModelProto, logits_output: str, path: Path) -> None:
    """Add :data:`FEATURE_OUTPUT` to a loaded ``model`` (read from ``path``, named in messages):
    an ``Identity`` of the tensor that feeds the matrix product behind ``logits_output``.

    :raises ImageError: when no matrix product leads to ``logits_output``.
    """
    import onnx
    from onnx import helper

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
