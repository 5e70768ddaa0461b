"""Hostile-input benchmark (issue #40): what the campaign's worst requests cost now, against a
real 12-MP photo's read in the same run.

* ``cpu``: the CPU (this process, all threads: ``time.process_time``) of each hostile body as
  the service handles it — the read pipeline for photos (decode, read, draw), the JSON reader
  for JSON — as a multiple of a 12-MP phone photo's read (a real photo scaled to 4000 × 3000).
  The worst *allowed* progressive JPEGs (4:4:4, scans over the whole brightness plane, just
  within :data:`hupai.vision.images.SCAN_BUDGET`) are the bound of the cost limit.
* ``healthz``: ``hupai serve`` in a process of its own (the shipped pair); ``GET /healthz``
  polled every 20 ms while each hostile request is in flight: the slowest answer.
* ``ledger``: a 3,000-hand table changed over and over (an edit of hand 1 re-scores every
  hand: a long change) by one thread; beside it, reads of it and of another table, and writes
  to another table, against the same calls on a quiet database: medians and their ratio.

    nice -n 19 .venv/bin/python bench/hostile.py [cpu] [healthz] [ledger] [--runs 5]

Other load on the machine skews the figures: quote medians from a quiet run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests/vision/fixtures/real/row14a.jpg"
WIN = {"winner": 1, "win": "self_draw", "hand": "123m456m789m123p55s", "win_tile": "5s"}


# -- the bodies ------------------------------------------------------------------------------


def phone_photo() -> bytes:
    """A real photo scaled to a 12-MP phone's 4000 × 3000, as a phone JPEG."""
    import cv2

    image = cv2.imread(str(REAL))
    big = cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return bytes(buf)


