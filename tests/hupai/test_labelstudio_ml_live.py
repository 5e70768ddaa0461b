"""The ML backend against a real Label Studio 1.23 (optional: ``make test-labelstudio-ml``,
which installs it in its own virtual environment; skipped unless HUPAI_LABEL_STUDIO names the
``label-studio`` executable): connected in a project's Model settings, it is asked for each
task's prediction as the task is opened, hears the annotations, and Start Training runs a
retraining whose state shows at /status."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from hupai.vision.classes import CLASS_NAMES

pytestmark = pytest.mark.labelstudio
EXECUTABLE = os.environ.get("HUPAI_LABEL_STUDIO", "")
if not EXECUTABLE:
    pytest.skip("HUPAI_LABEL_STUDIO is not set (make test-labelstudio-ml)", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from labelstudio_ml_live import run

    args = "--epochs 1 --epoch-crops 64 --no-int8 --real-test-limit 4"
    return run(EXECUTABLE, tmp_path_factory.mktemp("lsml"), retrain_args=args)


def test_label_studio_connects_the_backend(session: dict[str, Any]) -> None:
    ml = session["ml"]
    assert ml["state"] == "CO" and ml["model_version"].startswith("hupai-reader")


def test_opening_each_task_shows_the_backends_boxes(session: dict[str, Any]) -> None:
    for task in session["opened"].values():
        (prediction,) = task["predictions"]
        names = {r["value"]["rectanglelabels"][0] for r in prediction["result"]}
        assert prediction["result"] and names <= set(CLASS_NAMES)


def test_the_uploaded_photo_is_fetched_from_label_studio(session: dict[str, Any]) -> None:
    uploaded = [t for t in session["opened"].values() if "/upload/" in t["data"]["image"]]
    assert uploaded and uploaded[0]["predictions"][0]["result"]


def test_annotations_reach_the_webhook(session: dict[str, Any]) -> None:
    actions = [e["request"]["action"] for e in session["exchanges"] if e["path"] == "/webhook"]
    assert "ANNOTATION_CREATED" in actions and "ANNOTATION_UPDATED" in actions


def test_start_training_runs_a_retraining(session: dict[str, Any]) -> None:
    training = session["status"]["training"]
    assert training["state"] in ("done", "failed")
    if training["state"] == "failed":
        assert "train extra" in training["error"], training  # only for want of torch
