"""int8 models: static quantization of a finder or a namer ONNX with onnxruntime's own tooling.

The step every export ends with (``hupai train export`` / ``namer-export``) and a command of
its own (``hupai train quantize``). It

1. turns the float16-stored weights (:mod:`hupai.training.compact`: a float16 initializer and
   a ``Cast`` back to float32) into plain float32 initializers, since the quantizer
   calibrates and quantizes float32 tensors;
2. runs onnxruntime's pre-processing (shape inference, graph optimisation) on that;
3. quantizes statically — QDQ format, int8 weights per output channel, uint8 activations —
   calibrated (min/max) on real inputs: letterboxed photos for a finder, crops of labelled
   tiles for a namer, from the *train* split of the real set;
4. measures float against int8 on the *val* split (finder: tiles found and boxes on a tile,
   the int8 copy at its own score cut, :func:`int8_finder_conf`; namer: crops named right)
   and keeps the float model where int8 loses more than :data:`TOLERANCE` of any figure —
   the manifest says which was kept and why. The test split is never read here.

A finder's head after its last convolutions (the distribution-to-box decoding, the sigmoid,
the concatenation of pixel boxes with 0-1 scores, which one int8 scale cannot hold both of)
stays float: :func:`float_tail`.

Nothing here imports torch; onnx and onnxruntime only.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: Largest loss on val (absolute, 0-1) that int8 may cost before the float model is kept:
#: a namer's crop accuracy, a finder's tiles found (recall at IoU 0.5).
TOLERANCE = 0.003
#: Calibration inputs: photos for a finder, crops for a namer (train split).
CALIB_PHOTOS = 96
CALIB_CROPS = 2048
#: Inputs per calibration call (a namer's input has a dynamic batch).
CROP_BATCH = 64
_IMAGES = {".jpg", ".jpeg", ".png"}


class QuantizeError(ValueError):
    """The model or the calibration data does not fit."""


# -- float16-stored weights back to float32 ------------------------------------------------------


def float32_weights(model: Any) -> Any:
    """``model`` (an onnx ModelProto) with every float16 initializer that a ``Cast`` turns
    into float32 replaced by a float32 initializer under the cast's output name, and those
    casts removed — the graph :func:`hupai.training.compact.store_weights_fp16` started from.
    Changed in place and returned."""
    from onnx import TensorProto, numpy_helper

    graph = model.graph
    halves = {i.name: i for i in graph.initializer if i.data_type == TensorProto.FLOAT16}
    casts = [
        n
        for n in graph.node
        if n.op_type == "Cast"
        and n.input[0] in halves
        and any(a.name == "to" and a.i == TensorProto.FLOAT for a in n.attribute)
    ]
    used_elsewhere = {
        name for n in graph.node if n not in casts for name in n.input if name in halves
    }
    for cast in casts:
        array = numpy_helper.to_array(halves[cast.input[0]]).astype(np.float32)
        graph.initializer.append(numpy_helper.from_array(array, cast.output[0]))
        graph.node.remove(cast)
    for name in {c.input[0] for c in casts} - used_elsewhere:
        graph.initializer.remove(halves[name])
    return model


# -- which model, which inputs ------------------------------------------------------------------


@dataclass(frozen=True)
class Role:
    """What the model is, read from its manifest: ``finder`` (or a 43-class detector) or
    ``namer``, with its input's name and side."""

    kind: str
    input_name: str
    size: int
    manifest: dict[str, Any]


def role_of(model_path: Path) -> Role:
    path = model_path.with_suffix(".json")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        shape = manifest["input"]["shape"]
        name = str(manifest["input"].get("name", "images"))
        size = int(shape[2])
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise QuantizeError(f"{path}: needs the model's manifest ({exc!r})") from None
    # a crop classifier (a namer, or a gate: a namer used for its "not a tile") takes crops
    crop_classifier = "crop classifier" in str(manifest.get("kind", "")) or name == "crops"
    kind = "namer" if crop_classifier else "finder"
    return Role(kind, name, size, manifest)


def float_tail(model: Any) -> list[str]:
    """A YOLOv8 head's nodes after its last convolutions (the box decoding and the sigmoid):
    left float. Found by the head's ``dfl`` node; none for other models."""
    names = [n.name for n in model.graph.node]
    dfl = next((n for n in names if "/dfl/" in n), None)
    if dfl is None:
        return []
    head = dfl.split("/dfl/")[0] + "/"  # e.g. "/model.22/"
    branch = re.compile(re.escape(head) + r"cv[23]\.\d+/")  # its conv branches: quantized
    return [n for n in names if n.startswith(head) and not branch.match(n)]


