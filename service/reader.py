"""The one thing the service needs from vision: image → :class:`~vision.reading.Reading`.

The app depends on a :class:`Reader` (``service.app.get_reader``); the real one wraps the ONNX
detector, loaded once in the app's lifespan. Tests override the dependency with a fake that
returns a fixed reading, so the HTTP layer is tested without a model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from scoring.tiles import Tile
from vision.detector import Image
from vision.reading import Reading


class Reader(Protocol):
    """Reads a winning hand from a decoded photo. Called from worker threads, several at
    once: an implementation must be thread-safe."""

    def info(self) -> dict[str, Any]:
        """What ``GET /healthz`` reports about the model."""
        ...

    def read(self, image: Image, *, win_tile: Tile | None = None, source: str = "photo") -> Reading:
        """The reading of a BGR image (see :func:`vision.reading.read_image`)."""
        ...


class ModelReader:
    """The shipped detector: one onnxruntime session, shared by every request
    (``InferenceSession.run`` is thread-safe)."""

    def __init__(self, model: Path, threads: int | None = None) -> None:
        from vision.detector import Detector

        self.detector = Detector(model, threads=threads)

    def info(self) -> dict[str, Any]:
        m = self.detector.manifest
        return {
            "name": m.name,
            "version": m.version,
            "file": self.detector.path.name,
            "input_size": list(self.detector.input_size),
            "threads": self.detector.threads,
        }

    def read(self, image: Image, *, win_tile: Tile | None = None, source: str = "photo") -> Reading:
        from vision.reading import read_image

        return read_image(image, detector=self.detector, win_tile=win_tile, source=source)


class ModelMissingError(RuntimeError):
    """The configured model cannot be used; the message says what to do."""


def check_model(model: Path) -> None:
    """Fail early, in one line, when the model or its manifest is missing or unreadable."""
    from vision.detector import ModelError, load_manifest

    if not model.is_file():
        raise ModelMissingError(
            f"model {model}: no such file. Train and export it (docs/reading.md), or point "
            "HUPAI_MODEL (or `hupai serve --model`) at an ONNX model with its .json manifest"
        )
    if model.with_suffix(".json").is_file():
        try:
            load_manifest(model)
        except ModelError as exc:
            raise ModelMissingError(str(exc)) from None


def load_reader(model: Path, threads: int | None = None) -> ModelReader:
    """The real reader (checks the model first, for a one-line error)."""
    from vision.detector import ModelError

    check_model(model)
    try:
        return ModelReader(model, threads)
    except ModelError as exc:
        raise ModelMissingError(str(exc)) from None
