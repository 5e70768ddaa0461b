"""The labelling job (:func:`run_label_job`): checks what it is given, takes the folder's
lock, reads the photos not done yet through an engine and writes every output.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Any

from hupai.labeling import engines
from hupai.labeling.options import (
    ENGINES,
    FORMATS,
    IMAGE_MODES,
    STATE_DIR,
    LabelJobError,
    LabelOptions,
    LabelReport,
    Scorer,
)
from hupai.labeling.outputs import Outputs, _collected, _save_thumb, _yolo_text, output_stem
from hupai.labeling.photos import Photo, scan
from hupai.labeling.progress import Progress
from hupai.labeling.store import Store, _Lock, atomic_write, sha256_file
from hupai.vision.detector import Detector, ModelError, find_model
from hupai.vision.namer import Namer, NamerError
from hupai.vision.reading import READER_RULES, default_namer


def run_label_job(
    opts: LabelOptions,
    *,
    scorer: Scorer | None = None,
    progress: IO[str] | None = None,
) -> LabelReport:
    """Label the photos under ``opts.photos`` into ``opts.out`` (see the module's doc)."""
    began = time.perf_counter()
    photos_dir, out = opts.photos, opts.out
    _check_folders(photos_dir, out)
    bad = [f for f in opts.formats if f not in FORMATS]
    if bad:
        raise LabelJobError(f"unknown format '{bad[0]}'; known: {', '.join(FORMATS)}")
    if opts.engine not in ENGINES:
        raise LabelJobError(f"unknown engine '{opts.engine}'; known: {', '.join(ENGINES)}")
    if opts.images not in IMAGE_MODES:
        raise LabelJobError(f"images: '{opts.images}' is not one of {', '.join(IMAGE_MODES)}")
    if opts.workers < 1:
        raise LabelJobError(f"workers: {opts.workers}; need at least one")
    in_place = photos_dir.resolve() == (out / "images").resolve()

    try:
        model = find_model(opts.model)
        detector = Detector(model, threads=opts.threads, conf=opts.conf)  # checks it up front
        namer = None
        if not opts.no_namer:
            namer = Namer(opts.namer, threads=opts.threads) if opts.namer else default_namer()
        if namer is None and detector.is_finder:
            raise LabelJobError(
                f"{model} is a finder: it needs a namer (--namer); --no-namer needs a "
                "43-class detector given with --model (none ships: docs/reading.md)"
            )
    except (ModelError, NamerError) as exc:
        raise LabelJobError(str(exc)) from None
    settings = {
        "model_sha256": sha256_file(model),
        "model_version": f"{detector.manifest.name} {detector.manifest.version}"
        + (f" + {namer.manifest.name} {namer.manifest.version}" if namer else ""),
        # the namer with its manifest and partners (before reader 19: its ONNX alone)
        "namer_sha256": engines.namer_digest(namer.path) if namer else None,
        "conf": opts.conf,
        "iou": detector.iou,
        "rules": READER_RULES,
    }
    report = LabelReport()
    out.mkdir(parents=True, exist_ok=True)
    state = out / STATE_DIR
    with _Lock(state):
        store = Store.open(state)
        try:
            models = (detector, namer)
            _job(opts, models, model, settings, store, report, scorer, progress, in_place)
        finally:
            store.commit()
    report.seconds = time.perf_counter() - began
    atomic_write(
        out / "report.json",
        (json.dumps(report.to_dict(), indent=1, ensure_ascii=False) + "\n").encode(),
    )
    return report


def _check_folders(photos: Path, out: Path) -> None:
    if not photos.exists():
        raise LabelJobError(f"{photos}: no such folder")
    if not photos.is_dir():
        raise LabelJobError(f"{photos}: not a folder (give the folder that holds the photos)")
    if out.exists() and not out.is_dir():
        raise LabelJobError(f"--out {out}: is a file, not a folder")
    p, o = photos.resolve(), out.resolve()
    if p == o:
        raise LabelJobError(f"--out {out}: is the photos folder; give another folder")
    if o in p.parents and p != o / "images":
        raise LabelJobError(
            f"--out {out}: holds the photos folder; give a folder outside it (or, for photos "
            f"already in OUT/images, exactly {o / 'images'})"
        )


def _job(
    opts: LabelOptions,
    models: tuple[Detector, Namer | None],
    model: Path,
    settings: dict[str, Any],
    store: Store,
    report: LabelReport,
    scorer: Scorer | None,
    progress: IO[str] | None,
    in_place: bool,
) -> None:
    detector, namer = models
    namer_path = None if namer is None else namer.path
    out = opts.out
    photos, report.not_photos = scan(opts.photos, exclude=[out])
    report.photos = len(photos)
    present = {p.rel for p in photos}
    report.gone = sum(1 for rel in store.photos if rel not in present)

    # Names under images/ and labels/ (kept from earlier runs) and stable COCO ids.
    taken = {str(e["stem"]).lower() for e in store.photos.values() if "stem" in e}
    next_id = max((int(e.get("id", 0)) for e in store.photos.values()), default=0) + 1
    names: dict[str, tuple[str, int]] = {}
    for p in photos:
        old = store.photos.get(p.rel)
        if old is not None and "stem" in old:
            names[p.rel] = (old["stem"], int(old["id"]))
            continue
        stem = str(PurePosixPath(p.rel).with_suffix("")) if in_place else output_stem(p.rel, taken)
        taken.add(stem.lower())
        names[p.rel] = (stem, next_id)
        next_id += 1

    def is_done(p: Photo) -> bool:
        e = store.photos.get(p.rel)
        return (
            e is not None
            and (e.get("size"), e.get("mtime_ns")) == (p.size, p.mtime_ns)
            and same_settings(e, settings)
        )

    todo = [p for p in photos if not is_done(p)]
    report.already_done = len(photos) - len(todo)
    outputs = Outputs(out, store, report, opts.overwrite)
    modes: set[str] = set()
    by_rel = {p.rel: p for p in photos}
    failed: set[str] = set()
    handled: set[str] = set()  # photos whose own files this run has written

    def per_photo_files(p: Photo, entry: dict[str, Any]) -> None:
        stem, _ = names[p.rel]
        if not in_place:
            modes.add(
                outputs.place_image(
                    stem + PurePosixPath(p.rel).suffix, p.path, entry["sha256"], opts.images
                )
            )
        if "yolo" in opts.formats:
            outputs.write(f"labels/{stem}.txt", _yolo_text(entry, p.rel))

    bar = Progress(len(todo), progress)
    detect_began = time.perf_counter()
    threads = opts.threads
    if threads is None and opts.workers > 1:
        threads = max(1, (os.cpu_count() or 1) // opts.workers)
    if not todo:
        results: Iterator[dict[str, Any]] = iter(())
    elif opts.engine == "ray":
        results = engines.run_ray(model, namer_path, todo, opts, threads)
    elif opts.workers == 1:
        results = engines.run_inline(detector, namer, todo, opts.previews)
    else:
        results = engines.run_processes(
            str(model), None if namer_path is None else str(namer_path), todo, opts, threads
        )
    try:
        for result in results:
            p = by_rel[result["rel"]]
            bar.advance()
            if not result["ok"]:
                report.failed.append({"photo": p.rel, "error": result["error"]})
                failed.add(p.rel)
                continue
            stem, image_id = names[p.rel]
            thumb = result.pop("thumb", None)
            entry = {
                **{k: v for k, v in result.items() if k not in ("rel", "ok")},
                "size": p.size,
                "mtime_ns": p.mtime_ns,
                "settings": settings,
                "stem": stem,
                "id": image_id,
            }
            if thumb is not None:
                _save_thumb(out, image_id, thumb)
            store.put_photo(p.rel, entry)  # first the manifest, then the files
            per_photo_files(p, entry)
            handled.add(p.rel)
            report.labelled += 1
    finally:
        bar.close()
        report.detect_seconds = time.perf_counter() - detect_began
    report.failed.sort(key=lambda f: f["photo"])

    # Every photo read (now or before): its files, then the collected outputs.
    done = [
        p
        for p in photos
        if p.rel not in failed and same_settings(store.photos.get(p.rel), settings)
    ]
    for p in done:
        if p.rel not in handled:
            per_photo_files(p, store.photos[p.rel])
    if len(modes) > 1 or (opts.images == "link" and "copy" in modes):
        report.notes.append("symbolic links could not be made here: photos were copied")
    _collected(opts, settings, store, outputs, report, done, names, scorer, in_place)


def same_settings(entry: dict[str, Any] | None, settings: dict[str, Any]) -> bool:
    """Whether a manifest entry was read with this finder, namer, thresholds and rules."""
    if entry is None:
        return False
    had = entry.get("settings", {})
    keys = ("model_sha256", "namer_sha256", "conf", "iou", "rules")
    return all(had.get(k) == settings[k] for k in keys)


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
