"""Batch labelling of a folder of photos (``hupai label``, docs/labeling.md).

The job reads every photo under a folder with the detector and writes, into an output folder:
the Ultralytics layout (``images/`` linked or copied, ``labels/*.txt``, ``data.yaml``,
``classes.txt``), Label Studio tasks with the boxes as predictions, COCO JSON, the readings
(``readings.jsonl`` and ``readings.csv``: tiles, structure, warnings, the score when the
caller scores) and optional contact sheets of annotated photos (``previews/``), with
``report.json`` listing what could not be read and what was left alone.

It is resumable and careful with people's work:

* Every photo's detections are kept in a manifest (``.hupai/manifest.json``, with a journal
  appended as photos finish), so a second run skips the photos already done (same bytes,
  same model and threshold) and rebuilds the outputs from the manifest.
* Each file is written atomically (a temporary file, then a rename).
* The manifest remembers the hash of every file hupai wrote. A file whose content is not one
  hupai wrote — a label a person corrected — is never replaced unless ``overwrite``; the
  report lists it (a collected file such as ``coco.json`` is then written beside it as
  ``coco.new.json``).
* A photo that cannot be read is listed in the report; the run goes on.

Photos are read by worker processes, each with its own onnxruntime session
(``engine="local"``), or by Ray actors (``engine="ray"``) that receive the model and the
photos' bytes, so that they may run on other machines.

>>> output_stem("IMG_1.JPG", set())
'IMG_1'
>>> output_stem("IMG_1.png", {"img_1"})
'IMG_1_png'
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath
from typing import IO, Any
from urllib.parse import quote

import numpy as np

from datasets.coco import coco_dict
from datasets.image_labels import ImageLabels, to_yolo_boxes
from datasets.labels import format_yolo_line
from datasets.labelstudio import labelstudio_config, labelstudio_tasks
from datasets.yolo import data_yaml_text
from vision.classes import CLASS_NAMES
from vision.detections import Detections
from vision.detector import Detector, ModelError, find_model
from vision.namer import Namer, NamerError
from vision.reading import (
    NamedTiles,
    Reading,
    build_reading,
    default_namer,
    detect_photo,
    name_tiles,
)

#: Files read as photos (by suffix, any case); anything else is listed as not a photo.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff", ".heic", ".heif")
FORMATS = ("yolo", "labelstudio", "coco")
IMAGE_MODES = ("link", "copy")
ENGINES = ("local", "ray")
STATE_DIR = ".hupai"
MANIFEST_FORMAT = "hupai-label-manifest"
MANIFEST_VERSION = 1
#: Label Studio serves a local folder at this URL (LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT).
LS_LOCAL_FILES = "/data/local-files/?d="
#: Contact sheets: columns × rows of cells, each a thumbnail and a caption strip.
SHEET_GRID = (4, 3)
CELL = (400, 300)
CAPTION_PX = 26

#: The caller's scorer: (photo's path under the folder, its reading) → what to store under
#: ``score`` in the readings (``{"result": …}`` or ``{"error": …}``).
Scorer = Callable[[str, Reading], dict[str, Any]]


class LabelJobError(ValueError):
    """A problem with the job as given (folders, model, a busy or damaged output folder);
    the message names it."""


@dataclass(frozen=True)
class LabelOptions:
    photos: Path
    out: Path
    formats: tuple[str, ...] = FORMATS
    model: str | None = None
    namer: str | None = None  # default: the shipped namer (none: the detector names)
    no_namer: bool = False
    conf: float = 0.25
    workers: int = 1
    threads: int | None = None  # onnxruntime threads per worker (default: cores / workers)
    engine: str = "local"
    ray_address: str | None = None
    images: str = "link"
    previews: bool = False
    overwrite: bool = False
    ls_prefix: str = LS_LOCAL_FILES
    city: str | None = None  # chooses indicator or fishing for the set-apart tiles


@dataclass
class LabelReport:
    photos: int = 0  # photos found
    labelled: int = 0  # read by the detector in this run
    already_done: int = 0  # skipped: done in an earlier run
    failed: list[dict[str, str]] = field(default_factory=list)  # photo, error
    no_tiles: list[str] = field(default_factory=list)  # read, and no tile found
    not_photos: list[str] = field(default_factory=list)
    kept: list[dict[str, str]] = field(default_factory=list)  # path, reason
    gone: int = 0  # photos in the manifest no longer in the folder
    warnings: Counter[str] = field(default_factory=Counter)
    scored: Counter[str] = field(default_factory=Counter)  # valid / not_winning / error
    outputs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    detect_seconds: float = 0.0  # wall time of the reading phase

    @property
    def photos_per_second(self) -> float:
        return self.labelled / self.detect_seconds if self.detect_seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "photos": self.photos,
            "labelled": self.labelled,
            "already_done": self.already_done,
            "failed": self.failed,
            "no_tiles": self.no_tiles,
            "not_photos": self.not_photos,
            "kept": self.kept,
            "gone": self.gone,
            "warnings": dict(sorted(self.warnings.items())),
            "scored": dict(sorted(self.scored.items())),
            "outputs": self.outputs,
            "notes": self.notes,
            "seconds": round(self.seconds, 2),
            "photos_per_second": round(self.photos_per_second, 2),
        }

    def summary(self) -> str:
        lines = [
            f"{self.photos} photo(s): {self.labelled} labelled now, {self.already_done} done "
            f"before, {len(self.failed)} unreadable"
            + (f" ({self.photos_per_second:.2f} photos/s)" if self.labelled else "")
        ]
        for f in self.failed:
            lines.append(f"  unreadable: {f['error']}")
        if self.no_tiles:
            shown = ", ".join(self.no_tiles[:5]) + (" …" if len(self.no_tiles) > 5 else "")
            lines.append(
                f"  {len(self.no_tiles)} photo(s) with no tile found (empty labels): {shown}"
            )
        if self.not_photos:
            shown = ", ".join(self.not_photos[:5]) + (" …" if len(self.not_photos) > 5 else "")
            lines.append(f"  {len(self.not_photos)} file(s) skipped, not photos: {shown}")
        for k in self.kept:
            lines.append(f"  kept {k['path']}: {k['reason']}")
        if self.kept:
            lines.append("  (--overwrite replaces them)")
        if self.warnings:
            shown = ", ".join(f"{c} {n}" for c, n in sorted(self.warnings.items()))
            lines.append(f"  reading warnings: {shown}")
        if self.scored:
            lines.append(
                "  scored: " + ", ".join(f"{k} {n}" for k, n in sorted(self.scored.items()))
            )
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


# -- small helpers ------------------------------------------------------------------------


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename,
    so that a reader (or a crash) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a label is an ordinary file
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@cache
def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


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


def _floats(a: Any) -> Any:
    return np.asarray(a, dtype=np.float64).tolist()


# -- the photos under a folder ------------------------------------------------------------


@dataclass(frozen=True)
class Photo:
    rel: str  # posix path under the photos folder
    path: Path
    size: int
    mtime_ns: int


def scan(folder: Path, exclude: Iterable[Path] = ()) -> tuple[list[Photo], list[str]]:
    """Photos under ``folder`` (recursively, hidden files and folders skipped, ``exclude``
    folders left out), sorted by path, and the other files' paths."""
    skip = {p.resolve() for p in exclude}
    photos, others = [], []
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and (here / d).resolve() not in skip
        )
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = here / name
            rel = path.relative_to(folder).as_posix()
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                others.append(rel)
                continue
            try:
                st = path.stat()
            except OSError:
                photos.append(Photo(rel, path, -1, -1))  # a dangling link: reported unreadable
                continue
            photos.append(Photo(rel, path, st.st_size, st.st_mtime_ns))
    photos.sort(key=lambda p: p.rel)
    others.sort()
    return photos, others


