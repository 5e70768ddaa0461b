"""Writing into the output folder without replacing what a person changed: per-photo files
(links or copies, YOLO labels) and the collected ones (Label Studio, COCO, readings,
contact sheets), rebuilt from the manifest.

>>> output_stem("IMG_1.JPG", set())
'IMG_1'
>>> output_stem("IMG_1.png", {"img_1"})
'IMG_1_png'
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

import numpy as np

from hupai.datasets.coco import coco_dict
from hupai.datasets.image_labels import ImageLabels, to_yolo_boxes
from hupai.datasets.labels import format_yolo_line
from hupai.datasets.labelstudio import labelstudio_config, labelstudio_tasks
from hupai.datasets.yolo import data_yaml_text
from hupai.labeling.options import (
    CAPTION_PX,
    CELL,
    SHEET_GRID,
    STATE_DIR,
    LabelOptions,
    LabelReport,
    Scorer,
)
from hupai.labeling.photos import Photo
from hupai.labeling.read import reading_of, thumbnail
from hupai.labeling.store import Store, atomic_write, sha256_bytes, sha256_file
from hupai.vision.checks import CHECK_REASONS, DOUBTS
from hupai.vision.classes import CLASS_NAMES
from hupai.vision.reading import Reading
from hupai.vision.trust import review_score


def output_stem(rel: str, taken: set[str]) -> str:
    """The name (without suffix, under ``images/`` and ``labels/``) for a photo: its path
    without the suffix, or with the suffix folded in when another photo took that name
    (``a.jpg`` and ``a.png`` would share ``labels/a.txt``). ``taken`` is lower-cased."""
    p = PurePosixPath(rel)
    stem = str(p.with_suffix(""))
    if stem.lower() in taken:
        stem = f"{stem}_{p.suffix.lstrip('.').lower()}"
        n = 2
        base = stem
        while stem.lower() in taken:
            stem, n = f"{base}_{n}", n + 1
    return stem


class Outputs:
    """Writes into the output folder without replacing what a person changed."""

    def __init__(self, out: Path, store: Store, report: LabelReport, overwrite: bool) -> None:
        self.out = out
        self.store = store
        self.report = report
        self.overwrite = overwrite

    def write(self, rel: str, data: bytes, *, collected: bool = False) -> bool:
        """Write ``data`` at ``rel`` (relative to the output folder) unless the file there
        holds content hupai did not write. A collected file (all photos in one, such as
        ``coco.json``) that is kept gets the new content beside it (``coco.new.json``).
        Returns whether ``rel`` now holds ``data``."""
        path = self.out / rel
        new = sha256_bytes(data)
        if path.is_file():
            current = sha256_file(path)
            if current == new:
                self.store.wrote(rel, new)
                return True
            if not self.overwrite and not self.store.ours(rel, current):
                reason = (
                    "changed since hupai wrote it"
                    if rel in self.store.files
                    else "not written by hupai"
                )
                entry = {"path": rel, "reason": reason}
                if collected:
                    p = PurePosixPath(rel)
                    beside = str(p.with_name(f"{p.stem}.new{p.suffix}"))
                    atomic_write(self.out / beside, data)
                    entry["new"] = beside
                    entry["reason"] += f"; this run's version is in {beside}"
                self.report.kept.append(entry)
                return False
        self.store.wrote(rel, new)
        atomic_write(path, data)
        return True

    def place_image(self, name: str, photo: Path, sha: str, mode: str) -> str:
        """Link or copy a photo to ``images/<name>``; returns the mode used."""
        rel = f"images/{name}"
        path = self.out / rel
        if path.is_symlink() or path.exists():
            if mode == "link" and path.is_symlink() and os.readlink(path) == _link_to(photo, path):
                return mode
            if mode == "copy" and not path.is_symlink() and path.is_file():
                st, ps = path.stat(), photo.stat()
                if (st.st_size, st.st_mtime_ns) == (ps.st_size, ps.st_mtime_ns):
                    return mode
            current = sha256_file(path) if path.exists() else None  # a dangling link: ours
            if (
                current is not None
                and current != sha
                and not self.overwrite
                and not self.store.ours(rel, current)
            ):
                self.report.kept.append({"path": rel, "reason": "another image is there"})
                return mode
        self.store.wrote(rel, sha)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        if mode == "link":
            try:
                os.symlink(_link_to(photo, path), tmp)
            except OSError:
                mode = "copy"  # no symlinks here (some file systems, Windows without rights)
        if mode == "copy":
            import shutil

            shutil.copy2(photo, tmp)
        os.replace(tmp, path)
        return mode


def _link_to(photo: Path, link: Path) -> str:
    """A relative link target: the output folder and the photos can move together (to move
    the output alone, label with ``--images copy``)."""
    return os.path.relpath(photo.resolve(), link.parent.resolve())


def _yolo_text(entry: dict[str, Any], rel: str) -> bytes:
    item = _item(entry, reading_of(entry, rel), rel)
    return "".join(format_yolo_line(b) + "\n" for b in to_yolo_boxes(item)).encode()


def _item(entry: dict[str, Any], reading: Reading, image: str, **meta: Any) -> ImageLabels:
    return ImageLabels(
        image, int(entry["width"]), int(entry["height"]), reading.detections, dict(meta)
    )


def _save_thumb(out: Path, image_id: int, data: bytes) -> None:
    atomic_write(out / STATE_DIR / "thumbs" / f"{image_id}.jpg", data)


def _collected(
    opts: LabelOptions,
    settings: dict[str, Any],
    store: Store,
    outputs: Outputs,
    report: LabelReport,
    done: list[Photo],
    names: dict[str, tuple[str, int]],
    scorer: Scorer | None,
    in_place: bool,
) -> None:
    out = opts.out
    rows: list[dict[str, Any]] = []
    ls_items, coco_items = [], []
    for p in done:
        entry = store.photos[p.rel]
        stem, image_id = names[p.rel]
        image_name = p.rel if in_place else stem + PurePosixPath(p.rel).suffix
        try:
            reading = reading_of(entry, p.rel)
        except Exception as exc:  # one photo must never stop the batch: reported, skipped
            report.failed.append({"photo": p.rel, "error": f"{p.rel}: {type(exc).__name__}: {exc}"})
            continue
        report.warnings.update(reading.codes)
        if not len(reading.detections):
            report.no_tiles.append(p.rel)
        review = review_score(reading)
        report.review.append(
            {
                "photo": p.rel,
                "score": review,
                "confident": reading.confident,
                "doubts": sorted(set(reading.codes) & DOUBTS),
                "marked": marked_tiles(reading),
            }
        )
        row = {
            "photo": p.rel,
            "id": image_id,
            "image": f"images/{image_name}",
            **reading.to_dict(opts.city),
        }
        row["model"] = settings["model_version"]
        if scorer is not None:
            row["score"] = scorer(p.rel, reading)
            report.scored[_score_outcome(row["score"])] += 1
        rows.append(row)
        data_fields = {"photo": p.rel, "hand": row["hand"], "warnings": " ".join(reading.codes)}
        ls_items.append(
            _item(
                entry,
                reading,
                opts.ls_prefix + quote(f"images/{image_name}", safe="/"),
                data=data_fields,
                score=review,
            )
        )
        coco_items.append(
            _item(entry, reading, image_name, id=image_id, coco={"hupai_photo": p.rel})
        )

    def put(rel: str, text: str) -> None:
        outputs.write(rel, text.encode(), collected=True)
        report.outputs.append(rel)

    if "yolo" in opts.formats:
        put("data.yaml", _data_yaml(out))
        put("classes.txt", "".join(n + "\n" for n in CLASS_NAMES))
    if "labelstudio" in opts.formats:
        tasks = labelstudio_tasks(ls_items, model_version=settings["model_version"])
        put("labelstudio.json", json.dumps(tasks, ensure_ascii=False, indent=1) + "\n")
        put("labelstudio-config.xml", labelstudio_config() + "\n")
    if "coco" in opts.formats:
        info = {
            "description": "hupai tile labels (model predictions)",
            "model": settings["model_version"],
        }
        put("coco.json", json.dumps(coco_dict(coco_items, info=info), ensure_ascii=False) + "\n")
    put("readings.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    put("readings.csv", _readings_csv(rows))
    if opts.previews:
        for rel in _contact_sheets(opts, store, outputs, done, names):
            report.outputs.append(rel)


def marked_tiles(reading: Reading) -> dict[str, int]:
    """How many tiles the reading marks for a check, by reason (``name``, ``clutter``,
    ``doubled``, ``warned``: :data:`hupai.vision.checks.CHECK_REASONS`) — what a person
    reviewing the photo should look at first."""
    counts = Counter(why for reasons in reading.check_reasons for why in reasons)
    return {why: counts[why] for why in CHECK_REASONS if counts[why]}


def _score_outcome(score: dict[str, Any]) -> str:
    if "error" in score:
        return "not scored"
    return "winning" if score["result"].get("valid") else "not winning"


def _data_yaml(out: Path) -> str:
    lines = data_yaml_text([]).splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("nc:"))
    lines[at:at] = [
        "train: images  # every labelled photo: split off a validation set before training",
        "val: images",
    ]
    return "\n".join(lines) + "\n"


CSV_COLUMNS = (
    "photo", "id", "width", "height", "tiles", "hand", "win_tile", "win_tile_set_apart",
    "melds", "flowers", "indicator", "fishing", "warnings", "mean_confidence", "valid",
    "reason", "deltas", "score_error", "model",
)  # fmt: skip


def _readings_csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        conf = r["detections"]["confidence"]
        score = r.get("score") or {}
        result = score.get("result") or {}
        writer.writerow(
            {
                "photo": r["photo"],
                "id": r["id"],
                "width": r["size"][0],
                "height": r["size"][1],
                "tiles": len(conf),
                "hand": r["hand"],
                "win_tile": r["win_tile"] or "",
                "win_tile_set_apart": r["win_tile_set_apart"],
                "melds": " ".join(f"{m['kind']}:{m['tiles']}" for m in r["melds"]),
                "flowers": r["flowers"],
                "indicator": r.get("indicator", ""),
                "fishing": r.get("fishing", ""),
                "warnings": " ".join(w["code"] for w in r["warnings"]),
                "mean_confidence": f"{sum(conf) / len(conf):.3f}" if conf else "",
                "valid": "" if not result else result["valid"],
                "reason": result.get("reason", ""),
                "deltas": " ".join(str(d) for d in result.get("deltas", [])),
                "score_error": score.get("error", ""),
                "model": r["model"],
            }
        )
    return buf.getvalue()


def _contact_sheets(
    opts: LabelOptions,
    store: Store,
    outputs: Outputs,
    done: list[Photo],
    names: dict[str, tuple[str, int]],
) -> list[str]:
    """Sheets of annotated thumbnails (previews/sheet-001.jpg, …), each cell captioned with
    the photo's path, its tile count and warning codes."""
    import cv2

    from hupai.vision.detector import load_image

    cols, rows = SHEET_GRID
    per = cols * rows
    thumbs = opts.out / STATE_DIR / "thumbs"
    written = []
    for s in range(0, len(done), per):
        sheet = np.full((rows * (CELL[1] + CAPTION_PX), cols * CELL[0], 3), 32, np.uint8)
        for k, p in enumerate(done[s : s + per]):
            entry = store.photos[p.rel]
            _, image_id = names[p.rel]
            thumb_path = thumbs / f"{image_id}.jpg"
            reading = reading_of(entry, p.rel)
            if not thumb_path.is_file():  # read before without --previews
                _save_thumb(opts.out, image_id, thumbnail(load_image(p.path), reading))
            img = cv2.imread(str(thumb_path))
            if img is None:
                continue
            r, c = divmod(k, cols)
            y0, x0 = r * (CELL[1] + CAPTION_PX), c * CELL[0]
            h, w = img.shape[:2]
            oy, ox = y0 + (CELL[1] - h) // 2, x0 + (CELL[0] - w) // 2
            sheet[oy : oy + h, ox : ox + w] = img
            caption = f"{p.rel}  {len(reading.detections)} tiles"
            if reading.codes:
                caption += "  " + ",".join(reading.codes)
            cv2.putText(
                sheet, _fit(caption, 52), (x0 + 4, y0 + CELL[1] + 18),
                cv2.FONT_HERSHEY_SIMPLEX, 0.45, (235, 235, 235), 1, cv2.LINE_AA,
            )  # fmt: skip
        used = -(-len(done[s : s + per]) // cols)  # rows with photos
        sheet = sheet[: used * (CELL[1] + CAPTION_PX)]
        _, buf = cv2.imencode(".jpg", sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
        rel = f"previews/sheet-{s // per + 1:03d}.jpg"
        outputs.write(rel, bytes(buf.tobytes()), collected=True)
        written.append(rel)
    return written


def _fit(text: str, n: int) -> str:
    text = text.encode("ascii", "replace").decode()  # the drawing font is ASCII only
    return text if len(text) <= n else "..." + text[-(n - 3) :]
