"""The onnxruntime session settings chosen by bench/sessions.py."""

from __future__ import annotations

import pytest

from hupai.vision.detector import session_options

pytest.importorskip("onnxruntime")


def test_threads_do_not_spin_and_run_one_operator_at_a_time() -> None:
    import onnxruntime as ort

    options = session_options(2)
    assert options.intra_op_num_threads == 2
    assert options.inter_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL


def test_no_thread_count_leaves_onnxruntime_its_default() -> None:
    assert session_options(None).intra_op_num_threads == 0
