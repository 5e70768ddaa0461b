"""``hupai train distill``: one namer, one view, taught to give the shipped ensemble's
probabilities — the last step of the namer recipe (torch; the ``train`` extra). Offline,
resumable.

The **teacher** is a namer exactly as the runtime runs it — the namer, any blend or gate its
manifest names, and its views (the crop cut at each of ``view_margins``), the probabilities
averaged (the teacher's ONNX through :class:`hupai.vision.namer.Namer`, int8 as shipped;
reader 6's namer + blend × two views taught reader 7's namer); the **student** is one
EfficientNet-Lite0 that sees one view (margin :data:`hupai.vision.namer.CROP_MARGIN`). Each
training crop is augmented once (colour, noise, blur, JPEG on the stored crop; then one turn,
shift, stretch and margin jitter cut at every view's margin), the teacher names the crop at
its views, and the student learns to give the teacher's probabilities (soft cross-entropy),
with a small share of the loss on the crop's own label (``label_weight``) — all of it on
the procedural set styles' crops (``gen_label_weight``), which the teacher never saw.

Crops: the namer recipe's sets (:func:`hupai.training.namer.build_crops`): the real train
crops (un-mirrored where the namer recipe judged mirror images; as stored otherwise), the
synthetic scenes, and the hard negatives — boxes over two tiles and part tiles of the real
photos, drawn clutter, other sets' rows — by the shares given. The epoch is chosen as the
namer's is (:func:`hupai.training.namer.selection_score`: real val crops, then the hard-case
val sets; never test). ``last.pt`` after every epoch (resume), ``best.pt`` by the score —
checkpoints that ``hupai train namer-export`` exports like every namer (int8 with ``--int8``).

Nothing here imports torch at module level.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai.datasets.crops import CropSet
from hupai.training.namer import (
    NamerConfig,
    _epoch_indices,
    _sample_weights,
    accuracy_report,
    big_enough,
    build_crops,
    build_model,
    crop_affine,
    epoch_state,
    initial_model,
    photometric,
    predict,
    resume,
    save_epoch,
    selection_score,
    start_run,
)
from hupai.vision.namer import CROP_MARGIN, MEAN, STD, Namer, to_blob

#: The hard-case crop sets by share name: (train set, val set) keys of ``build_crops``.
HARD_SETS = {
    "hard": ("hard-train", "hard-val"),
    "clutter": ("clutter-train", "clutter-val"),
    "sheet": ("sheet-train", "sheet-val"),
    "gen": ("gen-train", "gen-val"),
}


@dataclass(frozen=True)
class DistillConfig:
    name: str = "distill"
    project: str = "runs"
    data: str = "data/crops"
    real: str = "data/real"
    #: the teacher: a namer ONNX with the blend, gate and views its manifest names (None:
    #: the shipped namer)
    teacher: str | None = None
    #: where the student starts: a checkpoint, or a namer ONNX rebuilt (None: the teacher's
    #: own ONNX — its first namer, already close)
    init: str | None = None
    synth_scenes: int = 3000
    synth_val_scenes: int = 300
    synth_seed: int = 101
    synth_share: float = 0.35
    hard_share: float = 0.10
    clutter_share: float = 0.10
    sheet_share: float = 0.0
    #: of each epoch's crops: scenes drawn with procedural set styles of the training families
    #: (:mod:`hupai.datasets.synth.faces`; the held-out family never)
    gen_share: float = 0.0
    gen_scenes: int = 1000
    clutter_crops: int = 20000
    sheet_rows: int = 3000
    epochs: int = 3
    epoch_crops: int = 20000
    batch: int = 64
    lr: float = 5e-4
    weight_decay: float = 1e-4
    #: of the loss on the crop's own label (cross-entropy); the rest matches the teacher
    label_weight: float = 0.2
    #: the same for the generated-style crops: the teacher has never seen such sets (it names
    #: about half of their tiles right), so there the label teaches, not the teacher
    gen_label_weight: float = 1.0
    label_smoothing: float = 0.05
    size: int = 64
    min_side: float = 20.0
    flower_boost: float = 4.0
    white_dragon_boost: float = 2.0
    #: cut crops of val sets at most this many per set (0: all; a smoke run's few)
    val_limit: int = 0
    seed: int = 0
    threads: int = 2

    @property
    def run_dir(self) -> Path:
        return Path(self.project) / self.name

    def namer_config(self) -> NamerConfig:
        """The namer recipe's config for what both share: the crop sets and the sampling."""
        return NamerConfig(
            name=self.name,
            project=self.project,
            data=self.data,
            real=self.real,
            synth_scenes=self.synth_scenes,
            synth_val_scenes=self.synth_val_scenes,
            synth_seed=self.synth_seed,
            size=self.size,
            clutter_crops=self.clutter_crops,
            sheet_rows=self.sheet_rows,
            gen_share=self.gen_share,
            gen_scenes=self.gen_scenes,
            flower_boost=self.flower_boost,
            white_dragon_boost=self.white_dragon_boost,
            min_side=self.min_side,
            seed=self.seed,
            threads=self.threads,
        )

    def shares(self) -> dict[str, float]:
        return {
            "hard": self.hard_share,
            "clutter": self.clutter_share,
            "sheet": self.sheet_share,
            "gen": self.gen_share,
        }

    def label_weight_of(self, kind: str) -> float:
        """Of the loss on the label for crops of the set ``kind`` (a key of :meth:`shares`,
        or ``real``/``synth``)."""
        return self.gen_label_weight if kind == "gen" else self.label_weight


