"""The one thing the service needs from vision: image → :class:`~hupai.vision.reading.Reading`.

The app depends on a :class:`Reader` (``hupai.service.app.get_reader``); the real one wraps the ONNX
detector, loaded once in the app's lifespan. Tests override the dependency with a fake that
returns a fixed reading, so the HTTP layer is tested without a model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from hupai.scoring.tiles import Tile
from hupai.vision.detector import Image
from hupai.vision.reading import Reading


class Reader(Protocol):
    """Reads a winning hand from a decoded photo. Called from worker threads, several at
    once: an implementation must be thread-safe."""

    def info(self) -> dict[str, Any]:
        """What ``GET /healthz`` reports about the model."""
        ...

    def read(self, image: Image, *, win_tile: Tile | None = None, source: str = "photo") -> Reading:
        """The reading of a BGR image (see :func:`hupai.vision.reading.read_image`)."""
        ...


class ModelReader:
    """The shipped finder and namer: one onnxruntime session each, shared by every request
    (``InferenceSession.run`` is thread-safe). Without a namer the detector names."""

    def __init__(self, model: Path, threads: int | None = None, namer: Path | None = None) -> None:
        from hupai.vision.detector import Detector
        from hupai.vision.namer import Namer

        self.detector = Detector(model, threads=threads)
        self.namer = Namer(namer, threads=threads) if namer is not None else None

    def info(self) -> dict[str, Any]:
        m = self.detector.manifest
        out: dict[str, Any] = {
            "name": m.name,
            "version": m.version,
            "file": self.detector.path.name,
            "input_size": list(self.detector.input_size),
            "threads": self.detector.threads,
        }
        if self.namer is not None:
            n = self.namer.manifest
            out["namer"] = {
                "name": n.name,
                "version": n.version,
                "file": self.namer.path.name,
                "input_size": n.input_size,
            }
        return out

    def read(self, image: Image, *, win_tile: Tile | None = None, source: str = "photo") -> Reading:
        from hupai.vision.reading import read_image

        return read_image(
            image, detector=self.detector, namer=self.namer, win_tile=win_tile, source=source
        )


class ModelMissingError(RuntimeError):
    """The configured model cannot be used; the message says what to do."""


def check_model(model: Path, namer: Path | None = None) -> None:
    """Fail early, in one line, when a model or its manifest is missing or unreadable."""
    from hupai.vision.detector import FINDER_CLASSES, ModelError, load_manifest
    from hupai.vision.namer import NamerError, load_namer_manifest

    if not model.is_file():
        raise ModelMissingError(
            f"model {model}: no such file. Train and export it (docs/reading.md), or point "
            "HUPAI_MODEL (or `hupai serve --model`) at an ONNX model with its .json manifest"
        )
    finder = False
    if model.with_suffix(".json").is_file():
        try:
            finder = load_manifest(model).class_names == FINDER_CLASSES
        except ModelError as exc:
            raise ModelMissingError(str(exc)) from None
    if namer is None:
        if finder:
            raise ModelMissingError(
                f"model {model} is a finder: it needs a namer (HUPAI_NAMER or --namer)"
            )
        return
    if not namer.is_file():
        raise ModelMissingError(
            f"namer {namer}: no such file. Train and export it (docs/reading.md), or point "
            "HUPAI_NAMER (or `hupai serve --namer`) at an ONNX namer with its .json manifest"
        )
    try:
        load_namer_manifest(namer)
    except NamerError as exc:
        raise ModelMissingError(str(exc)) from None


def load_reader(model: Path, threads: int | None = None, namer: Path | None = None) -> ModelReader:
    """The real reader (checks the models first, for a one-line error)."""
    from hupai.vision.detector import ModelError
    from hupai.vision.namer import NamerError

    check_model(model, namer)
    try:
        return ModelReader(model, threads, namer)
    except (ModelError, NamerError) as exc:
        raise ModelMissingError(str(exc)) from None
