"""Halve an ONNX file by storing its float weights as float16, computing in float32.

Each float32 initializer of at least :data:`MIN_ELEMENTS` values becomes a float16
initializer and a ``Cast`` back to float32 under the original name. onnxruntime folds the
casts when it loads the model, so inference runs exactly the float32 graph with weights
rounded to float16 (a relative change below 1e-3) — no float16 kernels are needed, which
the CPU lacks for most operators.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: Small tensors (biases, scales, shapes) stay float32: they cost nothing and some
#: operators want them as they are.
MIN_ELEMENTS = 1024
#: What onnxruntime's quantizer appends to a dequantized weight's name.
DQ_SUFFIX = "_DequantizeLinear_Output"


def store_weights_fp16(source: Path, out: Path) -> Path:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(source))
    graph = model.graph
    kept, casts = [], []
    for init in graph.initializer:
        array = numpy_helper.to_array(init)
        if init.data_type != TensorProto.FLOAT or array.size < MIN_ELEMENTS:
            kept.append(init)
            continue
        half = numpy_helper.from_array(array.astype(np.float16), init.name + "_fp16")
        kept.append(half)
        casts.append(helper.make_node("Cast", [half.name], [init.name], to=TensorProto.FLOAT))
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(casts + nodes)
    onnx.checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))
    return out


def float32_weights(graph: Any) -> dict[str, Any]:
    """Every weight of a graph by the name its operators use, as float32 numpy arrays: the
    inverse of :func:`store_weights_fp16` (a float16 initializer behind a ``Cast`` is given
    under the cast's output name) and of int8 quantization (a quantized initializer behind a
    ``DequantizeLinear`` is given dequantized under its output name: a retrain starts from
    the shipped int8 models); constants from ``Constant`` nodes too."""
    import numpy as np
    from onnx import numpy_helper

    values = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    for node in graph.node:
        if node.op_type == "Cast" and node.input[0] in values:
            values[node.output[0]] = values[node.input[0]].astype(np.float32)
        elif node.op_type == "DequantizeLinear" and node.input[0] in values:
            values[node.output[0]] = dequantized(node, values)
            # onnxruntime's quantizer names it "<weight>_DequantizeLinear_Output": the
            # weight's own name too, as the float export had it (a finder is rebuilt by name)
            values.setdefault(node.output[0].removesuffix(DQ_SUFFIX), values[node.output[0]])
        elif node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    values[node.output[0]] = numpy_helper.to_array(attr.t)
    return values


def dequantized(node: Any, values: dict[str, Any]) -> Any:
    """``(q - zero_point) * scale`` of a constant ``DequantizeLinear`` (per tensor, or per
    channel along its ``axis``), as ONNX defines it.

    >>> import numpy as np
    >>> from onnx import helper
    >>> node = helper.make_node("DequantizeLinear", ["q", "s", "z"], ["w"], axis=0)
    >>> v = {"q": np.array([[2, 4], [6, 8]], np.int8), "s": np.array([0.5, 0.25], np.float32),
    ...      "z": np.array([0, 2], np.int8)}
    >>> dequantized(node, v).tolist()
    [[1.0, 2.0], [1.0, 1.5]]
    """
    import numpy as np

    q = values[node.input[0]].astype(np.float32)
    scale = values[node.input[1]].astype(np.float32)
    zero = (
        values[node.input[2]].astype(np.float32)
        if len(node.input) > 2 and node.input[2] in values
        else np.zeros_like(scale)
    )
    axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
    if scale.ndim == 1 and q.ndim > 1:  # per channel: line the scales up with the axis
        shape = [1] * q.ndim
        shape[axis] = -1
        scale, zero = scale.reshape(shape), zero.reshape(shape)
    return (q - zero) * scale
