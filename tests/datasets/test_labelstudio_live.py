"""The whole loop against a real Label Studio (optional: ``make test-labelstudio``, which
installs it in its own virtual environment; skipped unless HUPAI_LABEL_STUDIO names the
``label-studio`` executable): hupai label → import the tasks → a person's corrections →
export in four formats → hupai data import → the corrections are in the dataset."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hupai.cli import main
from hupai.datasets.importing import import_labels
from hupai.datasets.labels import load_yolo_labels
from hupai.vision.classes import CLASS_NAMES

pytestmark = pytest.mark.labelstudio
EXECUTABLE = os.environ.get("HUPAI_LABEL_STUDIO", "")
if not EXECUTABLE:
    pytest.skip("HUPAI_LABEL_STUDIO is not set (make test-labelstudio)", allow_module_level=True)

REAL = Path(__file__).resolve().parents[1] / "vision" / "fixtures" / "real"


def test_label_correct_in_label_studio_export_import(tmp_path: Path) -> None:
    from labelstudio_live import run, write_fixtures

    photos = tmp_path / "photos"
    photos.mkdir()
    for name in ("row14a.jpg", "row14b.jpg"):
        shutil.copy(REAL / name, photos / name)
    shutil.copy(REAL / "row14a.jpg", photos / "row14c.jpg")
    out = tmp_path / "out"
    assert (
        main(["label", str(photos), "--out", str(out), "--workers", "1", "--images", "copy"]) == 0
    )
    exports = tmp_path / "exports"
    write_fixtures(run(EXECUTABLE, out), exports)

    report = import_labels(
        exports / "export.json", tmp_path / "d", images=out, predictions=out / "labelstudio.json"
    )
    assert report.not_annotated == ["/data/local-files/?d=images/row14c.jpg"]
    labels = [CLASS_NAMES[b.cls] for b in load_yolo_labels(tmp_path / "d/labels/train/row14a.txt")]
    assert "5z" in labels and "9p" in labels and "6z" not in labels
    assert report.changes is not None and report.changes.to_dict()["boxes_added"] == 1
    for name in ("export-min.json", "yolo", "coco"):
        assert import_labels(exports / name, tmp_path / name, images=out).images
