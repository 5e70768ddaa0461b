"""A retrain starts from the shipped int8 models: their quantized weights come back as float
weights under the names the float export gave them."""

from __future__ import annotations

import numpy as np
import pytest

from hupai.training.compact import float32_weights

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def quantized_graph() -> object:
    """One Conv whose weight is a per-channel int8 initializer behind a DequantizeLinear, as
    onnxruntime's quantizer writes it."""
    q = numpy_helper.from_array(np.array([[[[2]]], [[[-4]]]], np.int8), "w_quantized")
    scale = numpy_helper.from_array(np.array([0.5, 0.25], np.float32), "w_scale")
    zero = numpy_helper.from_array(np.array([0, 0], np.int8), "w_zero_point")
    nodes = [
        helper.make_node(
            "DequantizeLinear",
            ["w_quantized", "w_scale", "w_zero_point"],
            ["w_DequantizeLinear_Output"],
            axis=0,
        ),
        helper.make_node("Conv", ["x", "w_DequantizeLinear_Output"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 1, 1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 1, 1])],
        initializer=[q, scale, zero],
    )
    return graph


def test_a_quantized_weight_is_given_dequantized_under_its_float_name() -> None:
    values = float32_weights(quantized_graph())
    assert values["w"].ravel().tolist() == [1.0, -1.0]


def test_the_dequantized_output_name_is_kept_too() -> None:
    values = float32_weights(quantized_graph())
    assert values["w_DequantizeLinear_Output"].ravel().tolist() == [1.0, -1.0]