# -- augmentation: one crop, every view -------------------------------------------------------


def augment_views(
    rng: np.random.Generator, stored: NDArray[np.uint8], size: int, margins: Sequence[float]
) -> list[NDArray[np.uint8]]:
    """One training crop cut at each of ``margins`` with the same turn, shift, stretch and
    margin jitter (label-preserving: no mirror images)."""
    import cv2

    img = photometric(rng, stored)  # on the stored crop: every view cuts the same pixels
    angle = 180.0 * int(rng.integers(2)) + float(rng.normal(0, 6))
    if rng.random() < 0.2:
        angle += float(rng.uniform(-30, 30))
    s = float(np.exp(rng.normal(0, 0.07)))
    jitter = float(rng.uniform(-0.10, 0.10))
    shift = (float(rng.normal(0, 0.04)), float(rng.normal(0, 0.04)))
    scale_xy = (s * float(np.exp(rng.normal(0, 0.05))), s)
    views = []
    for margin in margins:
        m = crop_affine(size, margin + jitter, shift=shift, scale_xy=scale_xy, angle=angle)
        views.append(
            np.asarray(
                cv2.warpAffine(
                    img, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
                ),
                np.uint8,
            )
        )
    return views


def inputs_at(stored: NDArray[np.uint8], size: int, margin: float) -> NDArray[np.uint8]:
    """Stored crops → the runtime's inputs at ``margin`` (no jitter)."""
    import cv2

    m = crop_affine(size, margin)
    if not len(stored):
        return np.zeros((0, size, size, 3), np.uint8)
    return np.stack(
        [
            cv2.warpAffine(s, m, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
            for s in stored
        ]
    )


# -- the teacher -------------------------------------------------------------------------------


class Teacher:
    """A namer as the runtime runs it (the shipped one by default): its namers and views."""

    def __init__(self, model: str | None, threads: int) -> None:
        self.namer = Namer(model, threads=threads)
        self.margins = self.namer.manifest.views

    def probs(self, views: Sequence[NDArray[np.uint8]]) -> NDArray[np.float64]:
        """Probabilities of crops given at each of :attr:`margins` (``views[k]``: (n, s, s, 3))."""
        by_margin = dict(zip(self.margins, views, strict=True))
        names = self.namer.name_views(
            lambda m, rows: by_margin[m] if rows is None else by_margin[m][rows]
        )
        return np.asarray(names.probs, np.float64)

    def describe(self) -> dict[str, Any]:
        m = self.namer.manifest
        return {
            "namer": str(self.namer.path),
            "blend": None if m.blend is None else {"file": m.blend[0], "weight": m.blend[1]},
            "gate": None if m.gate is None else {"file": m.gate[0], "reject_above": m.gate[1]},
            "views": list(self.margins),
        }


# -- training ----------------------------------------------------------------------------------


def distill_loss(
    logits: Any, teacher: Any, labels: Any, label_weights: Any, cfg: DistillConfig
) -> Any:
    """Soft cross-entropy against the teacher's probabilities, plus ``label_weights`` (one a
    crop) of the cross-entropy on the labels."""
    import torch

    logp = torch.log_softmax(logits, dim=1)
    soft = -(teacher * logp).sum(dim=1)
    hard = torch.nn.functional.cross_entropy(
        logits, labels, label_smoothing=cfg.label_smoothing, reduction="none"
    )
    return ((1 - label_weights) * soft + label_weights * hard).mean()


def distill_epochs(
    model: Any,
    teacher: Teacher,
    sets: Sequence[tuple[CropSet, float]],
    cfg: DistillConfig,
    *,
    label_weights: Sequence[float] | None = None,
    state: dict[str, Any] | None,
    on_epoch: Callable[[int, dict[str, Any]], None],
    log: Callable[[str], None],
) -> None:
    """Teach ``model`` on crop sets drawn with the given shares of each epoch, one-cycle
    learning rate over all epochs, batch norms frozen (a student rebuilt from ONNX has them
    folded); ``on_epoch(epoch, state)`` checkpoints; ``state`` resumes."""
    import torch

    from hupai.training.namer_onnx import freeze_batch_norms

    torch.manual_seed(cfg.seed)
    steps = max(1, cfg.epoch_crops // cfg.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=cfg.lr, total_steps=cfg.epochs * steps, pct_start=0.15
    )
    start = 0
    if state is not None:
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        start = int(state["epoch"]) + 1
    ncfg = cfg.namer_config()
    weights = [_sample_weights(s, ncfg) for s, _ in sets]
    margins = (CROP_MARGIN, *teacher.margins)  # the student's view first
    by_set = np.asarray(label_weights or [cfg.label_weight] * len(sets), np.float32)
    for epoch in range(start, cfg.epochs):
        rng = np.random.default_rng([cfg.seed, epoch])
        pick = _epoch_indices(rng, sets, weights, steps * cfg.batch)
        model.train()
        freeze_batch_norms(model)
        began, seen, agree, correct, total = time.perf_counter(), 0, 0, 0, 0.0

        def lesson(
            step: int, rng: np.random.Generator = rng, pick: list[tuple[int, int]] = pick
        ) -> Lesson:
            rows = pick[step * cfg.batch : (step + 1) * cfg.batch]
            cut = [augment_views(rng, sets[k][0].images[i], cfg.size, margins) for k, i in rows]
            views = [np.stack([c[v] for c in cut]) for v in range(len(margins))]
            return rows, views, teacher.probs(views[1:])

        for step, (rows, views, target) in enumerate(ahead(lesson, steps)):
            y = torch.from_numpy(np.array([sets[k][0].labels[i] for k, i in rows], np.int64))
            t = torch.from_numpy(target.astype(np.float32))
            logits = model(torch.from_numpy(to_blob(views[0], MEAN, STD)))
            lw = torch.from_numpy(by_set[[k for k, _ in rows]])
            loss = distill_loss(logits, t, y, lw, cfg)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            seen += len(y)
            best = logits.argmax(1)
            agree += int((best == t.argmax(1)).sum())
            correct += int((best == y).sum())
            total += float(loss.detach()) * len(y)
            if (step + 1) % 50 == 0:
                rate = seen / (time.perf_counter() - began)
                log(
                    f"  epoch {epoch + 1}/{cfg.epochs} step {step + 1}/{steps} loss "
                    f"{total / seen:.4f} agrees {agree / seen:.4f} acc {correct / seen:.4f} "
                    f"{rate:.1f} crops/s"
                )
        agreement = agree / max(seen, 1)
        state = epoch_state(
            epoch, opt, sched, total, correct, seen, began, train_agreement=agreement
        )
        on_epoch(epoch, state)


#: One step's crops: (rows picked, the crops cut at each view, the teacher's probabilities).
Lesson = tuple[list[tuple[int, int]], list[NDArray[np.uint8]], NDArray[np.float64]]


def ahead(make: Callable[[int], Lesson], steps: int, depth: int = 3) -> Iterator[Lesson]:
    """``make(0) … make(steps - 1)`` in order, made in a thread ``depth`` steps ahead: the
    cutting (OpenCV) and the teacher (onnxruntime) release the GIL, so they run on one core
    while the student trains on the other — without it the run used one core of two. The
    steps are made in order by one thread, so the random draws are the same as inline.

    >>> list(ahead(lambda i: ([(i, i)], [], np.zeros(0)), 3))[2][0]
    [(2, 2)]
    """
    import queue
    import threading

    made: queue.Queue[tuple[Lesson | None, BaseException | None]] = queue.Queue(depth)
    stop = threading.Event()

    def work() -> None:
        try:
            for step in range(steps):
                if stop.is_set():
                    return
                made.put((make(step), None))
        except BaseException as exc:  # handed to the consumer, raised there
            made.put((None, exc))

    worker = threading.Thread(target=work, name="distill-ahead", daemon=True)
    worker.start()
    try:
        for _ in range(steps):
            lesson, error = made.get()
            if error is not None:
                raise error
            assert lesson is not None
            yield lesson
    finally:
        stop.set()
        while worker.is_alive():  # unblock a worker waiting on a full queue
            with contextlib.suppress(queue.Empty):
                made.get(timeout=0.1)
        worker.join()


def _limited(crops: CropSet, n: int) -> CropSet:
    if not n or len(crops) <= n:
        return crops
    keep = np.random.default_rng(0).choice(len(crops), n, replace=False)
    return crops.subset(np.sort(keep))


def run(cfg: DistillConfig) -> Path:
    """The crops (built once), then every epoch not yet done; returns ``best.pt``."""

    run_dir = cfg.run_dir
    log = start_run(run_dir, asdict(cfg), cfg.threads)
    shares = cfg.shares()
    unused = {key for kind, keys in HARD_SETS.items() if not shares[kind] for key in keys}
    paths = build_crops(cfg.namer_config(), log, skip=frozenset(unused))
    unmirrored = paths["real-train-unmirrored"]
    real_train = CropSet.load(unmirrored if unmirrored.exists() else paths["real-train"])
    real_train = big_enough(real_train, cfg.min_side)
    synth_train = big_enough(CropSet.load(paths["synth-train"]), cfg.min_side)
    used = [kind for kind, share in shares.items() if share > 0]
    hard_sets = [(CropSet.load(paths[HARD_SETS[kind][0]]), shares[kind]) for kind in used]
    real_val = _limited(CropSet.load(paths["real-val"]), cfg.val_limit)
    checks = {
        HARD_SETS[kind][1]: _limited(CropSet.load(paths[HARD_SETS[kind][1]]), cfg.val_limit)
        for kind, share in shares.items()
        if share > 0
    }
    teacher = Teacher(cfg.teacher, cfg.threads)
    init = cfg.init or str(teacher.namer.path)
    log(
        f"distill: teacher {json.dumps(teacher.describe())}; student from {init}; real "
        f"{len(real_train)} crops, synthetic {len(synth_train)}, "
        + ", ".join(f"{k} {s:.2f}" for k, s in shares.items())
    )

    last, best = run_dir / "weights" / "last.pt", run_dir / "weights" / "best.pt"
    state, best_score = None, -1.0
    if not last.exists():
        model = initial_model(init)
    else:
        model = build_model()
        state, best_score = resume(model, last, log)
    val_inputs = inputs_at(real_val.images, cfg.size, CROP_MARGIN)
    teacher_val = teacher.probs([inputs_at(real_val.images, cfg.size, m) for m in teacher.margins])
    check_inputs = {k: inputs_at(c.images, cfg.size, CROP_MARGIN) for k, c in checks.items()}
    log("teacher on real val crops: " + json.dumps(accuracy_report(teacher_val, real_val.labels)))

    def on_epoch(epoch: int, train_state: dict[str, Any]) -> None:
        nonlocal best_score
        probs = predict(model, val_inputs)
        val = accuracy_report(probs, real_val.labels)
        val["teacher_agreement"] = float((probs.argmax(1) == teacher_val.argmax(1)).mean())
        val["teacher_kl"] = _kl(teacher_val, probs)
        hard = {
            k: accuracy_report(predict(model, check_inputs[k]), c.labels) for k, c in checks.items()
        }
        score = selection_score(val, hard)
        row = {
            "epoch": epoch + 1,
            **{k: train_state[k] for k in ("train_loss", "train_acc", "train_agreement")},
            "seconds": round(train_state["seconds"]),
            "val": val,
            "hard": hard,
            "score": score,
        }
        log(
            f"epoch {epoch + 1}: val acc {val['accuracy']:.4f} (tiles "
            f"{val['tiles_accuracy']:.4f}, reject {val['reject_recall']}) agrees with the "
            f"teacher {val['teacher_agreement']:.4f} KL {val['teacher_kl']:.4f} | "
            + " ".join(f"{k} {v['accuracy']:.4f}" for k, v in hard.items())
            + f" | score {score:.4f}"
        )
        ckpt = {
            "model": model.state_dict(),
            "train_state": train_state,
            "best_acc": max(best_score, score),
            "config": {**asdict(cfg), "kind": "distilled", "teacher": teacher.describe()},
            "val": val,
        }
        save_epoch(ckpt, row, run_dir, score > best_score, log)
        best_score = max(best_score, score)

    rest = 1 - cfg.synth_share - sum(share for _, share in hard_sets)
    distill_epochs(
        model,
        teacher,
        [(real_train, rest), (synth_train, cfg.synth_share), *hard_sets],
        cfg,
        label_weights=[cfg.label_weight, cfg.label_weight, *map(cfg.label_weight_of, used)],
        state=state,
        on_epoch=on_epoch,
        log=log,
    )
    return best


def _kl(p: NDArray[np.float64], q: NDArray[np.float64]) -> float:
    """Mean KL(p ‖ q) over rows."""
    if not len(p):
        return 0.0
    eps = 1e-9
    return float(np.mean(np.sum(p * (np.log(p + eps) - np.log(q + eps)), axis=1)))
