"""A model folder (``--models DIR``, ``HUPAI_MODELS``): its reader.json names the finder and
the namer that read together — the shipped ``models/`` or one ``hupai retrain`` wrote."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from hupai.cli import UserError, main, models_folder
from hupai.vision.detector import SHIPPED_MODELS, ModelError, models_in
from hupai.vision.namer import PARTNER_KEYS

# a credited real photo that ships with the tests (data/real is built, never in a fresh clone)
REAL_PHOTO = sorted(
    (Path(__file__).resolve().parents[1] / "vision" / "fixtures" / "real").glob("*.jpg")
)[0]


def copied_models(folder: Path) -> Path:
    """The shipped pair copied into ``folder`` (a model folder of its own)."""
    folder.mkdir()
    finder, namer = models_in(SHIPPED_MODELS)
    for onnx in (finder, namer):
        for path in (onnx, onnx.with_suffix(".json")):
            shutil.copy(path, folder / path.name)
    manifest = json.loads(namer.with_suffix(".json").read_text())
    for partner in filter(None, (manifest.get(k) for k in PARTNER_KEYS)):
        onnx = SHIPPED_MODELS / partner["file"]
        for path in (onnx, onnx.with_suffix(".json")):
            shutil.copy(path, folder / path.name)
    shutil.copy(SHIPPED_MODELS / "reader.json", folder / "reader.json")
    return folder


def test_the_shipped_folder_names_its_pair() -> None:
    finder, namer = models_in(SHIPPED_MODELS)
    assert finder.parent == namer.parent == SHIPPED_MODELS
    assert "finder" in finder.name and "namer" in namer.name


def test_a_folder_without_a_pair_is_named(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not a model folder"):
        models_in(tmp_path)


def test_a_pair_naming_a_missing_file_is_named(tmp_path: Path) -> None:
    folder = copied_models(tmp_path / "m")
    finder, _ = models_in(folder)
    finder.unlink()
    with pytest.raises(ModelError, match=f"names {finder.name}, which is not in"):
        models_in(folder)


def test_models_fills_model_and_namer(tmp_path: Path) -> None:
    folder = copied_models(tmp_path / "m")
    args = argparse.Namespace(command="read", models=str(folder), model=None, namer=None)
    models_folder(args)
    assert (Path(args.model).parent, Path(args.namer).parent) == (folder, folder)


def test_models_with_model_is_refused() -> None:
    args = argparse.Namespace(command="read", models="models", model="m.onnx", namer=None)
    with pytest.raises(UserError, match="not both"):
        models_folder(args)


def test_hupai_models_in_the_environment_is_a_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = copied_models(tmp_path / "m")
    monkeypatch.setenv("HUPAI_MODELS", str(folder))
    args = argparse.Namespace(command="eval", models=None, model=None, namer=None)
    models_folder(args)
    assert Path(args.namer).parent == folder


def test_hupai_read_loads_a_model_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copied_models(tmp_path / "m")
    assert main(["read", str(REAL_PHOTO), "--models", str(folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hand"]


def test_a_bad_model_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", "x.jpg", "--models", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"hupai read: {tmp_path}: not a model folder (no reader.json in it)"
    )


def test_the_service_settings_take_a_model_folder(tmp_path: Path) -> None:
    from hupai.service.settings import Settings

    folder = copied_models(tmp_path / "m")
    settings = Settings(_env_file=None, models=folder)
    assert settings.model_file().parent == folder
    namer = settings.namer_file()
    assert namer is not None and namer.parent == folder


def test_the_service_settings_refuse_a_folder_without_a_pair(tmp_path: Path) -> None:
    from pydantic import ValidationError

    from hupai.service.settings import Settings

    with pytest.raises(ValidationError, match="not a model folder"):
        Settings(_env_file=None, models=tmp_path)
