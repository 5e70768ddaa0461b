"""``hupai train blend``: a namer and a partner named together, in a folder of their own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hupai.training.blend import write_blend
from hupai.vision.namer import Namer, NamerError

MODELS = Path(__file__).resolve().parents[2] / "models"
SHIPPED = MODELS / "hupai-namer-v6.onnx"
HUPAI = Path(sys.executable).parent / "hupai"


def _crops() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, (4, 64, 64, 3), dtype=np.uint8)


def test_a_namer_blended_with_itself_names_as_it_does(tmp_path: Path) -> None:
    blended = write_blend(SHIPPED, SHIPPED, 0.4, tmp_path / "blend")
    namer = Namer(str(blended), threads=1)
    assert namer.manifest.blend == ("partner-hupai-namer-v6.onnx", 0.4)
    alone = Namer(str(SHIPPED), threads=1).name_crops(_crops()).probs
    assert np.allclose(namer.name_crops(_crops()).probs, alone, atol=1e-5)


def test_the_blend_carries_the_bonus_reader_its_namer_names(tmp_path: Path) -> None:
    blended = write_blend(SHIPPED, SHIPPED, 0.4, tmp_path / "blend")
    assert Namer(str(blended), threads=1).manifest.bonus == "hupai-bonus-v1.onnx"
    assert (blended.parent / "hupai-bonus-v1.onnx").is_file()


def test_a_folder_with_files_is_not_written_into(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(NamerError, match="not an empty folder"):
        write_blend(SHIPPED, SHIPPED, 0.4, tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_a_file_where_the_folder_would_go_is_kept(tmp_path: Path) -> None:
    (tmp_path / "blend").write_text("keep me")
    with pytest.raises(NamerError, match="not an empty folder"):
        write_blend(SHIPPED, SHIPPED, 0.4, tmp_path / "blend")
    assert (tmp_path / "blend").read_text() == "keep me"


@pytest.mark.parametrize("weight", [0.0, 1.0, -0.2])
def test_a_weight_outside_zero_to_one_is_refused(tmp_path: Path, weight: float) -> None:
    with pytest.raises(NamerError, match=f"blend weight {weight}"):
        write_blend(SHIPPED, SHIPPED, weight, tmp_path / "blend")


def test_the_command_names_a_missing_partner_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            str(HUPAI),
            "train",
            "blend",
            str(SHIPPED),
            str(tmp_path / "gpu.onnx"),
            "--out",
            str(tmp_path / "blend"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "gpu.json" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "blend").exists()
