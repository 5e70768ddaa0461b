"""Storing ONNX weights as float16: half the bytes, the same outputs to float16 rounding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from hupai.training.compact import store_weights_fp16  # noqa: E402


def _matmul_model(path: Path) -> np.ndarray:
    rng = np.random.default_rng(0)
    weight = rng.normal(size=(64, 128)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "m",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 128])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return weight


def test_weights_stored_as_float16_halve_the_file_and_keep_the_outputs(tmp_path: Path) -> None:
    import onnxruntime as ort

    _matmul_model(tmp_path / "a.onnx")
    store_weights_fp16(tmp_path / "a.onnx", tmp_path / "b.onnx")
    assert (tmp_path / "b.onnx").stat().st_size < 0.6 * (tmp_path / "a.onnx").stat().st_size
    x = np.random.default_rng(1).normal(size=(3, 64)).astype(np.float32)
    full = ort.InferenceSession(str(tmp_path / "a.onnx")).run(None, {"x": x})[0]
    half = ort.InferenceSession(str(tmp_path / "b.onnx")).run(None, {"x": x})[0]
    assert half.dtype == np.float32
    assert np.allclose(full, half, rtol=2e-3, atol=2e-2)