def progressive(width: int, height: int, scans: int, *, luma: bool) -> bytes:
    """A flat grey progressive JPEG (4:4:4) with scans added up to ``scans``: its smallest
    scan of the brightness plane alone (``luma``), else its smallest scan, repeated."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (120, 130, 140)).save(
        buf, "JPEG", progressive=True, subsampling=0, quality=90
    )
    data = buf.getvalue()
    found = []
    for sos in re.finditer(rb"\xff\xda", data):
        end = re.compile(rb"\xff[^\x00\xd0-\xd7]").search(data, sos.start() + 2)
        assert end is not None
        header = data[sos.start() + 4 :]
        found.append((data[sos.start() : end.start()], header[0] == 1 and header[1] == 1))
    pool = [s for s, only_y in found if only_y] if luma else [s for s, _ in found]
    extra = min(pool, key=len)
    return data[:-2] + extra * max(0, scans - len(found)) + data[-2:]


def digit_strings(size: int) -> bytes:
    item = '"' + "1" * 101 + '",'
    return ("[" + item * (size // len(item)) + '"x"]').encode()


# -- cpu -------------------------------------------------------------------------------------


def cpu(runs: int) -> None:
    from hupai.service.errors import ApiError
    from hupai.service.pipeline import read_pipeline
    from hupai.service.reader import load_reader
    from hupai.service.settings import Settings
    from hupai.service.text import read_json

    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    reader = load_reader(settings.model_file(), settings.threads, settings.namer_file())

    def photo(data: bytes) -> Callable[[], Any]:
        def run() -> Any:
            try:
                return read_pipeline(
                    reader=reader, data=data, settings=settings, source="bench",
                    city="shaanxi", annotate=True,
                )  # fmt: skip
            except ApiError as exc:
                return exc.code

        return run

    def json_body(data: bytes) -> Callable[[], Any]:
        def run() -> Any:
            try:
                return read_json(data, "request")
            except ApiError as exc:
                return exc.code

        return run

    def scans(w: int, h: int, n: int) -> Callable[[], Any]:
        return photo(progressive(w, h, n, luma=True))

    cases: list[tuple[str, Callable[[], Any]]] = [
        ("12-MP phone photo (the peer)", photo(phone_photo())),
        ("progressive 16 MP, 6,000 scans (row 2)", photo(progressive(4000, 4000, 6000,
                                                                    luma=False))),
        ("progressive 16 MP, 64 scans", scans(4000, 4000, 64)),
        ("progressive 49 MP, 10 scans", scans(7000, 7000, 10)),
        ("progressive 19.5 MP, 10 scans (allowed)", scans(5100, 3825, 10)),
        ("progressive 12 MP, 20 scans (allowed)", scans(4000, 3000, 20)),
        ("progressive 4.9 MP, 58 scans (allowed)", scans(2560, 1920, 58)),
        ("progressive 12 MP, 10 scans (a camera's)", scans(4000, 3000, 10)),
        ("JSON 64 KB of 101-digit strings (row 1)", json_body(digit_strings(64 * 1024))),
        ("JSON 1 MiB of 101-digit strings (a form field)", json_body(digit_strings(2**20))),
        ("JSON nested 5,000 deep", json_body(b"[" * 5000 + b"]" * 5000)),
    ]  # fmt: skip
    peer = 0.0
    print(f"{'request':52} {'CPU s (median)':>15} {'× 12-MP read':>13}  answer")
    for name, run in cases:
        answer = run()  # warm
        times = []
        for _ in range(runs):
            began = time.process_time()
            run()
            times.append(time.process_time() - began)
        median = statistics.median(times)
        peer = peer or median
        shown = answer if isinstance(answer, str) else "parsed" if "JSON" in name else "read"
        print(f"{name:52} {median:15.3f} {median / peer:13.2f}  {shown}")


# -- healthz -------------------------------------------------------------------------------


@contextlib.contextmanager
def served() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        env_db = f"sqlite:///{tmp}/tables.sqlite3"
        proc = subprocess.Popen(
            [sys.executable, "-m", "hupai", "serve", "--port", str(port), "--log-level",
             "warning"], cwd=ROOT, env={**_env(), "HUPAI_DATABASE_URL": env_db},
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            import httpx

            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                        break
                time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            proc.wait(20)


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def healthz(runs: int) -> None:
    import httpx

    photo = phone_photo()
    context = (
        '{"city": "shaanxi", "win": "self_draw", "winner": 0, "x": '
        + digit_strings(900 * 1024).decode()
        + "}"
    )
    # every body is made before the clock starts: this process also polls /healthz
    bomb = progressive(4000, 4000, 6000, luma=False)
    allowed = progressive(5100, 3825, 10, luma=True)
    flood = b"[" + b"1," * (13 * 2**19) + b"1]"
    digits = digit_strings(63 * 1024)
    json_type = {"content-type": "application/json"}
    cases: list[tuple[str, Callable[[httpx.Client, str], Any]]] = [
        ("a 12-MP photo read (the peer)", lambda c, u: c.post(
            u + "/v1/read", files={"photo": ("p.jpg", photo, "image/jpeg")})),
        ("JSON 64 KB of digit strings to /v1/tables", lambda c, u: c.post(
            u + "/v1/tables", content=digits, headers=json_type)),
        ("900 KB context of digit strings to /v1/score", lambda c, u: c.post(
            u + "/v1/score", files={"photo": ("p.jpg", photo, "image/jpeg")},
            data={"context": context})),
        ("13 MiB JSON [1,1,...] to /v1/read", lambda c, u: c.post(
            u + "/v1/read", content=flood, headers=json_type)),
        ("progressive 6,000 scans to /v1/read", lambda c, u: c.post(
            u + "/v1/read", files={"photo": ("p.jpg", bomb, "image/jpeg")})),
        ("progressive 19.5 MP, 10 scans (allowed) to /v1/read", lambda c, u: c.post(
            u + "/v1/read", files={"photo": ("p.jpg", allowed, "image/jpeg")})),
    ]  # fmt: skip
    with served() as url, httpx.Client(timeout=120) as client:
        print(f"{'hostile request in flight':52} {'status':>6} {'its s':>7} "
              f"{'healthz max ms':>15} {'median ms':>10}")  # fmt: skip
        for name, send in cases:
            worst, typical, status, took = [], [], 0, []
            for _ in range(runs):
                done = threading.Event()
                result: dict[str, Any] = {}

                def hostile(
                    send: Any = send, result: dict[str, Any] = result, done: Any = done
                ) -> None:
                    began = time.perf_counter()
                    with httpx.Client(timeout=120) as own:
                        result["status"] = send(own, url).status_code
                    result["seconds"] = time.perf_counter() - began
                    done.set()

                thread = threading.Thread(target=hostile)
                thread.start()
                latencies = []
                while not done.is_set():
                    began = time.perf_counter()
                    client.get(url + "/healthz")
                    latencies.append(time.perf_counter() - began)
                    time.sleep(0.02)
                thread.join()
                worst.append(max(latencies))
                typical.append(statistics.median(latencies))
                status, took = result["status"], [*took, result["seconds"]]
            print(f"{name:52} {status:6d} {statistics.median(took):7.2f} "
                  f"{1000 * statistics.median(worst):15.1f} "
                  f"{1000 * statistics.median(typical):10.1f}")  # fmt: skip


# -- ledger ------------------------------------------------------------------------------------


def ledger(runs: int) -> None:
    from hupai.ledger.store import Ledger

    with tempfile.TemporaryDirectory() as tmp:
        store = Ledger(f"sqlite:///{tmp}/tables.sqlite3")
        big = store.create_table({"city": "shaanxi", "players": ["A", "B", "C", "D"]})
        other = store.create_table({"city": "shaanxi", "players": ["E", "F", "G", "H"]})
        store.add_hand(other["write_token"], WIN)
        began = time.perf_counter()
        for _ in range(3000):
            store.add_hand(big["write_token"], WIN)
        print(f"3,000 hands added in {time.perf_counter() - began:.1f} s")
        edit = {**WIN, "winner": 2}

        def long_change(k: int) -> None:
            revision = store.hand(big["write_token"], 1)["revision"]
            store.edit_hand(big["write_token"], 1, edit if k % 2 else WIN, revision)

        began = time.perf_counter()
        long_change(1)
        change = time.perf_counter() - began
        print(f"one long change (edit hand 1: 3,000 hands re-scored): {change:.2f} s")

        calls: dict[str, Callable[[], Any]] = {
            "GET options (the big table)": lambda: store.options_history(big["read_token"]),
            "GET view, no hands (the big table)": lambda: store.view(big["read_token"], False),
            "GET view (another table)": lambda: store.view(other["read_token"]),
            "GET revision (a 304 poll, the big table)": lambda: store.revision(big["read_token"]),
            "add a hand (another table)": lambda: store.add_hand(other["write_token"], WIN),
        }
        quiet = {name: _median(fn, 15) for name, fn in calls.items()}
        stop = threading.Event()

        def changes() -> None:
            k = 0
            while not stop.is_set():
                k += 1
                long_change(k)

        busy_thread = threading.Thread(target=changes)
        busy_thread.start()
        time.sleep(0.5)
        try:
            busy = {name: _median(fn, max(runs, 5), worst=True) for name, fn in calls.items()}
        finally:
            stop.set()
            busy_thread.join()
        print(f"{'call':44} {'quiet ms':>9} {'beside ms':>10} {'worst ms':>9} {'ratio':>6}")
        for name in calls:
            median, worst = busy[name]
            print(f"{name:44} {1000 * quiet[name][0]:9.1f} {1000 * median:10.1f} "
                  f"{1000 * worst:9.1f} {median / quiet[name][0]:6.1f}")  # fmt: skip
        store.close()


def _median(fn: Callable[[], Any], n: int, worst: bool = False) -> tuple[float, float]:
    times = []
    for _ in range(n):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
        if worst:
            time.sleep(0.05)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("parts", nargs="*", default=["cpu", "healthz", "ledger"])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for part in args.parts:
        print(f"\n== {part}")
        {"cpu": cpu, "healthz": healthz, "ledger": ledger}[part](args.runs)


if __name__ == "__main__":
    main()
