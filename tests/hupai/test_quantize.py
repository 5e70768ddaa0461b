"""The int8 step of export (hupai/training/quantize.py) on tiny hand-made graphs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnxruntime.quantization")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from hupai.training import quantize as q  # noqa: E402
from hupai.training.compact import store_weights_fp16  # noqa: E402


def _conv_net(path: Path, opset: int = 17) -> Path:
    """crops [n, 3, 16, 16] → two 3×3 convolutions with ReLU → logits [n, 8, 16, 16]."""
    rng = np.random.default_rng(0)
    w1 = numpy_helper.from_array((rng.normal(size=(16, 3, 3, 3)) * 0.3).astype(np.float32), "w1")
    w2 = numpy_helper.from_array((rng.normal(size=(8, 16, 3, 3)) * 0.2).astype(np.float32), "w2")
    b1 = numpy_helper.from_array(np.zeros(16, np.float32), "b1")
    nodes = [
        helper.make_node("Conv", ["crops", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["logits"], pads=[1, 1, 1, 1], name="conv2"),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 16, 16])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 8, 16, 16])],
        [w1, w2, b1],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, str(path))
    manifest = {
        "name": path.stem,
        "kind": "tile namer (crop classifier)",
        "input": {"name": "crops", "shape": ["n", 3, 16, 16]},
        "opset": opset,
    }
    path.with_suffix(".json").write_text(json.dumps(manifest))
    return path


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"crops": x})[0])


def _inputs(n: int = 6) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.uniform(-2, 2, (4, 3, 16, 16)).astype(np.float32) for _ in range(n)]


def test_float16_stored_weights_come_back_as_float32_without_casts(tmp_path: Path) -> None:
    half = store_weights_fp16(_conv_net(tmp_path / "net.onnx"), tmp_path / "half.onnx")
    model = q.float32_weights(onnx.load(str(half)))
    assert not [n for n in model.graph.node if n.op_type == "Cast"]
    assert all(i.data_type == TensorProto.FLOAT for i in model.graph.initializer)
    onnx.save(model, str(tmp_path / "back.onnx"))
    x = _inputs(1)[0]
    np.testing.assert_array_equal(_run(tmp_path / "back.onnx", x), _run(half, x))


def test_an_int8_copy_is_close_to_the_float_model_and_holds_int8_weights(tmp_path: Path) -> None:
    net = _conv_net(tmp_path / "net.onnx", opset=12)  # per-channel needs 13: converted
    out = q.quantize_file(net, tmp_path / "int8.onnx", _inputs(), "crops")
    model = onnx.load(str(out))
    assert q.opset_of(model) >= q.MIN_OPSET
    assert {"QuantizeLinear", "DequantizeLinear"} <= {n.op_type for n in model.graph.node}
    assert any(i.data_type == TensorProto.INT8 for i in model.graph.initializer)
    x = _inputs(1)[0]
    ref, got = _run(net, x), _run(out, x)
    assert np.abs(got - ref).max() < 0.05 * np.abs(ref).max()


def test_a_yolo_heads_box_decoding_stays_float() -> None:
    names = [
        "/model.21/cv2/conv/Conv",
        "/model.22/cv2.0/cv2.0.2/Conv",
        "/model.22/cv3.1/cv3.1.0/act/Mul",
        "/model.22/Concat_1",
        "/model.22/dfl/Softmax",
        "/model.22/Sigmoid",
    ]
    nodes = [
        helper.make_node("Identity", [f"i{k}"], [f"o{k}"], name=n) for k, n in enumerate(names)
    ]
    model = helper.make_model(helper.make_graph(nodes, "head", [], []))
    assert q.float_tail(model) == [
        "/model.22/Concat_1",
        "/model.22/dfl/Softmax",
        "/model.22/Sigmoid",
    ]
    assert q.float_tail(helper.make_model(helper.make_graph(nodes[:2], "x", [], []))) == []


def test_the_test_split_is_never_used(tmp_path: Path) -> None:
    with pytest.raises(q.QuantizeError, match="test split"):
        q.real_photos(tmp_path, "test")


@pytest.mark.parametrize("loss,kept", [(0.001, "int8"), (0.02, "float")])
def test_float_is_kept_where_int8_loses_on_val(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loss: float, kept: str
) -> None:
    net = _conv_net(tmp_path / "net.onnx")
    monkeypatch.setattr(q, "calibration_inputs", lambda role, root, n: _inputs())
    check = q.Check("val crops", {"named": 0.95}, {"named": 0.95 - loss})
    monkeypatch.setattr(q, "measure_on_val", lambda *a: check)
    out = tmp_path / "shipped" / "net.onnx"
    outcome = q.quantize(net, out, calib=tmp_path, log=lambda _: None)
    manifest = json.loads(out.with_suffix(".json").read_text())
    assert outcome.kept == kept == manifest["quantization"]["kept"]
    assert manifest["bytes"] == out.stat().st_size
    has_int8 = any(i.data_type == TensorProto.INT8 for i in onnx.load(str(out)).graph.initializer)
    assert has_int8 == (kept == "int8")
    assert ("why_float" in manifest["quantization"]) == (kept == "float")
    assert manifest["quantization"]["val"]["float"] == {"named": 0.95}


def test_an_int8_finders_cut_rises_until_its_boxes_are_as_precise() -> None:
    truth = np.array([[0, 0, 10, 10.0], [20, 0, 30, 10]])
    boxes = np.array([[0, 0, 10, 10.0], [20, 0, 30, 10], [50, 50, 60, 60]])
    float_look = [(truth, boxes, np.array([0.9, 0.8, 0.2]))]  # the false box under 0.25
    int8_look = [(truth, boxes, np.array([0.9, 0.8, 0.27]))]  # the false box scores higher
    assert q.finder_figures(int8_look, 0.25) == (1.0, 2 / 3)
    assert q.int8_finder_conf(float_look, int8_look, 0.25) == 0.275
    assert q.finder_figures(int8_look, 0.275) == (1.0, 1.0)


def test_an_export_without_the_real_set_says_how_to_go_on(tmp_path: Path) -> None:
    import argparse

    from hupai.cli import UserError
    from hupai.commands.train import _int8_calib

    with pytest.raises(UserError, match="--no-int8"):
        _int8_calib(argparse.Namespace(int8=True, calib=tmp_path))
    assert _int8_calib(argparse.Namespace(int8=False, calib=tmp_path)) is None
    for part in ("train", "val"):
        (tmp_path / "images" / part).mkdir(parents=True)
    assert _int8_calib(argparse.Namespace(int8=True, calib=tmp_path)) == tmp_path


def test_a_gate_is_quantized_as_a_crop_classifier(tmp_path: Path) -> None:
    from hupai.training.quantize import role_of

    manifest = {
        "kind": "tile gate (crop classifier whose reject column drops boxes that are not tiles)",
        "input": {"name": "crops", "shape": ["n", 3, 64, 64]},
    }
    (tmp_path / "gate.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert role_of(tmp_path / "gate.onnx").kind == "namer"