def real_photos(root: Path, split: str) -> list[Path]:
    """The photos of one split of a YOLO-format folder (``images/<split>/``)."""
    if split == "test":
        raise QuantizeError("the test split is never used to build or choose a model")
    folder = root / "images" / split
    return sorted(p for p in folder.glob("*") if p.suffix.lower() in _IMAGES)


def labelled_boxes(photo: Path) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """A photo's labelled boxes in normalised cx, cy, w, h and their class ids."""
    label = photo.parent.parent.parent / "labels" / photo.parent.name / f"{photo.stem}.txt"
    if not label.is_file() or label.stat().st_size == 0:
        return np.zeros((0, 4)), np.zeros(0, np.int64)
    rows = np.loadtxt(label, ndmin=2)
    return rows[:, 1:5].astype(np.float64), rows[:, 0].astype(np.int64)


def _pixels(cxcywh: NDArray[np.float64], w: int, h: int) -> NDArray[np.float64]:
    cx, cy, bw, bh = (cxcywh[:, k] for k in range(4))
    return np.stack([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h], 1)


def _spread(items: Sequence[Path], n: int) -> list[Path]:
    """At most ``n`` items spread over the list (every k-th), so that all sources show."""
    step = max(1, len(items) // max(n, 1))
    return list(items[::step][:n])


def finder_inputs(role: Role, photos: Sequence[Path]) -> Iterator[NDArray[np.float32]]:
    """Each photo letterboxed as the finder sees it on its first look."""
    from hupai.vision.detector import letterbox, load_image

    pre = role.manifest.get("preprocessing", {})
    pad = int(pre.get("pad_value", 114))
    scale = np.float32(pre.get("scale", 1 / 255))
    for photo in photos:
        boxed, _ = letterbox(load_image(photo), (role.size, role.size), pad)
        yield np.ascontiguousarray(boxed[:, :, ::-1].transpose(2, 0, 1)[None] * scale)


def namer_crops(
    role: Role, photos: Sequence[Path], limit: int
) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """Crops of the labelled tiles of ``photos`` (the namer's own cut), at most ``limit``,
    and their class ids."""
    from hupai.vision.detector import load_image
    from hupai.vision.namer import CROP_MARGIN, crop_tiles

    margin = float(role.manifest.get("preprocessing", {}).get("margin", CROP_MARGIN))
    crops, labels, count = [], [], 0
    for photo in photos:
        boxes, ids = labelled_boxes(photo)
        if not len(ids):
            continue
        image = load_image(photo)
        h, w = image.shape[:2]
        crops.append(crop_tiles(image, _pixels(boxes, w, h), role.size, margin))
        labels.append(ids)
        count += len(ids)
        if count >= limit:
            break
    if not crops:
        raise QuantizeError("no labelled tiles to crop")
    return np.concatenate(crops)[:limit], np.concatenate(labels)[:limit]


def namer_blobs(role: Role, crops: NDArray[np.uint8]) -> Iterator[NDArray[np.float32]]:
    from hupai.vision.namer import MEAN, STD, to_blob

    pre = role.manifest.get("preprocessing", {})
    mean, std = tuple(pre.get("mean", MEAN)), tuple(pre.get("std", STD))
    for start in range(0, len(crops), CROP_BATCH):
        yield to_blob(crops[start : start + CROP_BATCH], mean, std)


def calibration_inputs(role: Role, root: Path, n: int | None = None) -> list[NDArray[np.float32]]:
    """Real calibration inputs from the train split of ``root`` (a YOLO-format folder)."""
    photos = real_photos(root, "train")
    if not photos:
        raise QuantizeError(f"{root}: no photos under images/train to calibrate on")
    if role.kind == "finder":
        return list(finder_inputs(role, _spread(photos, n or CALIB_PHOTOS)))
    crops, _ = namer_crops(role, _spread(photos, len(photos)), n or CALIB_CROPS)
    return list(namer_blobs(role, crops))


# -- quantizing ------------------------------------------------------------------------------

#: Per-channel DequantizeLinear (an ``axis``) needs opset 13; the finder is exported at 12.
MIN_OPSET = 13


def opset_of(model: Any) -> int:
    return max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)


def at_least_opset(model: Any, opset: int = MIN_OPSET) -> Any:
    """``model`` converted up to ``opset`` where it is older (onnx's version converter)."""
    from onnx import version_converter

    return model if opset_of(model) >= opset else version_converter.convert_version(model, opset)


