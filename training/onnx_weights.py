"""An exported model's weights as float arrays, from a float graph or an int8 (QDQ) one."""

from __future__ import annotations

from typing import Any

import numpy as np


def graph_arrays(model: Any) -> dict[str, np.ndarray]:
    """Every initializer of an ``onnx.ModelProto`` by name, plus the float value of each
    ``DequantizeLinear`` of initializers (an int8 model's weights and biases, by the name the
    convolution reads them under): ``(q - zero_point) * scale``, per tensor or along ``axis``.
    """
    from onnx import numpy_helper

    arrays = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "DequantizeLinear" or not all(i in arrays for i in node.input):
            continue
        q = arrays[node.input[0]].astype(np.float32)
        scale = arrays[node.input[1]].astype(np.float32)
        zero = arrays[node.input[2]].astype(np.float32) if len(node.input) > 2 else np.float32(0)
        if scale.size > 1:  # per channel: the scale runs along `axis` (default 1)
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1) % q.ndim
            shape = [1] * q.ndim
            shape[axis] = scale.size
            scale, zero = scale.reshape(shape), np.reshape(zero, shape if np.size(zero) > 1 else ())
        arrays[node.output[0]] = (q - zero) * scale
    return arrays