# -- the manifest -------------------------------------------------------------------------


class Store:
    """The manifest (``manifest.json``) and its journal (``journal.jsonl``): what was read
    from each photo, and the hashes of every file hupai wrote. Changes go to the journal
    first (one JSON line each, flushed); :meth:`commit` folds them into the manifest."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.manifest_path = state / "manifest.json"
        self.journal_path = state / "journal.jsonl"
        self.photos: dict[str, dict[str, Any]] = {}
        self.files: dict[str, list[str]] = {}
        self._journal: IO[str] | None = None

    @staticmethod
    def open(state: Path) -> Store:
        store = Store(state)
        if store.manifest_path.exists():
            try:
                data = json.loads(store.manifest_path.read_text(encoding="utf-8"))
                if data.get("format") != MANIFEST_FORMAT:
                    raise ValueError("not a hupai label manifest")
                if data.get("version") != MANIFEST_VERSION:
                    raise ValueError(f"manifest version {data.get('version')} is not known")
                store.photos = dict(data["photos"])
                store.files = {k: list(v) for k, v in data["files"].items()}
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                raise LabelJobError(
                    f"{store.manifest_path}: cannot read the manifest ({exc}); without it hupai "
                    "cannot tell which labels a person edited. Move the output folder aside "
                    "and label into a new one"
                ) from None
        if store.journal_path.exists():
            for line in store.journal_path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue  # the last line of an interrupted run
                store._apply(entry)
        return store

    def _apply(self, entry: dict[str, Any]) -> None:
        if "photo" in entry:
            self.photos[entry["photo"]] = entry["entry"]
        elif "file" in entry:
            hashes = self.files.setdefault(entry["file"], [])
            if entry["sha256"] not in hashes:
                hashes.append(entry["sha256"])

    def _log(self, entry: dict[str, Any]) -> None:
        self._apply(entry)
        if self._journal is None:
            self.state.mkdir(parents=True, exist_ok=True)
            self._journal = open(self.journal_path, "a", encoding="utf-8")  # noqa: SIM115
        self._journal.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self._journal.flush()

    def put_photo(self, rel: str, entry: dict[str, Any]) -> None:
        self._log({"photo": rel, "entry": entry})

    def wrote(self, path: str, sha: str) -> None:
        """Record (before writing) that hupai puts content ``sha`` at ``path``."""
        if sha not in self.files.get(path, []):
            self._log({"file": path, "sha256": sha})

    def ours(self, path: str, sha: str) -> bool:
        return sha in self.files.get(path, [])

    def commit(self) -> None:
        data = {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "photos": dict(sorted(self.photos.items())),
            "files": dict(sorted(self.files.items())),
        }
        atomic_write(self.manifest_path, (json.dumps(data, indent=1) + "\n").encode())
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        self.journal_path.unlink(missing_ok=True)


class _Lock:
    """One job per output folder: ``.hupai/lock`` holds the pid of the job writing there."""

    def __init__(self, state: Path) -> None:
        self.path = state / "lock"

    def __enter__(self) -> _Lock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                try:
                    pid = int(self.path.read_text().strip() or 0)
                except (OSError, ValueError):
                    pid = 0
                if pid and pid != os.getpid() and _alive(pid):
                    raise LabelJobError(
                        f"{self.path.parent.parent}: another hupai label (pid {pid}) is "
                        f"writing there; wait for it, or remove {self.path} if it is gone"
                    ) from None
                self.path.unlink(missing_ok=True)  # left by a job that died
                continue
            with os.fdopen(fd, "w") as f:
                f.write(str(os.getpid()))
            return self
        raise LabelJobError(f"{self.path}: cannot take the output folder's lock")

    def __exit__(self, *exc: object) -> None:
        self.path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# -- reading one photo (in a worker) ------------------------------------------------------


def label_photo(
    detector: Detector,
    rel: str,
    path: Path,
    *,
    namer: Namer | None = None,
    previews: bool = False,
    data: bytes | None = None,
) -> dict[str, Any]:
    """Read one photo: what the manifest keeps (the detections in the frame the layout ran
    in, with the affine back to the photo) and, with ``previews``, a JPEG thumbnail of the
    annotated photo. Never raises for a bad photo: ``{"ok": False, "error": …}``."""
    from vision.detector import ImageError, load_image

    began = time.perf_counter()
    try:
        if data is None:
            data = path.read_bytes()
        image = load_image(path)
    except (ImageError, OSError) as exc:
        return {"rel": rel, "ok": False, "error": _error_text(exc, path, rel)}
    try:
        det, to_image, angle, passes = detect_photo(detector, image, finder=namer is not None)
        named = name_tiles(namer, image, det, to_image) if namer is not None else None
        if named is not None:
            det = named.detections
        h, w = image.shape[:2]
        out: dict[str, Any] = {
            "rel": rel,
            "ok": True,
            "sha256": sha256_bytes(data),
            "width": int(w),
            "height": int(h),
            "frame": {
                "xyxy": _floats(det.xyxy),
                "confidence": _floats(det.confidence),
                "class_id": [int(c) for c in det.class_id],
            },
            "to_image": _floats(to_image),
            "angle": float(angle),
            "passes": list(passes),
        }
        if named is not None:  # the namer's alternatives travel with the labels
            out["frame"]["alternatives"] = named.alternatives.tolist()
            out["frame"]["alternative_probs"] = _floats(named.alternative_probs)
            if named.box_confidence is not None:  # the finder's own doubt, for `confident`
                out["frame"]["box_confidence"] = _floats(named.box_confidence)
        out["seconds"] = round(time.perf_counter() - began, 4)
        if previews:
            out["thumb"] = thumbnail(image, reading_of(out, rel))
        return out
    except Exception as exc:  # a photo that trips the pipeline must not stop the run
        return {
            "rel": rel,
            "ok": False,
            "error": f"{rel}: cannot be read ({type(exc).__name__}: {exc})",
        }


def _error_text(exc: Exception, path: Path, rel: str) -> str:
    text = str(exc) if not isinstance(exc, OSError) else f"{path}: {exc.strerror or exc}"
    return text.replace(str(path), rel)


def _per_tile(values: Any, tiles: int, dtype: Any) -> Any:
    """A flat list back to one row per tile (none: ``(0, 0)``; numpy cannot infer a row
    length from an empty list, which stopped a whole batch at a photo without tiles)."""
    flat = np.asarray(values, dtype)
    return flat.reshape(tiles, flat.size // tiles if tiles else 0)


def reading_of(entry: dict[str, Any], rel: str) -> Reading:
    """The reading of a photo rebuilt from its manifest entry (no model needed)."""
    frame = entry["frame"]
    det = Detections.make(frame["xyxy"], frame["class_id"], frame["confidence"])
    names = None
    if "alternatives" in frame:
        alt = _per_tile(frame["alternatives"], len(det), np.int64)
        alt_p = _per_tile(frame["alternative_probs"], len(det), np.float64)
        boxes = frame.get("box_confidence")
        names = NamedTiles(det, alt, alt_p, None if boxes is None else np.asarray(boxes))
    reading = build_reading(
        det,
        np.asarray(entry["to_image"], dtype=np.float64),
        float(entry["angle"]),
        (int(entry["width"]), int(entry["height"])),
        source=rel,
        names=names,
    )
    return dataclasses.replace(
        reading, passes=tuple(entry.get("passes", ())), seconds=float(entry.get("seconds", 0.0))
    )


def thumbnail(image: Any, reading: Reading) -> bytes:
    """The annotated photo fitted in a contact-sheet cell, as JPEG bytes."""
    import cv2

    from vision.annotate import annotate

    drawn = annotate(image, reading)
    h, w = drawn.shape[:2]
    scale = min(CELL[0] / w, CELL[1] / h, 1.0)
    small = cv2.resize(
        drawn, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
    )
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return bytes(buf.tobytes())


# Worker processes: one detector (one onnxruntime session) each, made by the initializer.
_WORKER: dict[str, Any] = {}


def _init_worker(
    model: str, namer: str | None, threads: int | None, conf: float, previews: bool
) -> None:
    _WORKER["detector"] = Detector(model, threads=threads, conf=conf)
    _WORKER["namer"] = Namer(namer, threads=threads) if namer else None
    _WORKER["previews"] = previews


def _work(rel: str, path: str) -> dict[str, Any]:
    return label_photo(
        _WORKER["detector"],
        rel,
        Path(path),
        namer=_WORKER["namer"],
        previews=_WORKER["previews"],
    )


class RayLabeller:
    """A Ray actor's body: loads the model from bytes (the cluster's machines need only
    hupai installed, not the model file) and reads photos sent as bytes."""

    def __init__(
        self, model: dict[str, bytes], threads: int | None, conf: float, previews: bool
    ) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="hupai-label-"))
        onnx = self.dir / "model.onnx"
        onnx.write_bytes(model["onnx"])
        if model.get("json"):
            onnx.with_suffix(".json").write_bytes(model["json"])
        self.detector = Detector(onnx, threads=threads, conf=conf)
        self.namer = None
        if model.get("namer_onnx"):
            namer = self.dir / "namer.onnx"
            namer.write_bytes(model["namer_onnx"])
            namer.with_suffix(".json").write_bytes(model["namer_json"])
            self.namer = Namer(namer, threads=threads)
        self.previews = previews

    def label(self, rel: str, data: bytes) -> dict[str, Any]:
        path = self.dir / ("photo" + PurePosixPath(rel).suffix)
        path.write_bytes(data)
        try:
            return label_photo(
                self.detector, rel, path, namer=self.namer, previews=self.previews, data=data
            )
        finally:
            path.unlink(missing_ok=True)


# -- engines: photos in, results out (in any order) ----------------------------------------


def _run_inline(
    detector: Detector, namer: Namer | None, todo: list[Photo], previews: bool
) -> Iterator[dict[str, Any]]:
    for p in todo:
        yield label_photo(detector, p.rel, p.path, namer=namer, previews=previews)


def _run_processes(
    model: str, namer: str | None, todo: list[Photo], opts: LabelOptions, threads: int | None
) -> Iterator[dict[str, Any]]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    # spawn: each worker starts clean and makes its own session (no session crosses a fork)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=opts.workers,
        mp_context=ctx,
        initializer=_init_worker,
        initargs=(model, namer, threads, opts.conf, opts.previews),
    ) as pool:
        pending: set[Future[dict[str, Any]]] = set()
        queue = iter(todo)
        try:
            while True:
                while len(pending) < 2 * opts.workers:  # a short queue: results stream out
                    p = next(queue, None)
                    if p is None:
                        break
                    pending.add(pool.submit(_work, p.rel, str(p.path)))
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        finally:
            for fut in pending:
                fut.cancel()


def _run_ray(
    model: Path, namer: Path | None, todo: list[Photo], opts: LabelOptions, threads: int | None
) -> Iterator[dict[str, Any]]:
    try:
        import ray
    except ImportError:
        raise LabelJobError(
            "--engine ray needs Ray: pip install 'hupai[ray]' (or use the local engine)"
        ) from None
    started = False
    if not ray.is_initialized():
        ray.init(address=opts.ray_address, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        blob = {"onnx": model.read_bytes()}
        manifest = model.with_suffix(".json")
        if manifest.is_file():
            blob["json"] = manifest.read_bytes()
        if namer is not None:
            blob["namer_onnx"] = namer.read_bytes()
            blob["namer_json"] = namer.with_suffix(".json").read_bytes()
        model_ref = ray.put(blob)
        actor = ray.remote(num_cpus=1)(RayLabeller)
        actors = [
            actor.remote(model_ref, threads or 1, opts.conf, opts.previews)
            for _ in range(opts.workers)
        ]
        pending: dict[Any, Any] = {}
        queue = iter(todo)

        def submit(a: Any) -> dict[str, Any] | None:
            p = next(queue, None)
            if p is None:
                return None
            try:
                data = p.path.read_bytes()
            except OSError as exc:
                return {"rel": p.rel, "ok": False, "error": f"{p.rel}: {exc.strerror or exc}"}
            pending[a.label.remote(p.rel, data)] = (a, p.rel)
            return None

        for a in actors * 2:
            failed = submit(a)
            while failed is not None:
                yield failed
                failed = submit(a)
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            a, rel = pending.pop(ref)
            try:
                yield ray.get(ref)
            except ray.exceptions.RayError as exc:
                yield {"rel": rel, "ok": False, "error": f"{rel}: a Ray worker failed ({exc})"}
            failed = submit(a)
            while failed is not None:
                yield failed
                failed = submit(a)
    finally:
        if started:
            ray.shutdown()


# -- progress -----------------------------------------------------------------------------


class Progress:
    """A progress line with rate and ETA on a terminal (redrawn in place); elsewhere a line
    every few seconds."""

    def __init__(self, total: int, stream: IO[str] | None, *, every: float = 5.0) -> None:
        self.total = total
        self.stream = stream
        self.done = 0
        self.began = time.monotonic()
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.every = every
        self._last = 0.0

    def line(self) -> str:
        elapsed = time.monotonic() - self.began
        rate = self.done / elapsed if elapsed > 0 else 0.0
        share = self.done / self.total if self.total else 1.0
        bar = "#" * round(24 * share)
        eta = "--:--" if rate == 0 else _clock((self.total - self.done) / rate)
        return (
            f"labelling [{bar:<24}] {self.done}/{self.total} {100 * share:3.0f}%  "
            f"{rate:.2f} photos/s  ETA {eta}  elapsed {_clock(elapsed)}"
        )

    def advance(self) -> None:
        self.done += 1
        if self.stream is None:
            return
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r" + self.line())
            self.stream.flush()
        elif now - self._last >= self.every or self.done == self.total:
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._last = now

    def close(self) -> None:
        if self.stream is not None and self.tty and self.total:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


# -- writing outputs ----------------------------------------------------------------------


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


# -- the job ------------------------------------------------------------------------------


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
            raise LabelJobError(f"{model} is a finder: it needs a namer (--namer)")
    except (ModelError, NamerError) as exc:
        raise LabelJobError(str(exc)) from None
    settings = {
        "model_sha256": sha256_file(model),
        "model_version": f"{detector.manifest.name} {detector.manifest.version}"
        + (f" + {namer.manifest.name} {namer.manifest.version}" if namer else ""),
        "namer_sha256": sha256_file(namer.path) if namer else None,
        "conf": opts.conf,
        "iou": detector.iou,
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
        results = _run_ray(model, namer_path, todo, opts, threads)
    elif opts.workers == 1:
        results = _run_inline(detector, namer, todo, opts.previews)
    else:
        results = _run_processes(
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
    """Whether a manifest entry was read with this model and thresholds."""
    if entry is None:
        return False
    had = entry.get("settings", {})
    return all(had.get(k) == settings[k] for k in ("model_sha256", "conf", "iou"))


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

    from vision.detector import load_image

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


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
