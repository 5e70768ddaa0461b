"""Training recipe for the tile detector (ultralytics; the ``train`` extra).

Nothing here imports torch or ultralytics at module level: the product runs without them.

The recipe, in stages (each a resumable ultralytics run under ``runs/<name>``):

1. ``pretrain`` — from the architecture YAML (no pretrained weights can be downloaded),
   on synthetic scenes, optionally with the real train split mixed in.
2. ``finetune`` — from the previous stage's weights, on the real train split mixed with
   synthetic scenes (so the model keeps what the varied synthetic styles taught it).

Ultralytics writes ``weights/last.pt`` after every epoch, so a run killed at any moment is
resumed with ``--resume`` from where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hupai.vision.classes import CLASS_NAMES, CLASSES_VERSION
from hupai.vision.detector import FINDER_CLASSES

#: Architecture the shipped model is built from (ultralytics' own YAML, no weights).
DEFAULT_ARCH = "yolov8n.yaml"
FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
)


@dataclass(frozen=True)
class Augment:
    """Augmentation chosen for generalisation to unseen tile sets and phone photos.

    Strong hue/saturation jitter because other sets print their suits in other inks;
    perspective and rotation because phones look at tables from 20-70 degrees; no vertical
    flip (tiles are photographed upright or rotated, not mirrored top to bottom by cameras,
    and the real set's own augmentation already holds flips).
    """

    hsv_h: float = 0.05
    hsv_s: float = 0.7
    hsv_v: float = 0.45
    degrees: float = 10.0
    translate: float = 0.1
    scale: float = 0.6
    shear: float = 2.0
    perspective: float = 0.0005
    fliplr: float = 0.5
    flipud: float = 0.0
    mosaic: float = 1.0
    mixup: float = 0.05
    close_mosaic: int = 5


@dataclass(frozen=True)
class TrainConfig:
    data: str
    name: str
    model: str = DEFAULT_ARCH
    epochs: int = 40
    imgsz: int = 640
    batch: int = 16
    workers: int = 2
    # Ultralytics' "auto" picks AdamW at 0.002·5/(4+classes) ≈ 2e-4 on short runs, a rate
    # meant for fine-tuning pretrained weights: from scratch it barely learned in 5 epochs
    # (val mAP50 0.002). AdamW at 2e-3 is the from-scratch recipe here.
    optimizer: str = "AdamW"
    lr0: float = 0.002
    warmup_epochs: float = 3.0
    # Ultralytics accumulates gradients up to a nominal batch of 64: at batch 16 that is one
    # optimizer step per four batches, 55 steps an epoch here — far too few to learn from
    # scratch in the epochs a CPU affords. A nominal batch equal to the batch steps every batch.
    nbs: int = 16
    cache: str | bool = False  # "ram" decodes every image once (≈ 3 GB for 3,500 at 512 px)
    single_cls: bool = False  # a class-agnostic finder: every box is "a tile"
    patience: int = 100
    seed: int = 0
    device: str = "cpu"
    project: str = "runs"
    time: float | None = None  # hours: ultralytics stops there whatever the epochs (GPU runs)
    augment: Augment = field(default_factory=Augment)

    def ultralytics_kwargs(self) -> dict[str, Any]:
        kwargs = {k: v for k, v in asdict(self).items() if k not in ("model", "augment")}
        kwargs.update(asdict(self.augment))
        kwargs["project"] = str(Path(self.project).resolve())
        kwargs["data"] = str(Path(self.data).resolve())
        # Offline and reproducible: no AMP check download, no plots needing fonts from the
        # hub, checkpoints each epoch (last.pt) for --resume.
        kwargs.update(amp=False, plots=False, save=True, exist_ok=True, deterministic=False)
        return kwargs


def prepare_offline_env(run_root: Path) -> None:
    """Keep ultralytics offline and its settings inside the run folder (see notes/offline-yolo)."""
    config_dir = run_root / ".ultralytics"
    (config_dir / "Ultralytics").mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ.setdefault("MPLCONFIGDIR", str(run_root / ".matplotlib"))
    for font in FONT_CANDIDATES:
        if Path(font).exists():
            for name in ("Arial.ttf", "Arial.Unicode.ttf"):
                target = config_dir / "Ultralytics" / name
                if not target.exists():
                    shutil.copyfile(font, target)
            break


def train(config: TrainConfig, resume: bool = False) -> Path:
    """Run (or resume) one training stage; returns the path of its best weights."""
    run_dir = Path(config.project).resolve() / config.name
    prepare_offline_env(Path(config.project).resolve())
    from ultralytics import YOLO  # type: ignore[attr-defined,unused-ignore]

    last = run_dir / "weights" / "last.pt"
    if resume and not last.exists():
        raise FileNotFoundError(f"nothing to resume: {last} does not exist")
    model = YOLO(str(last) if resume else config.model)
    model.add_callback("on_pretrain_routine_start", _use_every_core(config.workers))
    if resume:
        model.train(resume=True)
    else:
        model.train(**config.ultralytics_kwargs())
    return run_dir / "weights" / "best.pt"


def _use_every_core(workers: int) -> Any:
    """Ultralytics pins CPU training to ``cpu_count - 1`` torch threads and no loader workers,
    which on a 2-core machine leaves a core idle; undo both before the loaders are built."""

    def callback(trainer: Any) -> None:
        import torch

        torch.set_num_threads(os.cpu_count() or 1)
        trainer.args.workers = workers

    return callback


_RECORDED_ARGS = ("model", "data", "epochs", "imgsz", "batch", "optimizer", "lr0", "seed")

#: ONNX opset of the shipped model: 12 runs on every onnxruntime since 1.6 and on
#: OpenCV's DNN module, and YOLOv8 needs nothing newer.
ONNX_OPSET = 12


def _architecture(model: Any, train_args: dict[str, Any]) -> str:
    yaml = getattr(getattr(model, "model", None), "yaml", None) or {}
    return str(yaml.get("yaml_file") or Path(str(train_args.get("model", ""))).name)


def export_onnx(
    weights: Path,
    out: Path,
    imgsz: int = 640,
    version: str = "dev",
    data: str = "",
    command: str = "",
    fp16_weights: bool = False,
    finder_conf: float = 0.25,
    int8_calib: Path | None = None,
) -> Path:
    """Export weights to a fixed-size ONNX file plus its manifest ``<out>.json``
    (``fp16_weights``: weights stored as float16, computed in float32 — half the size;
    ``int8_calib``, a real YOLO folder: then quantized to int8 where that costs nothing on
    its val split, :mod:`hupai.training.quantize`).

    Input ``images`` float32 [1,3,imgsz,imgsz] (RGB, /255, letterboxed with grey 114);
    output ``output0`` [1, 4+classes, anchors] (cx, cy, w, h in input pixels, then class
    scores) that needs NMS.
    """
    parents = weights.resolve().parents
    # runs/<name>/weights/best.pt keeps its settings in runs/; a file elsewhere, beside it
    prepare_offline_env(parents[2] if len(parents) > 2 else parents[0])
    from ultralytics import YOLO  # type: ignore[attr-defined,unused-ignore]

    model = YOLO(str(weights))
    train_args = dict((getattr(model, "ckpt", None) or {}).get("train_args", {}))
    names = [model.names[i] for i in range(len(model.names))]
    finder = len(names) == 1  # trained with single_cls: one class, "a tile"
    class_names = list(FINDER_CLASSES) if finder else list(CLASS_NAMES)
    if not finder and tuple(names) != CLASS_NAMES:
        raise ValueError(f"{weights}: class names {names} differ from hupai.vision.classes")
    exported = model.export(
        format="onnx", imgsz=imgsz, opset=ONNX_OPSET, simplify=True, dynamic=False
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    if fp16_weights:
        from hupai.training.compact import store_weights_fp16

        store_weights_fp16(Path(exported), out)
    elif Path(exported).resolve() != out.resolve():  # ultralytics writes beside the weights
        shutil.copyfile(exported, out)
    anchors = sum((imgsz // stride) ** 2 for stride in (8, 16, 32))
    manifest = {
        "name": "hupai-finder" if finder else "hupai-tiles",
        "kind": "class-agnostic tile finder" if finder else "tile detector",
        "version": version,
        "classes_version": CLASSES_VERSION,
        "class_names": class_names,
        # the YAML the network was first built from, not the weights this stage started at
        "architecture": _architecture(model, train_args),
        "input": {"name": "images", "shape": [1, 3, imgsz, imgsz], "dtype": "float32"},
        "preprocessing": {
            "letterbox": True,
            "pad_value": 114,
            "scale": 1 / 255,
            "channel_order": "RGB",
            "stride": 32,
        },
        "output": {
            "name": "output0",
            "shape": [1, 4 + len(class_names), anchors],
            "box_format": "cxcywh",
        },
        **({"finder_conf": finder_conf} if finder else {}),
        "opset": ONNX_OPSET,
        "weights": "float16, computed in float32" if fp16_weights else "float32",
        "sha256": hashlib.sha256(out.read_bytes()).hexdigest(),
        "bytes": out.stat().st_size,
        "data": data,
        "training_command": command,
        # The last stage's own arguments, straight from the checkpoint.
        "train_args": {k: train_args[k] for k in _RECORDED_ARGS if k in train_args},
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")
    if int8_calib is not None:
        from hupai.training.quantize import quantize

        quantize(out, out, calib=int8_calib)
    return out


def write_mix_yaml(train: list[Path], val: Path, out: Path) -> Path:
    """A data.yaml whose train split is several image folders (real + synthetic) and whose
    names are our class list; ``val`` is one image folder (never the real test split)."""
    from hupai.datasets.names import folder_class_map

    for folder in (*train, val):
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder} is not an image folder")
        # classes travel by name: labels numbered in another order would train silently wrong
        ids = folder_class_map(folder, folder.parent.parent)
        if ids is not None and ids != list(range(len(ids))):
            raise ValueError(
                f"{folder}: its labels number the classes in another order than hupai's "
                "(e.g. Label Studio's alphabetical one); bring it into hupai's layout first: "
                f"hupai data import {folder.parent.parent} --out NEW_FOLDER"
            )
    lines = ["train:"]
    lines += [f"  - {folder.resolve()}" for folder in train]
    lines.append(f"val: {val.resolve()}")
    lines.append("names:")
    lines += [f"  {i}: '{name}'" for i, name in enumerate(CLASS_NAMES)]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return out


def weights_from_onnx(
    onnx_path: Path,
    out: Path,
    calibration: list[Path],
    *,
    arch: str = DEFAULT_ARCH,
    imgsz: int = 512,
) -> Path:
    """Rebuild trainable ultralytics weights from one of hupai's own ONNX exports.

    The export folds each batch norm into its convolution (``model.i….conv.weight`` and
    ``.bias`` keep the module names). Each convolution gets the folded kernel back, and its
    batch norm is set to give the folded bias back — with running statistics measured on
    ``calibration`` photos, so that training-mode batch statistics start close to them and
    fine-tuning begins from the exported model's function rather than from noise.
    """
    import cv2
    import numpy as np
    import onnx
    import torch

    prepare_offline_env(out.resolve().parent)
    from ultralytics.nn.modules import Conv  # type: ignore[attr-defined,unused-ignore]
    from ultralytics.nn.tasks import DetectionModel  # type: ignore[attr-defined,unused-ignore]

    from hupai.training.compact import float32_weights

    graph = onnx.load(str(onnx_path)).graph
    folded = {
        k: torch.from_numpy(np.array(v, np.float32)) for k, v in float32_weights(graph).items()
    }
    # the classes the export has ([1, 4 + nc, anchors]): a class-agnostic finder has one
    nc = graph.output[0].type.tensor_type.shape.dim[1].dim_value - 4
    names = list(CLASS_NAMES) if nc == len(CLASS_NAMES) else ["tile"] * nc
    net: Any = DetectionModel(  # type: ignore[no-untyped-call,unused-ignore]
        arch, nc=nc, verbose=False
    )
    net.names = dict(enumerate(names))
    stats: dict[str, list[torch.Tensor]] = {}
    hooks = []
    with torch.no_grad():
        for name, module in net.named_modules():
            if isinstance(module, Conv):
                w, b = folded[f"{name}.conv.weight"], folded[f"{name}.conv.bias"]
                module.conv.weight.copy_(w)
                bn: Any = module.bn
                bn.running_mean.zero_()
                bn.running_var.fill_(1 - bn.eps)
                bn.weight.fill_(1.0)
                bn.bias.copy_(b)
                hooks.append(
                    module.conv.register_forward_hook(
                        lambda _m, _i, o, key=name: stats.setdefault(key, []).append(
                            torch.stack([o.mean((0, 2, 3)), (o * o).mean((0, 2, 3))])
                        )
                    )
                )
            elif (
                isinstance(module, torch.nn.Conv2d)
                and f"{name}.weight" in folded
                and module.weight.shape == folded[f"{name}.weight"].shape
            ):  # the head's plain convolutions (the class layer only when the classes match)
                module.weight.copy_(folded[f"{name}.weight"])
                if module.bias is not None and f"{name}.bias" in folded:
                    module.bias.copy_(folded[f"{name}.bias"])
        net.eval()
        from hupai.vision.detector import letterbox

        for path in calibration:
            read = cv2.imread(str(path))
            if read is None:
                continue
            boxed, _ = letterbox(np.asarray(read, np.uint8), (imgsz, imgsz))
            x = torch.from_numpy(boxed[:, :, ::-1].copy()).permute(2, 0, 1)[None].float() / 255
            net(x)
    for h in hooks:
        h.remove()
    with torch.no_grad():
        for name, module in net.named_modules():
            if isinstance(module, Conv) and name in stats:
                s = torch.stack(stats[name]).mean(0)
                mean, var = s[0], (s[1] - s[0] ** 2).clamp_min(1e-6)
                bn = module.bn
                b = folded[f"{name}.conv.bias"]
                bn.running_mean.copy_(mean)
                bn.running_var.copy_(var)
                bn.weight.copy_(torch.sqrt(var + bn.eps))
                bn.bias.copy_(mean + b)
    out.parent.mkdir(parents=True, exist_ok=True)
    ckpt = {
        "model": net,  # fp32: a starting point for training
        "train_args": {"model": arch, "imgsz": imgsz},
        "epoch": -1,
        "optimizer": None,
        "date": None,
        "version": "hupai weights_from_onnx",
        "source": str(onnx_path),
    }
    torch.save(ckpt, out)
    return out
