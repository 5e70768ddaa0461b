"""Tiny hand-made ONNX graphs that output fixed detections, for runtime tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hupai.vision.classes import CLASS_NAMES

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402


def fake_model(
    tmp_path: Path, boxes: list[tuple[float, float, float, float, int, float]], names=CLASS_NAMES
) -> Path:
    """An ONNX model whose output holds ``boxes`` (cx, cy, w, h in input px, class, score)."""
    nc = len(names)
    out = np.zeros((1, 4 + nc, 8400), np.float32)
    for k, (cx, cy, w, h, cls, score) in enumerate(boxes):
        out[0, :4, k] = (cx, cy, w, h)
        out[0, 4 + cls, k] = score
    const = helper.make_tensor("c", TensorProto.FLOAT, out.shape, out.ravel().tolist())
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["m"], keepdims=0),
        helper.make_node(
            "Constant", [], ["zero"], value=helper.make_tensor("z", TensorProto.FLOAT, [], [0.0])
        ),
        helper.make_node("Mul", ["m", "zero"], ["m0"]),
        helper.make_node("Constant", [], ["table"], value=const),
        helper.make_node("Add", ["table", "m0"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes,
        "fake",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 640, 640])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 4 + nc, 8400])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    model.ir_version = 8
    path = tmp_path / "fake.onnx"
    onnx.save(model, path)
    manifest = {
        "name": "fake",
        "version": "0",
        "classes_version": 1,
        "class_names": list(names),
        "input": {"name": "images", "shape": [1, 3, 640, 640]},
        "preprocessing": {
            "letterbox": True,
            "pad_value": 114,
            "scale": 1 / 255,
            "channel_order": "RGB",
        },
        "output": {"name": "output0", "shape": [1, 4 + nc, 8400], "box_format": "cxcywh"},
    }
    path.with_suffix(".json").write_text(json.dumps(manifest))
    return path


def fake_namer(tmp_path: Path, palette: dict[int, float], size: int = 32) -> Path:
    """An ONNX namer that names a crop by its mean red level (0-255 in the photo's BGR):
    class ``c`` wins where the crop's mean red is nearest ``palette[c]``; classes not in the
    palette never win. Logits are linear in the mean: -(r - r_c)² drops its r² term."""
    from hupai.vision.namer import MEAN, NAMER_CLASSES, STD

    n = len(NAMER_CLASSES)
    weight = np.zeros((3, n), np.float32)
    bias = np.full(n, -1e4, np.float32)
    k = 4.0
    for c, red in palette.items():
        r = (red / 255 - MEAN[0]) / STD[0]  # the normalised red channel (RGB channel 0)
        weight[0, c] = 2 * k * r
        bias[c] = -k * r * r
    nodes = [
        helper.make_node("ReduceMean", ["crops"], ["m"], axes=[2, 3], keepdims=0),
        helper.make_node(
            "Constant",
            [],
            ["w"],
            value=helper.make_tensor("wt", TensorProto.FLOAT, [3, n], weight.ravel().tolist()),
        ),
        helper.make_node(
            "Constant",
            [],
            ["b"],
            value=helper.make_tensor("bt", TensorProto.FLOAT, [n], bias.tolist()),
        ),
        helper.make_node("MatMul", ["m", "w"], ["mw"]),
        helper.make_node("Add", ["mw", "b"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes,
        "fake_namer",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", n])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    model.ir_version = 8
    path = tmp_path / "fake-namer.onnx"
    onnx.save(model, path)
    manifest = {
        "name": "fake-namer",
        "version": "0",
        "class_names": list(NAMER_CLASSES),
        "input": {"name": "crops", "shape": ["n", 3, size, size]},
        "preprocessing": {"margin": 0.0},
    }
    path.with_suffix(".json").write_text(json.dumps(manifest))
    return path
