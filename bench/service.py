"""Service benchmark: photos per second and latency (p50/p90) of ``POST /v1/score`` with real
photos from 1 and 4 clients (``--clients``), against ``hupai serve`` started on loopback with
the shipped pair (or ``--model``/``--namer``); the peer is the same work without HTTP —
decode, read, annotate and score in a loop in this process — so the ratio is what the
service adds (upload, multipart, threads, JSON).

``--soak SECONDS``: then photos from 4 clients for that long, the server's resident memory
(RSS, its process and children) sampled every second: start, end and largest, so one can see
it stays flat.

    .venv/bin/python bench/service.py [--photos DIR] [-n 48] [--model M] [--namer N]
        [--threads T] [--read-concurrency K] [--clients 1 4] [--soak 300]
        [--image base64|url|none]

Photos default to the real test split in ../shared (Roboflow "Chinese Mahjong Detection"
v4). Other load on the machine (a training job) skews the figures: run it twice.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED_TEST = ROOT.parent / "shared/data/chinese-mahjong-detection-v4/test/images"
CONTEXT = {"city": "shaanxi", "win": "self_draw", "winner": 0}


def start_server(
    port: int, model: str | None, namer: str | None, threads: int | None, concurrency: int
) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "hupai", "serve", "--port", str(port), "--log-level", "warning"]
    cmd += ["--read-concurrency", str(concurrency)]
    if model:
        cmd += ["--model", model]
    if namer:
        cmd += ["--namer", namer]
    if threads:
        cmd += ["--threads", str(threads)]
    proc = subprocess.Popen(cmd, cwd=ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    sys.exit("bench/service.py: hupai serve did not start")


def post(client: httpx.Client, url: str, photo: bytes, image: str) -> float:
    began = time.perf_counter()
    r = client.post(
        url,
        files={"photo": ("hand.jpg", photo, "image/jpeg")},
        data={"context": json.dumps(CONTEXT)},
        params={"image": image},
    )
    if r.status_code != 200:
        raise SystemExit(f"bench/service.py: {r.status_code} {r.text[:200]}")
    return time.perf_counter() - began


def run(url: str, photos: list[bytes], concurrency: int, image: str) -> tuple[float, list[float]]:
    limits = httpx.Limits(max_connections=concurrency)
    with httpx.Client(timeout=120, limits=limits) as client:
        post(client, url, photos[0], image)  # warm up
        began = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            latencies = list(pool.map(lambda p: post(client, url, p, image), photos))
        return len(photos) / (time.perf_counter() - began), latencies


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children, MB."""
    import psutil

    proc = psutil.Process(pid)
    procs = [proc, *proc.children(recursive=True)]
    return float(sum(p.memory_info().rss for p in procs)) / 2**20


def soak(
    url: str, photos: list[bytes], seconds: float, pid: int, image: str, clients: int = 4
) -> None:
    """Photos from ``clients`` clients for ``seconds``; the server's RSS sampled each second."""
    samples = [(0.0, rss_mb(pid))]
    done: list[float] = []
    began = time.monotonic()

    def client(k: int) -> None:
        with httpx.Client(timeout=120) as c:
            i = k
            while time.monotonic() - began < seconds:
                done.append(post(c, url, photos[i % len(photos)], image))
                i += clients

    with ThreadPoolExecutor(clients) as pool:
        running = [pool.submit(client, k) for k in range(clients)]
        while not all(f.done() for f in running):
            time.sleep(1.0)
            samples.append((time.monotonic() - began, rss_mb(pid)))
        for f in running:
            f.result()  # a failed request ends the soak with its message
    elapsed = time.monotonic() - began
    values = [mb for _, mb in samples]
    tail = values[len(values) // 2 :]
    print(
        f"\nsoak: {clients} clients, {elapsed:.0f} s, {len(done)} photos "
        f"({len(done) / elapsed:.2f} photos/s, p50 {pct(done, 50):.0f} ms, "
        f"p90 {pct(done, 90):.0f} ms)"
    )
    print(
        f"server RSS MB: start {values[0]:.0f}, end {values[-1]:.0f}, max {max(values):.0f}; "
        f"second half min {min(tail):.0f} max {max(tail):.0f}"
    )
    step = max(1, len(samples) // 10)
    print("  " + "  ".join(f"{t:.0f}s:{mb:.0f}" for t, mb in samples[::step]))


def in_process(
    photos: list[bytes], model: str | None, namer: str | None, threads: int | None
) -> tuple[float, list[float]]:
    """The peer: the same pipeline as the route, called directly."""
    from hupai.scoring import ScoringInputError, result_to_dict, score
    from hupai.service.pipeline import read_pipeline
    from hupai.service.reader import load_reader
    from hupai.service.settings import Settings

    given = {k: v for k, v in (("model", model), ("namer", namer)) if v}
    settings = Settings(_env_file=None, **given)  # type: ignore[arg-type]
    reader = load_reader(settings.model_file(), threads, settings.namer_file())
    latencies = []

    def once(data: bytes) -> float:
        t = time.perf_counter()
        read = read_pipeline(
            reader=reader,
            data=data,
            settings=settings,
            win_tile=None,
            source="p",
            city="shaanxi",
            winner=0,
            annotate=True,
        )
        with contextlib.suppress(ScoringInputError):  # the route reports it beside the reading
            result_to_dict(score({**CONTEXT, **read.request_fields}))
        return time.perf_counter() - t

    once(photos[0])
    began = time.perf_counter()
    latencies = [once(p) for p in photos]
    return len(photos) / (time.perf_counter() - began), latencies


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, default=SHARED_TEST)
    parser.add_argument("-n", type=int, default=48, help="requests per concurrency level")
    parser.add_argument("--model", default=None, help="finder ONNX (default: the shipped one)")
    parser.add_argument("--namer", default=None, help="namer ONNX (default: the shipped one)")
    parser.add_argument(
        "--clients", type=int, nargs="+", default=[1, 4], help="concurrent clients per row"
    )
    parser.add_argument("--soak", type=float, default=0, help="then soak for SECONDS")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads per read")
    parser.add_argument("--read-concurrency", type=int, default=1)
    parser.add_argument("--image", default="base64", choices=["base64", "url", "none"])
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()

    files = sorted(
        p for p in args.photos.iterdir() if p.suffix.lower() in {".jpg", ".jpeg", ".png"}
    )
    if not files:
        sys.exit(f"bench/service.py: no photos in {args.photos}")
    photos = [files[k % len(files)].read_bytes() for k in range(args.n)]

    peer_rate, peer_lat = in_process(photos, args.model, args.namer, args.threads)
    print(f"photos: {args.n} from {args.photos} ({len(files)} distinct), image={args.image}")
    print(f"{'run':<24}{'photos/s':>9}{'p50 ms':>9}{'p90 ms':>9}{'× peer p50':>12}")
    row = "{:<24}{:>9.2f}{:>9.1f}{:>9.1f}{:>12.2f}"
    print(row.format("in-process (peer)", peer_rate, pct(peer_lat, 50), pct(peer_lat, 90), 1))
    proc = start_server(args.port, args.model, args.namer, args.threads, args.read_concurrency)
    try:
        url = f"http://127.0.0.1:{args.port}/v1/score"
        for c in args.clients:
            rate, lat = run(url, photos, c, args.image)
            ratio = pct(lat, 50) / pct(peer_lat, 50)
            print(row.format(f"HTTP, {c} client(s)", rate, pct(lat, 50), pct(lat, 90), ratio))
        if args.soak:
            soak(url, photos, args.soak, proc.pid, args.image)
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
