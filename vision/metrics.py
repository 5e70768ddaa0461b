"""Detection metrics for the tile detector: numpy only, no torch.

mAP follows the COCO/ultralytics recipe (greedy matching by IoU at ten thresholds 0.50:0.95,
101-point interpolated precision envelope, each curve closed at recall 1 with precision 0 —
so a perfect detector scores 0.995, exactly as in ultralytics) so figures are comparable with
ultralytics' own validation. On top of it the product's own measures: tile-level
precision/recall at the confidence the product uses, the most confused class pairs, and the
photo exact-read rate — the share of photos whose multiset of tiles is read exactly, which is
what a player sees.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from hupai.vision.detections import Detections, box_iou

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)


def match_predictions(
    pred: Detections, truth: Detections, thresholds: NDArray[np.float64] = IOU_THRESHOLDS
) -> NDArray[np.bool_]:
    """(len(pred), len(thresholds)) true-positive matrix: each truth box is matched at most
    once per threshold, to a same-class prediction, best IoU first (ultralytics' rule)."""
    tp = np.zeros((len(pred), len(thresholds)), dtype=bool)
    if len(pred) == 0 or len(truth) == 0:
        return tp
    iou = box_iou(truth.xyxy, pred.xyxy) * (truth.class_id[:, None] == pred.class_id[None, :])
    for k, threshold in enumerate(thresholds):
        t_idx, p_idx = np.nonzero(iou >= threshold)
        if not len(t_idx):
            continue
        order = np.argsort(-iou[t_idx, p_idx], kind="stable")
        t_idx, p_idx = t_idx[order], p_idx[order]
        _, first_p = np.unique(p_idx, return_index=True)
        t_idx, p_idx = t_idx[first_p], p_idx[first_p]
        order = np.argsort(-iou[t_idx, p_idx], kind="stable")
        t_idx, p_idx = t_idx[order], p_idx[order]
        _, first_t = np.unique(t_idx, return_index=True)
        tp[p_idx[first_t], k] = True
    return tp


def average_precision(recall: NDArray[np.float64], precision: NDArray[np.float64]) -> float:
    """101-point interpolated AP of one precision/recall curve (COCO)."""
    mrec = np.concatenate(([0.0], recall, [1.0]))
    mpre = np.concatenate(([1.0], precision, [0.0]))
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    x = np.linspace(0, 1, 101)
    return float(np.trapezoid(np.interp(x, mrec, mpre), x))


@dataclass(frozen=True)
class Report:
    """What ``hupai eval`` prints."""

    photos: int
    map50: float
    map50_95: float
    per_class_ap50: dict[int, float]
    per_class_ap50_95: dict[int, float]
    per_class_truth: dict[int, int]
    precision: float
    recall: float
    exact_read: float
    confusions: list[tuple[int, int, int]] = field(default_factory=list)
    conf_threshold: float = 0.25


def evaluate(
    predictions: Sequence[Detections],
    truths: Sequence[Detections],
    conf_threshold: float = 0.25,
    classes: Sequence[int] | None = None,
) -> Report:
    """Evaluate per-photo predictions against ground truth.

    ``classes`` limits every figure to those class ids (e.g. the 34 tile kinds a peer
    model knows); predictions and truths of other classes are dropped first. mAP uses every
    prediction (rank them by confidence, as ultralytics does); precision, recall, exact
    read and confusions use those at or above ``conf_threshold``.
    """
    if len(predictions) != len(truths):
        raise ValueError("one prediction set per photo is needed")
    if classes is not None:
        wanted = np.asarray(sorted(classes))
        predictions = [_only(p, wanted) for p in predictions]
        truths = [_only(t, wanted) for t in truths]

    tps, confs, pred_cls = [], [], []
    tile_tp = n_pred = n_truth = exact = 0
    confusion: Counter[tuple[int, int]] = Counter()
    for pred, truth in zip(predictions, truths, strict=True):
        tps.append(match_predictions(pred, truth))
        confs.append(pred.confidence)
        pred_cls.append(pred.class_id)
        kept = pred.above(conf_threshold)
        hits = match_predictions(kept, truth, np.array([0.5]))[:, 0]
        tile_tp += int(hits.sum())
        n_pred += len(kept)
        n_truth += len(truth)
        exact += Counter(kept.class_id.tolist()) == Counter(truth.class_id.tolist())
        confusion.update(_confusions(kept, truth))

    tp = np.concatenate(tps) if tps else np.zeros((0, 10), bool)
    conf = np.concatenate(confs) if confs else np.zeros(0)
    pcls = np.concatenate(pred_cls) if pred_cls else np.zeros(0, np.int64)
    truth_counts = Counter(int(c) for t in truths for c in t.class_id)
    ap = _per_class_ap(tp, conf, pcls, truth_counts)
    present = sorted(truth_counts)
    ap50 = {c: float(ap[c][0]) for c in present}
    ap50_95 = {c: float(ap[c].mean()) for c in present}
    return Report(
        photos=len(truths),
        map50=float(np.mean(list(ap50.values()))) if present else 0.0,
        map50_95=float(np.mean(list(ap50_95.values()))) if present else 0.0,
        per_class_ap50=ap50,
        per_class_ap50_95=ap50_95,
        per_class_truth=dict(sorted(truth_counts.items())),
        precision=tile_tp / n_pred if n_pred else 0.0,
        recall=tile_tp / n_truth if n_truth else 0.0,
        exact_read=exact / len(truths) if truths else 0.0,
        confusions=[(a, b, n) for (a, b), n in confusion.most_common()],
        conf_threshold=conf_threshold,
    )


def _only(boxes: Detections, wanted: NDArray[np.int64]) -> Detections:
    keep = np.isin(boxes.class_id, wanted)
    return boxes[keep]


def _per_class_ap(
    tp: NDArray[np.bool_],
    conf: NDArray[np.float64],
    pred_cls: NDArray[np.int64],
    truth_counts: Counter[int],
) -> dict[int, NDArray[np.float64]]:
    order = np.argsort(-conf, kind="stable")
    tp, pred_cls = tp[order], pred_cls[order]
    result: dict[int, NDArray[np.float64]] = {}
    for c, n_truth in truth_counts.items():
        mine = pred_cls == c
        if not mine.any():
            result[c] = np.zeros(tp.shape[1])
            continue
        tpc = tp[mine].cumsum(axis=0)
        fpc = (~tp[mine]).cumsum(axis=0)
        recall = tpc / n_truth
        precision = tpc / (tpc + fpc)
        result[c] = np.array(
            [average_precision(recall[:, k], precision[:, k]) for k in range(tp.shape[1])]
        )
    return result


def _confusions(pred: Detections, truth: Detections) -> Counter[tuple[int, int]]:
    """(truth class, predicted class) pairs of boxes that overlap (IoU ≥ 0.5) but disagree,
    each truth box matched to its best-overlapping prediction."""
    out: Counter[tuple[int, int]] = Counter()
    if len(pred) == 0 or len(truth) == 0:
        return out
    iou = box_iou(truth.xyxy, pred.xyxy)
    for t, row in enumerate(iou):
        p = int(row.argmax())
        if row[p] >= 0.5 and pred.class_id[p] != truth.class_id[t]:
            out[(int(truth.class_id[t]), int(pred.class_id[p]))] += 1
    return out


# -- the two stages of reading ------------------------------------------------------------

#: Tile size bins (longer box side, photo pixels) for recall by size.
SIZE_BINS = (0, 32, 48, 64, 96, 128, 192, 100_000)


def match_pairs(
    pred: NDArray[np.float64], truth: NDArray[np.float64], iou: float = 0.5
) -> list[tuple[int, int]]:
    """Class-agnostic one-to-one matches ``(truth, pred)`` at IoU ≥ ``iou``, best first.

    >>> match_pairs(np.array([[0, 0, 10, 10.], [20, 0, 30, 10]]), np.array([[1, 0, 11, 10.]]))
    [(0, 0)]
    """
    if len(pred) == 0 or len(truth) == 0:
        return []
    ious = box_iou(truth, pred)
    t_idx, p_idx = np.nonzero(ious >= iou)
    order = np.argsort(-ious[t_idx, p_idx], kind="stable")
    used_t: set[int] = set()
    used_p: set[int] = set()
    out = []
    for k in order:
        t, p = int(t_idx[k]), int(p_idx[k])
        if t in used_t or p in used_p:
            continue
        used_t.add(t)
        used_p.add(p)
        out.append((t, p))
    return out


@dataclass
class StageReport:
    """Reading measured stage by stage: the finder's boxes (class-agnostic), the boxes the
    namer kept (found tiles), the names of found tiles (top-1/2/3), per class and size."""

    truth: int = 0
    finder_boxes: int = 0
    finder_hits: int = 0
    kept_boxes: int = 0
    found: int = 0
    named: int = 0
    top2: int = 0
    top3: int = 0
    per_class: dict[int, list[int]] = field(default_factory=dict)  # truth, found, named
    per_size: dict[int, list[int]] = field(default_factory=dict)  # bin → truth, found, named

    def add(
        self,
        truth: Detections,
        finder_xyxy: NDArray[np.float64],
        read: Detections,
        alternatives: NDArray[np.int64] | None,
    ) -> None:
        self.truth += len(truth)
        self.finder_boxes += len(finder_xyxy)
        self.finder_hits += len(match_pairs(finder_xyxy, truth.xyxy))
        self.kept_boxes += len(read)
        side = (truth.xyxy[:, 2:] - truth.xyxy[:, :2]).max(axis=1) if len(truth) else []
        bins = np.digitize(side, SIZE_BINS) - 1 if len(truth) else np.zeros(0, int)
        found = dict(match_pairs(read.xyxy, truth.xyxy))
        for t in range(len(truth)):
            cls, b = int(truth.class_id[t]), int(bins[t])
            row_c = self.per_class.setdefault(cls, [0, 0, 0])
            row_s = self.per_size.setdefault(b, [0, 0, 0])
            row_c[0] += 1
            row_s[0] += 1
            if t not in found:
                continue
            p = found[t]
            self.found += 1
            row_c[1] += 1
            row_s[1] += 1
            names = alternatives[p] if alternatives is not None else read.class_id[p : p + 1]
            if int(read.class_id[p]) == cls:
                self.named += 1
                row_c[2] += 1
                row_s[2] += 1
            self.top2 += int(cls in names[:2].tolist())
            self.top3 += int(cls in names[:3].tolist())

    def figures(self) -> dict[str, float]:
        def ratio(a: int, b: int) -> float:
            return a / b if b else 0.0

        return {
            "finder_recall": ratio(self.finder_hits, self.truth),
            "finder_precision": ratio(self.finder_hits, self.finder_boxes),
            "found_recall": ratio(self.found, self.truth),
            "found_precision": ratio(self.found, self.kept_boxes),
            "namer_accuracy": ratio(self.named, self.found),
            "namer_top2": ratio(self.top2, self.found),
            "namer_top3": ratio(self.top3, self.found),
        }
