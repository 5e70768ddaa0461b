"""onnxruntime session settings, measured: each setting against the plain session (the peer,
in the same run, calls interleaved so that the machine's load falls on all alike).

The finder on one letterboxed real photo, the namer on a batch of 32 real crops, and the two
in a row as a read calls them (the finder's threads may still spin when the namer starts);
for each setting the median ms a call and its ratio to the plain session. Each setting runs
twice a round and the second call is timed, so that one setting's spinning threads do not
fall on the next. IO binding is tried for the namer's batch (inputs bound as an OrtValue).

    .venv/bin/python bench/sessions.py [--finder F.onnx] [--namer N.onnx] [--threads 2]
        [--rounds 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def options(threads: int, **changes: Any) -> Any:
    import onnxruntime as ort

    o = ort.SessionOptions()
    o.intra_op_num_threads = threads
    o.inter_op_num_threads = 1
    o.log_severity_level = 3
    for key, value in changes.items():
        if key == "config":
            for k, v in value.items():
                o.add_session_config_entry(k, v)
        else:
            setattr(o, key, value)
    return o


def settings(threads: int) -> dict[str, Any]:
    import onnxruntime as ort

    level = ort.GraphOptimizationLevel
    return {
        "plain (peer)": options(threads),
        "graph opt basic": options(threads, graph_optimization_level=level.ORT_ENABLE_BASIC),
        "graph opt extended": options(threads, graph_optimization_level=level.ORT_ENABLE_EXTENDED),
        "no spinning": options(threads, config={"session.intra_op.allow_spinning": "0"}),
        "no memory arena": options(threads, enable_cpu_mem_arena=False),
        "no memory pattern": options(threads, enable_mem_pattern=False),
        "parallel execution": options(threads, execution_mode=ort.ExecutionMode.ORT_PARALLEL),
        "1 thread": options(1),
    }


def inputs(root: Path) -> tuple[np.ndarray, np.ndarray]:
    """One real val photo letterboxed to 512 and 32 real val crops, as the reader makes them."""
    from hupai.training.quantize import Role, finder_inputs, namer_crops, real_photos
    from hupai.vision.namer import to_blob

    photos = real_photos(root, "val")
    photo = next(finder_inputs(Role("finder", "images", 512, {}), photos[:1]))
    crops, _ = namer_crops(Role("namer", "crops", 64, {}), photos[:8], 32)
    return photo, to_blob(crops)


def timed(calls: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    for call in calls.values():
        call()  # warm up
    times: dict[str, list[float]] = {k: [] for k in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            call()  # untimed: the previous setting's threads may still be spinning
            began = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - began)
    return {k: statistics.median(v) * 1000 for k, v in times.items()}


def model_calls(path: Path, x: np.ndarray, threads: int, bind: bool) -> dict[str, Any]:
    import onnxruntime as ort

    calls: dict[str, Any] = {}
    for name, opts in settings(threads).items():
        s = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        feed = {s.get_inputs()[0].name: x}
        calls[name] = lambda s=s, feed=feed: s.run(None, feed)
        if bind and name == "plain (peer)":
            calls["IO binding"] = _bound(s, x)
    return calls


def pair_calls(
    finder: Path, namer: Path, photo: np.ndarray, crops: np.ndarray, threads: int
) -> dict[str, Any]:
    """The finder then the namer, as a read calls them, per setting."""
    import onnxruntime as ort

    calls: dict[str, Any] = {}
    for name, opts in settings(threads).items():
        f, n = (
            ort.InferenceSession(str(p), opts, providers=["CPUExecutionProvider"])
            for p in (finder, namer)
        )
        feeds = ({f.get_inputs()[0].name: photo}, {n.get_inputs()[0].name: crops})

        def call(f: Any = f, n: Any = n, feeds: Any = feeds) -> Any:
            f.run(None, feeds[0])
            return n.run(None, feeds[1])

        calls[name] = call
    return calls


def _bound(session: Any, x: np.ndarray) -> Callable[[], Any]:
    import onnxruntime as ort

    binding = session.io_binding()
    binding.bind_ortvalue_input(session.get_inputs()[0].name, ort.OrtValue.ortvalue_from_numpy(x))
    binding.bind_output(session.get_outputs()[0].name)

    def call() -> Any:
        session.run_with_iobinding(binding)
        return binding.copy_outputs_to_cpu()

    return call


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--finder", type=Path, default=ROOT / "models" / "hupai-finder-v1.onnx")
    parser.add_argument("--namer", type=Path, default=ROOT / "models" / "hupai-namer-v6.onnx")
    parser.add_argument("--real", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()

    photo, crops = inputs(args.real)
    print(f"{args.threads} threads, {args.rounds} interleaved rounds, medians")
    for label, path, x, bind in (
        ("finder", args.finder, photo, False),
        ("namer ×32", args.namer, crops, True),
    ):
        result = timed(model_calls(path, x, args.threads, bind), args.rounds)
        show(f"{label}: {path.name}", result)
    show(
        "finder then namer ×32 (a read's two calls)",
        timed(pair_calls(args.finder, args.namer, photo, crops, args.threads), args.rounds),
    )
    return 0


def show(title: str, result: dict[str, float]) -> None:
    peer = result["plain (peer)"]
    print(f"\n{title}")
    for name, ms in result.items():
        print(f"  {name:<20}{ms:>8.2f} ms  × peer {ms / peer:.2f}")


if __name__ == "__main__":
    sys.exit(main())
