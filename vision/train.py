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

import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

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
    lr0: float = 0.01
    patience: int = 100
    seed: int = 0
    device: str = "cpu"
    project: str = "runs"
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
    from ultralytics import YOLO  # heavy; the train extra

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


def export_onnx(weights: Path, out: Path, imgsz: int = 640, opset: int = 12) -> Path:
    """Export weights to a fixed-size ONNX file (input ``images [1,3,imgsz,imgsz]``)."""
    prepare_offline_env(weights.resolve().parents[2])
    from ultralytics import YOLO

    exported = YOLO(str(weights)).export(
        format="onnx", imgsz=imgsz, opset=opset, simplify=True, dynamic=False
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exported, out)
    return out
