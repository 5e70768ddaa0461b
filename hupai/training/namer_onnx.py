"""A shipped namer ONNX → trainable torch weights, so that a retrain starts where the shipped
namer stands instead of from ImageNet (an hour less of CPU here).

The export folded every batch norm into the convolution before it (ONNX ``Conv`` with a
bias) and stored weights as float16 behind ``Cast`` nodes (:mod:`hupai.training.compact`).
The rebuild puts each conv's weight back and turns its batch norm into the identity plus
the folded bias (weight 1, running mean 0, running variance 1 - eps), which is exact in
eval mode. Batch statistics would undo the folding, so a model rebuilt this way is trained
with its batch norms frozen (:func:`freeze_batch_norms`).

Nothing here imports torch at module level.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray


class RebuildError(ValueError):
    """The ONNX does not match the namer's architecture."""


def conv_weights(path: Path) -> tuple[list[tuple[NDArray[Any], NDArray[Any]]], dict[str, Any]]:
    """Each ``Conv``'s (weight, bias) in graph order, and the final ``Gemm``'s weight/bias."""
    import onnx

    from hupai.training.compact import float32_weights

    graph = onnx.load(str(path)).graph
    values = float32_weights(graph)
    convs = []
    fc: dict[str, Any] = {}
    for node in graph.node:
        if node.op_type == "Conv":
            w = values[node.input[1]].astype(np.float32)
            b = (
                values[node.input[2]].astype(np.float32)
                if len(node.input) > 2
                else np.zeros(w.shape[0], np.float32)
            )
            convs.append((w, b))
        elif node.op_type == "Gemm":
            trans_b = any(a.name == "transB" and a.i == 1 for a in node.attribute)
            w = values[node.input[1]].astype(np.float32)
            fc = {"weight": w if trans_b else w.T, "bias": values[node.input[2]].astype(np.float32)}
    return convs, fc


def model_from_onnx(path: Path, build_model: Any) -> Any:
    """The torch namer holding ``path``'s weights (batch norms as identity + bias)."""
    import torch

    model = build_model()
    convs_onnx, fc = conv_weights(path)
    mods = list(model.modules())
    convs = [m for m in mods if isinstance(m, torch.nn.Conv2d)]
    bns = [m for m in mods if isinstance(m, torch.nn.BatchNorm2d)]
    if len(convs_onnx) != len(convs) or len(bns) != len(convs) or not fc:
        raise RebuildError(
            f"{path}: {len(convs_onnx)} convolutions, the namer has {len(convs)} "
            f"(and {len(bns)} batch norms)"
        )
    with torch.no_grad():
        for conv, bn, (w, b) in zip(convs, bns, convs_onnx, strict=True):
            if tuple(conv.weight.shape) != w.shape:
                raise RebuildError(
                    f"{path}: a {w.shape} weight for a {tuple(conv.weight.shape)} conv"
                )
            conv.weight.copy_(torch.from_numpy(w))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            assert bn.running_mean is not None and bn.running_var is not None  # tracked stats
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        if tuple(model._fc.weight.shape) != fc["weight"].shape:
            raise RebuildError(
                f"{path}: head {fc['weight'].shape}, namer {tuple(model._fc.weight.shape)}"
            )
        model._fc.weight.copy_(torch.from_numpy(np.ascontiguousarray(fc["weight"])))
        model._fc.bias.copy_(torch.from_numpy(fc["bias"]))
    return model


def freeze_batch_norms(model: Any) -> None:
    """Batch norms in eval mode (running statistics used and kept) while the rest trains."""
    import torch

    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()