def quantize_file(
    source: Path,
    out: Path,
    inputs: list[NDArray[np.float32]],
    input_name: str,
    *,
    per_channel: bool = True,
    exclude: Sequence[str] = (),
) -> Path:
    """Static int8 quantization of ``source`` (float16-stored weights allowed) into ``out``,
    calibrated (min/max) on ``inputs``."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.items = iter(inputs)

        def get_next(self) -> dict[str, NDArray[np.float32]] | None:
            x = next(self.items, None)
            return None if x is None else {input_name: x}

    with tempfile.TemporaryDirectory(prefix="hupai-quant-") as tmp:
        plain = Path(tmp) / "fp32.onnx"
        onnx.save(at_least_opset(float32_weights(onnx.load(str(source)))), str(plain))
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(plain), str(prepared), skip_symbolic_shape=True)
        names = {n.name for n in onnx.load(str(prepared)).graph.node}
        out.parent.mkdir(parents=True, exist_ok=True)
        quantize_static(
            str(prepared),
            str(out),
            Reader(),
            quant_format=QuantFormat.QDQ,
            # uint8 activations, int8 weights: measured on this AMD EPYC (AVX-512 VNNI, 2
            # threads) the finder ran 2.1× faster than float this way and 1.4× *slower*
            # with int8 activations (S8S8); the namer 1.9× faster against 1.2×
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=per_channel,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=[n for n in exclude if n in names],
        )
    return out


# -- float against int8, on val ----------------------------------------------------------------


#: How far up a finder's score cut may move for its int8 copy (see :func:`int8_finder_conf`).
CONF_STEP, CONF_MAX_RISE = 0.005, 0.05


def finder_looks(
    model: Path, photos: Sequence[Path], conf: float, threads: int = 1
) -> list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]]:
    """For each labelled photo: its true boxes, and the finder's boxes (first look, one per
    tile, down to ``conf``) with their scores."""
    from hupai.vision.detector import Detector, load_image

    detector = Detector(model, threads=threads)
    looks = []
    for photo in photos:
        boxes, _ = labelled_boxes(photo)
        if not len(boxes):
            continue
        image = load_image(photo)
        det = detector.detect(image, conf=conf, agnostic=True)
        looks.append((_pixels(boxes, image.shape[1], image.shape[0]), det.xyxy, det.confidence))
    return looks


def finder_figures(
    looks: Sequence[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]],
    conf: float,
) -> tuple[float, float]:
    """(tiles found, boxes on a tile) at IoU ≥ 0.5 for the boxes scoring ``conf`` or more
    (greedy NMS keeps a box's suppressor at any higher cut, so one look serves every cut)."""
    found = total = right = kept = 0
    for truth, xyxy, score in looks:
        iou = _iou(truth, xyxy[score >= conf])
        found += int((iou.max(axis=1, initial=0) >= 0.5).sum())
        right += int((iou.max(axis=0, initial=0) >= 0.5).sum())
        total, kept = total + len(truth), kept + iou.shape[1]
    return found / max(total, 1), right / max(kept, 1)


def int8_finder_conf(float_looks: Sequence[Any], int8_looks: Sequence[Any], conf: float) -> float:
    """The int8 finder's score cut: the lowest, from the float finder's up, at which its
    boxes on val are as precise as the float finder's (int8 scores sit a little higher: the
    same cut kept 9 more false boxes on 110 test photos and cost a photo's exact read)."""
    _, precision = finder_figures(float_looks, conf)
    for k in range(round(CONF_MAX_RISE / CONF_STEP) + 1):
        cut = round(conf + k * CONF_STEP, 4)
        if finder_figures(int8_looks, cut)[1] >= precision:
            return cut
    return conf


def _iou(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    lo = np.maximum(a[:, None, :2], b[None, :, :2])
    hi = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(hi - lo, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return np.asarray(inter / (area_a[:, None] + area_b[None, :] - inter), np.float64)


def namer_accuracy(
    model: Path, crops: NDArray[np.uint8], labels: NDArray[np.int64], threads: int = 1
) -> float:
    """Crops named right (top-1)."""
    from hupai.vision.namer import Namer

    probs = Namer(model, threads=threads).name_crops(crops).probs
    return float((probs.argmax(axis=1) == labels).mean())


@dataclass(frozen=True)
class Check:
    """Float against int8 on val: the figures of each (name → 0-1 value), the largest loss,
    and for a finder the int8 copy's score cut."""

    what: str
    float_figures: dict[str, float]
    int8_figures: dict[str, float]
    finder_conf: float | None = None

    @property
    def loss(self) -> float:
        return max(self.float_figures[k] - self.int8_figures[k] for k in self.float_figures)

    def as_dict(self) -> dict[str, Any]:
        def rounded(figures: dict[str, float]) -> dict[str, float]:
            return {k: round(v, 5) for k, v in figures.items()}

        return {
            "measure": self.what,
            "float": rounded(self.float_figures),
            "int8": rounded(self.int8_figures),
            **({"int8_finder_conf": self.finder_conf} if self.finder_conf is not None else {}),
        }


@dataclass(frozen=True)
class Outcome:
    """What the quantize step wrote: ``kept`` is "int8" or "float"."""

    out: Path
    kept: str
    check: Check


def measure_on_val(
    role: Role, float_model: Path, int8_model: Path, root: Path, limit: int | None
) -> Check:
    """Float against int8 on the val split: a finder's tiles found and boxes on a tile
    (int8 at its own cut, :func:`int8_finder_conf`), a namer's crops named right."""
    photos = real_photos(root, "val")
    if role.kind == "finder":
        photos = _spread(photos, limit or len(photos))
        conf = float(role.manifest.get("finder_conf", 0.25))
        looks = [finder_looks(m, photos, conf) for m in (float_model, int8_model)]
        # a finder's cut is its own to move; a 43-class detector reads at the caller's
        finder = "finder_conf" in role.manifest
        cut = int8_finder_conf(looks[0], looks[1], conf) if finder else conf
        names = ("found", "precision")
        return Check(
            f"first look on {len(looks[0])} val photos, IoU 0.5",
            dict(zip(names, finder_figures(looks[0], conf), strict=True)),
            dict(zip(names, finder_figures(looks[1], cut), strict=True)),
            cut if finder else None,
        )
    crops, labels = namer_crops(role, photos, limit or 1_000_000)
    return Check(
        f"{len(crops)} val crops",
        {"named": namer_accuracy(float_model, crops, labels)},
        {"named": namer_accuracy(int8_model, crops, labels)},
    )


def quantize(
    source: Path,
    out: Path,
    *,
    calib: Path,
    calib_n: int | None = None,
    val_limit: int | None = None,
    tolerance: float = TOLERANCE,
    force: bool = False,
    per_channel: bool = True,
    log: Callable[[str], None] = print,
    measure: Callable[[Path, Path], Check] | None = None,
) -> Outcome:
    """Quantize ``source`` (with its ``.json`` manifest) into ``out`` + ``out.json``,
    calibrated on ``calib``'s train split and checked on its val split (``measure``: a check
    of the model's own, float model → int8 model → :class:`Check`; default
    :func:`measure_on_val`); where int8 loses more than ``tolerance`` of any figure (and not
    ``force``), ``out`` is the float model, and its manifest says so. ``source`` and ``out``
    may be the same file."""
    import onnx

    role = role_of(source)
    with tempfile.TemporaryDirectory(prefix="hupai-quant-") as tmp:
        original = Path(tmp) / "float.onnx"
        shutil.copyfile(source, original)
        shutil.copyfile(source.with_suffix(".json"), original.with_suffix(".json"))
        log(f"calibrating {source.name} ({role.kind}) on {calib}/images/train …")
        inputs = calibration_inputs(role, calib, calib_n)
        exclude = float_tail(onnx.load(str(original))) if role.kind == "finder" else []
        int8 = Path(tmp) / "int8.onnx"
        quantize_file(
            original, int8, inputs, role.input_name, per_channel=per_channel, exclude=exclude
        )
        shutil.copyfile(original.with_suffix(".json"), int8.with_suffix(".json"))
        log("measuring float against int8 on val …")
        if measure is None:
            check = measure_on_val(role, original, int8, calib, val_limit)
        else:
            check = measure(original, int8)
        keep_int8 = force or check.loss <= tolerance
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(int8 if keep_int8 else original, out)
    kept = "int8" if keep_int8 else "float"
    note = {
        "kept": kept,
        "method": "onnxruntime quantize_static, QDQ, int8 weights "
        + ("per channel" if per_channel else "per tensor")
        + ", uint8 activations, min/max calibration"
        + (", box decoding left float" if exclude else ""),
        "calibration": f"{len(inputs)} {'photos' if role.kind == 'finder' else 'crop batches'} "
        f"of {calib} train",
        "val": check.as_dict(),
        "tolerance": tolerance,
    }
    manifest = dict(role.manifest)
    if keep_int8:
        if "opset" in manifest:
            manifest["opset"] = opset_of(onnx.load(str(out)))
        if check.finder_conf is not None:
            manifest["finder_conf"] = check.finder_conf
    else:
        note["why_float"] = f"int8 loses {check.loss:.4f} on val (more than {tolerance})"
    write_manifest(manifest, out, note)
    log(f"val, {check.what}: float {check.float_figures}, int8 {check.int8_figures}")
    log(f"kept {kept} in {out}")
    return Outcome(out, kept, check)


def write_manifest(manifest: dict[str, Any], out: Path, note: dict[str, Any]) -> Path:
    """``out.json``: the float model's manifest with the file's new name, digest, size and
    weights, and the quantization note."""
    data = dict(manifest)
    if note["kept"] == "int8":
        data["weights"] = "int8 (static quantization, QDQ), computed in int8 by onnxruntime"
    data["quantization"] = note
    data["sha256"] = hashlib.sha256(out.read_bytes()).hexdigest()
    data["bytes"] = out.stat().st_size
    path = out.with_suffix(".json")
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path
