"""Label Studio tasks: ``save_labelstudio`` / ``load_labelstudio`` (JSON, a list of tasks).

A task refers to its image in ``data.image`` (a URL: for a folder served by Label Studio,
``/data/local-files/?d=<path under LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT>``) and carries
the model's boxes as a **prediction** (pre-annotation): rectangle regions in percent of the
image, each with its score, and the prediction's ``model_version`` and mean ``score`` (which
Label Studio sorts tasks by). The labelling config that goes with the tasks is
:func:`labelstudio_config` (a ``RectangleLabels`` named ``label`` on an ``Image`` named
``image``, one label per hupai class).

Loading reads our tasks and Label Studio's JSON export alike: a person's **annotations**
win over predictions (``source="auto"``); rotated rectangles become their axis-aligned
envelope.

>>> from hupai.vision.detections import Detections
>>> item = ImageLabels("/data/local-files/?d=images/a.jpg", 200, 100,
...                    Detections.make([[20, 10, 60, 50]], [3], [0.9]))
>>> (task,) = labelstudio_tasks([item], model_version="m 1")
>>> task["predictions"][0]["result"][0]["value"]
{'x': 10.0, 'y': 10.0, 'width': 20.0, 'height': 40.0, 'rotation': 0, 'rectanglelabels': ['4m']}
>>> labelstudio_items([task])[0].detections.xyxy.tolist()
[[20.0, 10.0, 60.0, 50.0]]
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

import numpy as np

from hupai.datasets.image_labels import ImageLabels
from hupai.datasets.labels import LabelError
from hupai.vision.classes import CLASS_NAMES, class_by_name
from hupai.vision.detections import Detections

FROM_NAME = "label"
TO_NAME = "image"
Source = Literal["auto", "annotations", "predictions"]


def labelstudio_config(names: Sequence[str] = CLASS_NAMES) -> str:
    """The labelling config (XML) matching the tasks: paste it in the project's settings.

    >>> print(labelstudio_config(["1m", "back"]))
    <View>
      <Image name="image" value="$image" zoom="true"/>
      <RectangleLabels name="label" toName="image">
        <Label value="1m"/>
        <Label value="back"/>
      </RectangleLabels>
    </View>
    """
    labels = "".join(f"    <Label value={quoteattr(n)}/>\n" for n in names)
    return (
        "<View>\n"
        f'  <Image name="{TO_NAME}" value="$image" zoom="true"/>\n'
        f'  <RectangleLabels name="{FROM_NAME}" toName="{TO_NAME}">\n'
        f"{labels}"
        "  </RectangleLabels>\n"
        "</View>"
    )


def labelstudio_tasks(items: Sequence[ImageLabels], *, model_version: str) -> list[dict[str, Any]]:
    """One task per image, the boxes as a prediction. ``item.meta["data"]`` adds fields to
    the task's ``data`` (shown as columns in Label Studio's data manager)."""
    tasks = []
    for item in items:
        det = item.detections
        results = []
        for k in range(len(det)):
            x1, y1, x2, y2 = (float(v) for v in det.xyxy[k])
            results.append(
                {
                    "id": f"r{k}",
                    "type": "rectanglelabels",
                    "from_name": FROM_NAME,
                    "to_name": TO_NAME,
                    "original_width": item.width,
                    "original_height": item.height,
                    "image_rotation": 0,
                    "value": {
                        "x": 100.0 * x1 / item.width,
                        "y": 100.0 * y1 / item.height,
                        "width": 100.0 * (x2 - x1) / item.width,
                        "height": 100.0 * (y2 - y1) / item.height,
                        "rotation": 0,
                        "rectanglelabels": [CLASS_NAMES[int(det.class_id[k])]],
                    },
                    "score": round(float(det.confidence[k]), 4),
                }
            )
        # the photo's score sorts tasks in Label Studio: the caller's (hupai's review score,
        # doubtful photos lowest) or else the mean of the boxes'
        score = item.meta.get("score")
        if score is None:
            score = round(float(det.confidence.mean()), 4) if len(det) else 0.0
        data = {"image": item.image, "width": item.width, "height": item.height}
        data.update(item.meta.get("data", {}))
        tasks.append(
            {
                "data": data,
                "predictions": [
                    {"model_version": model_version, "score": score, "result": results}
                ],
            }
        )
    return tasks


def save_labelstudio(path: str | Path, items: Sequence[ImageLabels], *, model_version: str) -> None:
    """Write the tasks file (import it in Label Studio, with :func:`labelstudio_config`)."""
    tasks = labelstudio_tasks(items, model_version=model_version)
    Path(path).write_text(json.dumps(tasks, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def load_labelstudio(path: str | Path, *, source: Source = "auto") -> list[ImageLabels]:
    """Read tasks (ours, or Label Studio's JSON export); raises :class:`LabelError` naming
    the file and the task."""
    path = Path(path)
    try:
        tasks = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LabelError(f"{path}: cannot read Label Studio tasks ({exc})") from None
    try:
        return labelstudio_items(tasks, source=source)
    except LabelError as exc:
        raise LabelError(f"{path}: {exc}") from None


def labelstudio_items(tasks: Any, *, source: Source = "auto") -> list[ImageLabels]:
    """The images and boxes of a list of tasks: the latest annotation that was not cancelled
    (``source="auto"`` or ``"annotations"``), else the first prediction. Label Studio's
    own export lists a task's predictions by id (``"predictions": [1]``): those are skipped."""
    if isinstance(tasks, dict):
        tasks = [tasks]
    if not isinstance(tasks, list):
        raise LabelError("Label Studio tasks must be a JSON list of task objects")
    return [_task_item(k, task, source) for k, task in enumerate(tasks)]


def _task_item(k: int, task: Any, source: Source) -> ImageLabels:
    where = f"task {k}"
    if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
        raise LabelError(f"{where}: not a task (an object with a 'data' object)")
    data = task["data"]
    image = data.get("image")
    if not isinstance(image, str):
        raise LabelError(f"{where}: data.image is missing or not a string")
    where = f"task {k} ({image})"
    chosen: dict[str, Any] | None = None
    kind = "annotations"
    if source in ("auto", "annotations"):
        done = [
            (k, a)
            for k, a in enumerate(_list(task.get("annotations")))
            if isinstance(a, dict) and not a.get("was_cancelled")
        ]
        chosen = max(done, key=_latest)[1] if done else None
    if chosen is None and source in ("auto", "predictions"):
        preds = [p for p in _list(task.get("predictions")) if isinstance(p, dict)]
        chosen, kind = (preds[0] if preds else None), "predictions"
    results = [] if chosen is None else chosen.get("result") or []
    width, height = data.get("width"), data.get("height")
    xyxy, classes, scores = [], [], []
    for r in results:
        if not isinstance(r, dict) or r.get("type") != "rectanglelabels":
            continue  # other control tags (choices, text) carry no box
        width = r.get("original_width", width)
        height = r.get("original_height", height)
        if not isinstance(width, int | float) or not isinstance(height, int | float):
            raise LabelError(f"{where}: a region has no original_width/original_height")
        value = r.get("value") or {}
        try:
            x, y, w, h = (float(value[key]) for key in ("x", "y", "width", "height"))
            (name,) = value["rectanglelabels"]
        except (KeyError, TypeError, ValueError):
            raise LabelError(
                f"{where}: region {r.get('id', '?')} is not a labelled rectangle: {value}"
            ) from None
        try:
            classes.append(class_by_name(str(name)))
        except ValueError as exc:
            raise LabelError(f"{where}: {exc}") from None
        box = _envelope(x, y, w, h, float(value.get("rotation") or 0.0))
        xyxy.append(
            [
                box[0] * width / 100,
                box[1] * height / 100,
                box[2] * width / 100,
                box[3] * height / 100,
            ]
        )
        scores.append(float(r.get("score", 1.0)))
    if chosen is None and not isinstance(width, int | float):
        raise LabelError(
            f"{where}: not annotated (no annotation, and no prediction to fall back on)"
        )
    if not isinstance(width, int | float) or not isinstance(height, int | float):
        raise LabelError(f"{where}: no image size (data.width/height or a region's original size)")
    det = Detections.make(xyxy, classes, scores)
    if len(det):
        det = det.clipped(int(width), int(height))
    meta = {"data": data, "source": kind if chosen is not None else None}
    if chosen is not None and "model_version" in chosen:
        meta["model_version"] = chosen["model_version"]
    return ImageLabels(image, int(width), int(height), det, meta)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _latest(entry: tuple[int, dict[str, Any]]) -> tuple[str, int]:
    """An annotation's time (ISO 8601 sorts as text), then its place in the list."""
    k, a = entry
    return (str(a.get("updated_at") or a.get("created_at") or ""), k)


def _envelope(x: float, y: float, w: float, h: float, rotation: float) -> tuple[float, ...]:
    """The axis-aligned box around a rectangle Label Studio rotated by ``rotation`` degrees
    clockwise about its top-left corner (percent units)."""
    if rotation % 360 == 0:
        return (x, y, x + w, y + h)
    t = math.radians(rotation)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    pts = corners @ rot.T + [x, y]
    return (*pts.min(0).tolist(), *pts.max(0).tolist())
