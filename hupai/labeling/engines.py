"""Engines: photos in, results out (in any order) — inline, worker processes (each with its
own onnxruntime session), or Ray actors that receive the model and the photos as bytes.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from hupai.labeling import read
from hupai.labeling.options import LabelJobError, LabelOptions
from hupai.labeling.photos import Photo
from hupai.vision.detector import Detector
from hupai.vision.namer import Namer

_WORKER: dict[str, Any] = {}


def _init_worker(
    model: str, namer: str | None, threads: int | None, conf: float, previews: bool
) -> None:
    _WORKER["detector"] = Detector(model, threads=threads, conf=conf)
    _WORKER["namer"] = Namer(namer, threads=threads) if namer else None
    _WORKER["previews"] = previews


def _work(rel: str, path: str) -> dict[str, Any]:
    return read.label_photo(
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
        self, model: dict[str, Any], threads: int | None, conf: float, previews: bool
    ) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="hupai-label-"))
        onnx = self.dir / "model.onnx"
        onnx.write_bytes(model["onnx"])
        if model.get("json"):
            onnx.with_suffix(".json").write_bytes(model["json"])
        self.detector = Detector(onnx, threads=threads, conf=conf)
        self.namer = None
        if model.get("namer"):
            files: dict[str, bytes] = model["namer_files"]
            folder = self.dir / "namer"  # the namer and its blend or gate, side by side
            folder.mkdir()
            for name, blob in files.items():
                (folder / PurePosixPath(name).name).write_bytes(blob)
            namer = folder / PurePosixPath(model["namer"].decode()).name
            self.namer = Namer(namer, threads=threads)
        self.previews = previews

    def label(self, rel: str, data: bytes) -> dict[str, Any]:
        return read.label_photo(
            self.detector, rel, Path(rel), namer=self.namer, previews=self.previews, data=data
        )


def namer_digest(namer: Path) -> str:
    """One digest of everything that makes the namer name as it does: its ONNX and manifest
    (calibration, views) and the namers its manifest names beside it with theirs
    (:func:`namer_files`) — a bonus or bird reader swapped in changes the readings as surely
    as a new namer does."""
    import hashlib

    h = hashlib.sha256()
    for name, data in sorted(namer_files(namer).items()):
        h.update(f"{name}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return h.hexdigest()


def namer_files(namer: Path) -> dict[str, bytes]:
    """A namer's files by name: its ONNX and manifest, and those of the namers its manifest
    names beside it (a blend, a gate, a bonus reader), so that a Ray worker rebuilds the same
    namer."""
    from hupai.vision.namer import load_namer_manifest

    paths = [namer, namer.with_suffix(".json")]
    for partner in load_namer_manifest(namer).partners:
        other = namer.parent / partner
        paths += [other, other.with_suffix(".json")]
    return {p.name: p.read_bytes() for p in paths if p.is_file()}


# -- engines: photos in, results out (in any order) ----------------------------------------


def run_inline(
    detector: Detector, namer: Namer | None, todo: list[Photo], previews: bool
) -> Iterator[dict[str, Any]]:
    for p in todo:
        yield read.label_photo(detector, p.rel, p.path, namer=namer, previews=previews)


def run_processes(
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


def run_ray(
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
        shipped: dict[str, Any] = dict(blob)
        if namer is not None:
            shipped["namer"] = namer.name.encode()
            shipped["namer_files"] = namer_files(namer)
        model_ref = ray.put(shipped)
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
