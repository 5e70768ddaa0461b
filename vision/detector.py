"""The tile detector at inference: one onnxruntime session, letterbox, decode, NMS.

The model is a YOLOv8 export (``models/hupai-tiles-v1.onnx``) described by a manifest beside
it (``.json``: class names, input size, preprocessing). Output ``[1, 4 + classes, anchors]``:
box centre/size in input pixels, then one score per class (no objectness).

Photos are read with their EXIF orientation applied (:func:`load_image`). A photo is
detected in one pass (:meth:`Detector.detect`), in overlapping windows
(:meth:`Detector.detect_tiled`), or through an affine warp of a region
(:meth:`Detector.detect_warped`, used to zoom on the tiles of a large photo and to turn
tilted rows level); :mod:`hupai.vision.reading` chooses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai import models
from hupai.vision import images
from hupai.vision.classes import CLASS_NAMES, CLASSES_VERSION
from hupai.vision.detections import Detections
from hupai.vision.images import ImageError as ImageError  # re-exported: the decoder's error

#: The shipped models' folder (package data: the checkout's models/ or the installed copy).
SHIPPED_MODELS = models.FOLDER
MODEL_NAME = "hupai-tiles-v1"
PROVISIONAL = (
    Path(__file__).resolve().parent.parent / "data" / "provisional" / "hupai-tiles-dev.onnx"
)
MODEL_ENV = "HUPAI_MODEL"
#: A model folder's pair: which finder and which namer read together, with their versions.
PAIR_FILE = "reader.json"
PAIR_MANIFEST = SHIPPED_MODELS / PAIR_FILE
THREADS_ENV = "HUPAI_THREADS"

#: Decoding keeps at most this many candidates (by score) before NMS.
MAX_CANDIDATES = 1000

Image = NDArray[np.uint8]


class ModelError(ValueError):
    """The model file or its manifest is missing, unreadable or does not fit hupai."""


# -- the model and its manifest --------------------------------------------------------------


@dataclass(frozen=True)
class ModelManifest:
    """What the runtime needs to know about a model (from its ``.json`` manifest)."""

    name: str
    version: str
    class_names: tuple[str, ...]
    input_name: str
    input_size: tuple[int, int]  # (height, width)
    pad_value: int = 114
    scale: float = 1 / 255
    rgb: bool = True
    output_name: str | None = None
    #: the score down to which boxes go to a namer (a finder's own, measured on val)
    finder_conf: float | None = None

    @staticmethod
    def from_dict(data: dict[str, Any], source: str) -> ModelManifest:
        try:
            names = tuple(str(n) for n in data["class_names"])
            shape = data["input"]["shape"]
            pre = data.get("preprocessing", {})
            return ModelManifest(
                name=str(data.get("name", "model")),
                version=str(data.get("version", "?")),
                class_names=names,
                input_name=str(data["input"].get("name", "images")),
                input_size=(int(shape[2]), int(shape[3])),
                pad_value=int(pre.get("pad_value", 114)),
                scale=float(pre.get("scale", 1 / 255)),
                rgb=str(pre.get("channel_order", "RGB")).upper() == "RGB",
                output_name=data.get("output", {}).get("name"),
                finder_conf=float(data["finder_conf"]) if "finder_conf" in data else None,
            )
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ModelError(
                f"{source}: not a hupai model manifest ({exc!r} missing or bad)"
            ) from None


#: A finder's one class: it boxes tiles, a namer names them.
FINDER_CLASSES = ("tile",)


def check_classes(manifest: ModelManifest, source: str) -> None:
    """The model must know exactly hupai's class list, in order — or be a finder."""
    if manifest.class_names != CLASS_NAMES and manifest.class_names != FINDER_CLASSES:
        theirs, ours = manifest.class_names, CLASS_NAMES
        if len(theirs) != len(ours):
            detail = f"{len(theirs)} classes, hupai has {len(ours)}"
        else:
            i = next(i for i, (a, b) in enumerate(zip(theirs, ours, strict=True)) if a != b)
            detail = f"class {i} is '{theirs[i]}', hupai's is '{ours[i]}'"
        raise ModelError(
            f"{source}: the model's classes do not match hupai's class list "
            f"(classes version {CLASSES_VERSION}): {detail}"
        )


