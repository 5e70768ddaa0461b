import numpy as np
import pytest

from hupai.vision.detections import Detections
from hupai.vision.metrics import evaluate

# Ultralytics' interpolation closes every curve at (recall 1, precision 0), so a perfect
# detector scores 0.995, not 1; we keep its recipe so figures compare with its own.
PERFECT = pytest.approx(0.995)

TRUTH = Detections.make([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], [0, 1, 1])


def test_perfect_predictions_score_one():
    report = evaluate([Detections.make(TRUTH.xyxy, TRUTH.class_id, [0.9, 0.8, 0.7])], [TRUTH])
    assert (report.map50, report.map50_95, report.exact_read) == (PERFECT, PERFECT, 1.0)
    assert (report.precision, report.recall) == (1.0, 1.0)


def test_wrong_class_is_a_confusion_and_breaks_the_exact_read():
    pred = Detections.make(TRUTH.xyxy, [0, 1, 2], [0.9, 0.8, 0.7])
    report = evaluate([pred], [TRUTH])
    assert report.confusions == [(1, 2, 1)]
    assert report.exact_read == 0.0
    assert report.recall == pytest.approx(2 / 3)


def test_low_confidence_boxes_count_for_map_but_not_for_the_read():
    pred = Detections.make(TRUTH.xyxy, TRUTH.class_id, [0.9, 0.8, 0.1])
    report = evaluate([pred], [TRUTH], conf_threshold=0.25)
    assert report.map50 == PERFECT
    assert report.exact_read == 0.0


def test_a_false_positive_ranked_first_lowers_ap():
    pred = Detections.make([[100, 100, 110, 110], *TRUTH.xyxy], [0, 0, 1, 1], [0.99, 0.9, 0.8, 0.7])
    report = evaluate([pred], [TRUTH])
    assert report.per_class_ap50[0] < 0.6
    assert report.per_class_ap50[1] == PERFECT


def test_loose_box_passes_map50_but_not_map50_95():
    pred = Detections.make([[0, 0, 10, 13], [20, 0, 30, 10], [40, 0, 50, 10]], [0, 1, 1])
    report = evaluate([pred], [TRUTH])
    assert report.per_class_ap50[0] == PERFECT
    assert report.per_class_ap50_95[0] < 0.6


def test_classes_filter_drops_other_classes():
    pred = Detections.make(TRUTH.xyxy[1:], TRUTH.class_id[1:])
    report = evaluate([pred], [TRUTH], classes=[1])
    assert report.exact_read == 1.0
    assert list(report.per_class_truth) == [1]


def test_empty_photo_with_no_predictions_is_an_exact_read():
    empty = Detections.make(np.zeros((0, 4)), [])
    assert evaluate([empty], [empty]).exact_read == 1.0