def open_session(
    path: Path, threads: int | None, error: type[ValueError]
) -> tuple[Any, int | None]:
    """An onnxruntime CPU session for ``path`` with ``threads`` (else every core; the CLI
    and the service's settings read ``$HUPAI_THREADS``), telemetry off; a file it cannot
    load raises ``error`` naming it. The settings are :func:`session_options`."""
    import onnxruntime as ort

    ort.disable_telemetry_events()  # no usage events, no telemetry files
    options = session_options(threads)
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise error(f"{path}: onnxruntime cannot load it ({exc})") from None
    return session, threads


def session_options(threads: int | None) -> Any:
    """The session settings, chosen by measurement (``bench/sessions.py``, 2 threads, a
    loaded 2-core machine, interleaved against the plain session):

    * worker threads do not spin waiting for work: a read runs the finder then the namer,
      and the finder's spinning threads took the cores the namer needed (the two calls in a
      row 0.26× the time without spinning; the finder alone 0.61×, the namer 0.42×), as they
      take them from other readers and processes of a shared server;
    * every graph optimisation (basic only: 4-8× slower with int8 models, whose quantized
      operators are fused at the ``all`` level), one operator at a time (parallel execution
      1.2-1.8×), the memory arena and memory patterns kept (without patterns 1.3-1.6×);
    * IO binding of the namer's crop batch saved about a tenth of the namer's call (0.89×)
      — not worth a second path, so crops go in as a plain array.
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return options


def find_model(model: str | Path | None = None) -> Path:
    """The model file to use: the argument (the CLI fills it from ``$HUPAI_MODEL``), the
    shipped model, or the provisional development model, in that order."""
    if model is not None:
        path = Path(model)
        if not path.is_file():
            raise ModelError(f"{path}: no such model file")
        return path
    for candidate in (shipped_file("finder"), SHIPPED_MODELS / f"{MODEL_NAME}.onnx", PROVISIONAL):
        if candidate is not None and candidate.is_file():
            return candidate
    raise ModelError(
        f"no model found: expected {SHIPPED_MODELS / (MODEL_NAME + '.onnx')}; "
        f"pass --model PATH or set {MODEL_ENV}"
    )


def shipped_file(role: str) -> Path | None:
    """The shipped ``finder`` or ``namer`` file named by ``models/reader.json``."""
    try:
        data = json.loads(PAIR_MANIFEST.read_text(encoding="utf-8"))
        return SHIPPED_MODELS / str(data[role]["file"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def models_in(folder: str | Path) -> tuple[Path, Path]:
    """The finder and the namer a model folder's ``reader.json`` names (``models/`` is one;
    ``hupai retrain`` writes others), both files checked to be there."""
    folder = Path(folder)
    pair = folder / PAIR_FILE
    if not folder.is_dir():
        raise ModelError(f"{folder}: no such model folder")
    try:
        data = json.loads(pair.read_text(encoding="utf-8"))
        files = [folder / str(data[role]["file"]) for role in ("finder", "namer")]
    except FileNotFoundError:
        raise ModelError(f"{folder}: not a model folder (no {PAIR_FILE} in it)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"{pair}: cannot read the pair ({exc!r})") from None
    for path in files:
        if not path.is_file():
            raise ModelError(f"{pair}: names {path.name}, which is not in {folder}")
    return files[0], files[1]


def load_manifest(model_path: Path, session: Any = None) -> ModelManifest:
    """The manifest beside the model (``x.onnx`` → ``x.json``), else the ONNX metadata that
    ultralytics writes (``names``, ``imgsz``)."""
    json_path = model_path.with_suffix(".json")
    if json_path.is_file():
        try:
            data = json.loads(json_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelError(f"{json_path}: cannot read the manifest ({exc})") from None
        if not isinstance(data, dict):
            raise ModelError(f"{json_path}: not a hupai model manifest (not a JSON object)")
        manifest = ModelManifest.from_dict(data, str(json_path))
        source = str(json_path)
    elif session is not None:
        manifest = _manifest_from_metadata(session, model_path)
        source = str(model_path)
    else:
        raise ModelError(f"{json_path}: no manifest beside the model")
    check_classes(manifest, source)
    return manifest


def _manifest_from_metadata(session: Any, model_path: Path) -> ModelManifest:
    import ast

    meta = session.get_modelmeta().custom_metadata_map
    inp = session.get_inputs()[0]
    try:
        names_map = ast.literal_eval(meta["names"])
        names = tuple(str(names_map[i]) for i in range(len(names_map)))
        h, w = int(inp.shape[2]), int(inp.shape[3])
    except (KeyError, ValueError, TypeError, SyntaxError) as exc:
        raise ModelError(
            f"{model_path}: no manifest ({model_path.with_suffix('.json').name}) and no class "
            f"names in the ONNX metadata ({exc!r})"
        ) from None
    return ModelManifest(
        name=model_path.stem, version="?", class_names=names, input_name=inp.name, input_size=(h, w)
    )


# -- images ----------------------------------------------------------------------------------


def load_image(path: str | Path) -> Image:
    """A photo as a BGR uint8 array, turned upright by its EXIF orientation tag, decoded by
    :func:`hupai.vision.images.load_image` (the same guards as the service's).

    Raises ImageError naming the file when it is missing or not an image.
    """
    return images.load_image(path)


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the model input: ``input = image * ratio + (dx, dy)``."""

    ratio: float
    dx: float
    dy: float

    def to_image(self, xyxy: NDArray[np.float64]) -> NDArray[np.float64]:
        shift = np.array([self.dx, self.dy, self.dx, self.dy])
        return np.asarray((xyxy - shift) / self.ratio, dtype=np.float64)


def letterbox(image: Image, size: tuple[int, int], pad_value: int = 114) -> tuple[Image, Letterbox]:
    """Resize keeping the aspect ratio and pad to ``size`` (h, w), centred — as ultralytics.

    >>> out, lb = letterbox(np.zeros((100, 200, 3), np.uint8), (640, 640))
    >>> out.shape, lb.ratio, lb.dy
    ((640, 640, 3), 3.2, 160.0)
    """
    import cv2

    h, w = image.shape[:2]
    ratio = min(size[0] / h, size[1] / w)
    new_w, new_h = max(1, round(w * ratio)), max(1, round(h * ratio))  # a 16×20000 strip too
    dw, dh = (size[1] - new_w) / 2, (size[0] - new_h) / 2
    if (new_w, new_h) != (w, h):
        interp = cv2.INTER_AREA if ratio < 1 else cv2.INTER_LINEAR
        image = np.asarray(cv2.resize(image, (new_w, new_h), interpolation=interp), np.uint8)
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    out = cv2.copyMakeBorder(
        image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(pad_value,) * 3
    )
    return np.asarray(out, dtype=np.uint8), Letterbox(ratio, float(left), float(top))


def decode(
    output: NDArray[np.float32],
    num_classes: int,
    conf: float,
    iou: float,
    max_candidates: int = MAX_CANDIDATES,
    agnostic: bool = False,
) -> Detections:
    """YOLOv8 head output ``(4 + classes, anchors)`` → detections in input pixels, after
    per-class NMS and removal of boxes of another class on the same tile; ``agnostic``: one
    box per tile whatever its class (a finder's boxes, named afterwards)."""
    if output.ndim == 3:
        output = output[0]
    if output.shape[0] != 4 + num_classes:
        raise ModelError(
            f"model output has {output.shape[0]} rows per anchor, expected {4 + num_classes} "
            f"(4 box values + {num_classes} class scores)"
        )
    scores = output[4:]
    class_id = scores.argmax(axis=0)
    best = scores[class_id, np.arange(scores.shape[1])]
    keep = np.nonzero(best >= conf)[0]
    if len(keep) > max_candidates:
        keep = keep[np.argsort(-best[keep])[:max_candidates]]
    cx, cy, w, h = (output[k, keep].astype(np.float64) for k in range(4))
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    det = Detections(xyxy, best[keep].astype(np.float64), class_id[keep].astype(np.int64))
    return merge_boxes(det, iou, agnostic)


def merge_boxes(det: Detections, iou: float, agnostic: bool) -> Detections:
    """One box per tile: NMS (per class, or across classes when ``agnostic``), then the
    weaker of two boxes on one tile goes (see :meth:`Detections.without_cross_class_duplicates`)."""
    if agnostic:
        return det.without_cross_class_duplicates(iou=min(iou, 0.7)).without_enclosing_boxes()
    return det.with_nms(iou).without_cross_class_duplicates()


# -- the detector ----------------------------------------------------------------------------


class Detector:
    """One onnxruntime session; load once per process, call :meth:`detect` many times."""

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        threads: int | None = None,
        conf: float = 0.25,
        iou: float = 0.6,
        manifest: ModelManifest | None = None,
    ) -> None:
        """Load ``model`` (see :func:`find_model`). ``manifest`` replaces the one beside the
        model and skips the class-list check (benchmarks run other models this way)."""
        self.path = find_model(model)
        self.session, self.threads = open_session(self.path, threads, ModelError)
        self.manifest = manifest or load_manifest(self.path, self.session)
        self.conf = conf
        self.iou = iou
        self.input_size = self.manifest.input_size
        inputs = [i.name for i in self.session.get_inputs()]
        if self.manifest.input_name not in inputs:
            raise ModelError(
                f"{self.path}: the manifest names input '{self.manifest.input_name}', "
                f"the model has {inputs}"
            )

    @property
    def num_classes(self) -> int:
        return len(self.manifest.class_names)

    @property
    def is_finder(self) -> bool:
        """A class-agnostic finder: its boxes need a namer."""
        return self.manifest.class_names == FINDER_CLASSES

    def blob(self, image: Image) -> tuple[NDArray[np.float32], Letterbox]:
        """Model input for a BGR image and the letterbox that made it."""
        import cv2

        boxed, lb = letterbox(image, self.input_size, self.manifest.pad_value)
        # one pass in OpenCV (channel swap, HWC → NCHW, scale): the same float32 values as
        # numpy's transpose-astype-multiply, a third of the time
        x = cv2.dnn.blobFromImage(boxed, self.manifest.scale, swapRB=self.manifest.rgb)
        return np.asarray(x, dtype=np.float32), lb

    def detect(
        self, image: Image, *, conf: float | None = None, agnostic: bool = False
    ) -> Detections:
        """Detect tiles in a BGR image (whole image, letterboxed); boxes in image pixels.
        ``agnostic``: one box per tile, whatever class it scores (the finder's use)."""
        x, lb = self.blob(image)
        output = self.manifest.output_name or self.session.get_outputs()[0].name
        (out,) = self.session.run([output], {self.manifest.input_name: x})
        threshold = self.conf if conf is None else conf
        det = decode(np.asarray(out), self.num_classes, threshold, self.iou, agnostic=agnostic)
        h, w = image.shape[:2]
        return Detections(lb.to_image(det.xyxy), det.confidence, det.class_id).clipped(w, h)

    def detect_warped(
        self,
        image: Image,
        matrix: NDArray[np.float64],
        size: tuple[int, int],
        *,
        conf: float | None = None,
        agnostic: bool = False,
    ) -> Detections:
        """Detect in ``cv2.warpAffine(image, matrix, size)`` (size = (width, height));
        boxes are in the warped frame."""
        import cv2

        warped = cv2.warpAffine(
            image,
            matrix,
            size,
            flags=cv2.INTER_AREA if abs(np.linalg.det(matrix[:, :2])) < 1 else cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(self.manifest.pad_value,) * 3,
        )
        return self.detect(np.asarray(warped, dtype=np.uint8), conf=conf, agnostic=agnostic)

    def detect_tiled(
        self,
        image: Image,
        window: int,
        overlap: float = 0.25,
        *,
        conf: float | None = None,
        agnostic: bool = False,
    ) -> Detections:
        """Detect in overlapping square windows of ``window`` px (each letterboxed to the
        model input); a box cut by a window edge inside the image is left to the window that
        holds it whole."""
        h, w = image.shape[:2]
        parts: list[Detections] = []
        for x0, y0, x1, y1 in windows(w, h, window, overlap):
            det = self.detect(image[y0:y1, x0:x1], conf=conf, agnostic=agnostic)
            margin = 2.0
            inner = np.ones(len(det), dtype=bool)
            if x0 > 0:
                inner &= det.xyxy[:, 0] > margin
            if y0 > 0:
                inner &= det.xyxy[:, 1] > margin
            if x1 < w:
                inner &= det.xyxy[:, 2] < (x1 - x0) - margin
            if y1 < h:
                inner &= det.xyxy[:, 3] < (y1 - y0) - margin
            parts.append(det[inner].scaled(1.0, (x0, y0)))
        return merge_boxes(Detections.concat(parts), self.iou, agnostic)


def windows(
    width: int, height: int, window: int, overlap: float
) -> list[tuple[int, int, int, int]]:
    """Overlapping windows covering an image, as (x0, y0, x1, y1).

    >>> windows(1000, 500, 500, 0.25)
    [(0, 0, 500, 500), (250, 0, 750, 500), (500, 0, 1000, 500)]
    """

    def starts(span: int) -> Sequence[int]:
        if span <= window:
            return [0]
        step = window * (1 - overlap)
        n = math.ceil((span - window) / step) + 1  # evenly spread, at least this overlap
        return sorted({round(k * (span - window) / (n - 1)) for k in range(n)})

    win_w, win_h = min(window, width), min(window, height)
    return [(x, y, x + win_w, y + win_h) for y in starts(height) for x in starts(width)]
