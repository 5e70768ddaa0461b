"""Drive a real Label Studio against hupai's ML backend on loopback, recording every request
Label Studio sends to the backend (and the backend's answer) through a small proxy.

Used by the optional integration test (``make test-labelstudio-ml``) and to (re)write the
unit tests' fixtures from a real Label Studio::

    python tests/hupai/labelstudio_ml_live.py --label-studio /path/to/label-studio \\
        --write-fixtures tests/hupai/fixtures/labelstudio_ml

The session: a project with hupai's labelling config; two photos as local files (one a
12-MP photo), one uploaded; the backend connected in the project's Model settings; each task
opened (Label Studio asks the backend for its prediction then); an annotation submitted and
updated (webhooks); *Start Training* pressed (the START_TRAINING webhook, which starts a
small retraining when the train extra is installed).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "datasets"))

from labelstudio_live import call, free_port, label_studio  # noqa: E402

from hupai.datasets.labelstudio import labelstudio_config  # noqa: E402

REPO = HERE.parents[1]
REAL = REPO / "tests" / "vision" / "fixtures" / "real"
#: Label Studio 1.23 refuses ML backends (ML_BLOCK_LOCAL_IP) and webhooks (SSRF protection)
#: on loopback and private addresses unless told: the backend runs beside it here.
LOOPBACK = {"ML_BLOCK_LOCAL_IP": "false", "SSRF_PROTECTION_ENABLED": "false"}
#: Request fields that carry secrets: kept out of the fixtures.
SECRETS = ("access_token",)


class Recorder:
    """A proxy in front of the backend that keeps each exchange (JSON bodies)."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.exchanges: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = urllib.request.Request(
                    recorder.backend + self.path,
                    data=body if self.command == "POST" else None,
                    method=self.command,
                    headers={
                        "Content-Type": self.headers.get("Content-Type", ""),
                        # Label Studio's Basic Authentication, as its model connection sends it
                        "Authorization": self.headers.get("Authorization", ""),
                    },
                )
                began = time.perf_counter()
                try:
                    with urllib.request.urlopen(request, timeout=120) as r:
                        status, answer = r.status, r.read()
                except urllib.error.HTTPError as exc:
                    status, answer = exc.code, exc.read()
                with recorder.lock:
                    recorder.exchanges.append(
                        {
                            "method": self.command,
                            "path": self.path,
                            "user_agent": self.headers.get("User-Agent", ""),
                            "request": _json(body),
                            "status": status,
                            "response": _json(answer),
                            "seconds": round(time.perf_counter() - began, 3),
                        }
                    )
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            do_GET = do_POST = _forward

        return Handler

    def of(self, path: str) -> list[dict[str, Any]]:
        with self.lock:
            return [e for e in self.exchanges if e["path"].split("?")[0] == path]


def _json(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return data.decode("utf-8", "replace")


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


#: The Basic Authentication the backend asks for and the model connection is given.
BACKEND_AUTH = ("label-studio", "live-test-pass")


@contextmanager
def backend(
    root: Path, retrain_out: Path, retrain_args: str, studio: str, token: str
) -> Iterator[str]:
    """``hupai label-studio serve`` in a process of its own; yields its URL."""
    port = free_port()
    log = open(retrain_out.parent / "backend.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hupai",
            "label-studio",
            "serve",
            "--port",
            str(port),
            "--local-files-root",
            str(root),
            "--retrain-out",
            str(retrain_out),
            "--label-studio-url",
            studio,
            "--api-key",
            token,
            "--basic-auth",
            ":".join(BACKEND_AUTH),
            "--retrain-args",
            retrain_args,
            "--log-level",
            "info",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=REPO,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(authorized(url + "/health"), timeout=2):
                    break
            except (urllib.error.URLError, OSError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.close()
                    text = (retrain_out.parent / "backend.log").read_text()[-3000:]
                    raise RuntimeError("the backend did not start:\n" + text) from None
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def authorized(url: str) -> urllib.request.Request:
    """A GET with the backend's Basic Authentication."""
    import base64

    pair = base64.b64encode(":".join(BACKEND_AUTH).encode()).decode()
    return urllib.request.Request(url, headers={"Authorization": f"Basic {pair}"})


def twelve_megapixels(source: Path, target: Path) -> Path:
    """A real photo scaled up to 4000 × 3000 (a phone's 12 MP), as a phone JPEG."""
    import cv2

    image = cv2.imread(str(source))
    big = cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(target), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return target


def upload(base: str, token: str, pid: int, photo: Path) -> None:
    """A photo uploaded to the project (a task with a /data/upload/ URL)."""
    boundary = "hupai" + str(time.time_ns())
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{photo.name}"'
            "\r\nContent-Type: image/jpeg\r\n\r\n"
        ).encode()
        + photo.read_bytes()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{base}/api/projects/{pid}/import",
        data=body,
        method="POST",
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    with urllib.request.urlopen(request, timeout=120) as r:
        r.read()


def run(executable: str, work: Path, *, retrain_args: str = "") -> dict[str, Any]:
    """The session (see the module's doc); returns what the test checks and the exchanges."""
    root = work / "root"
    (root / "images").mkdir(parents=True)
    shutil.copy(REAL / "row14a.jpg", root / "images" / "row14a.jpg")
    twelve_megapixels(REAL / "row14b.jpg", root / "images" / "phone-12mp.jpg")
    retrain_out = work / "retrained"
    seen: dict[str, Any] = {"opened": {}}
    with (
        label_studio(executable, root, LOOPBACK) as (base, token),
        backend(root, retrain_out, retrain_args, base, token) as backend_url,
    ):
        recorder = Recorder(backend_url)
        with serving(recorder.handler()) as proxy:
            project = call(
                base,
                token,
                "POST",
                "/api/projects",
                {"title": "hupai ml", "label_config": labelstudio_config()},
            )
            pid = project["id"]
            tasks = [
                {"data": {"image": f"/data/local-files/?d=images/{name}"}}
                for name in ("row14a.jpg", "phone-12mp.jpg")
            ]
            call(base, token, "POST", f"/api/projects/{pid}/import", tasks)
            upload(base, token, pid, REAL / "row14a.jpg")
            ml = call(
                base,
                token,
                "POST",
                "/api/ml",
                {
                    "url": proxy,
                    "project": pid,
                    "title": "hupai",
                    "is_interactive": False,
                    "auth_method": "BASIC_AUTH",
                    "basic_auth_user": BACKEND_AUTH[0],
                    "basic_auth_pass": BACKEND_AUTH[1],
                },
            )
            seen["ml"] = call(base, token, "GET", f"/api/ml/{ml['id']}")
            call(
                base,
                token,
                "PATCH",
                f"/api/projects/{pid}",
                # Label Studio 1.23 names a live model by its title (not its version)
                {"show_collab_predictions": True, "model_version": "hupai"},
            )
            listed = call(base, token, "GET", f"/api/tasks?project={pid}&page_size=100")
            ids = sorted(t["id"] for t in (listed["tasks"] if isinstance(listed, dict) else listed))
            for task_id in ids:  # opening a task: Label Studio asks for its prediction
                began = time.perf_counter()
                opened = call(base, token, "GET", f"/api/tasks/{task_id}")
                opened["opened_in_seconds"] = round(time.perf_counter() - began, 3)
                seen["opened"][task_id] = opened
            for task_id in ids:  # a person accepts the boxes, dropping the last
                opened = seen["opened"][task_id]
                result = opened["predictions"][0]["result"] if opened["predictions"] else []
                call(
                    base,
                    token,
                    "POST",
                    f"/api/tasks/{task_id}/annotations",
                    {"result": result[:-1]},
                )
            annotation = call(base, token, "GET", f"/api/tasks/{ids[0]}/annotations")[0]
            call(
                base,
                token,
                "PATCH",
                f"/api/annotations/{annotation['id']}",
                {"result": annotation["result"][:-1]},
            )  # and corrects the first again
            seen["train"] = call(base, token, "POST", f"/api/ml/{ml['id']}/train", {})
            deadline = time.monotonic() + 900
            while time.monotonic() < deadline:  # the retraining job, until it ends
                with urllib.request.urlopen(authorized(backend_url + "/status"), timeout=10) as r:
                    seen["status"] = json.loads(r.read())
                if seen["status"]["training"]["state"] in ("done", "failed", "idle"):
                    break
                time.sleep(3)
            time.sleep(1)  # webhooks may still be on their way
            seen["exchanges"] = list(recorder.exchanges)
    return seen


def write_fixtures(seen: dict[str, Any], target: Path) -> None:
    """One file per kind of request Label Studio sent (its first), secrets replaced."""
    target.mkdir(parents=True, exist_ok=True)
    kinds: dict[str, dict[str, Any]] = {}
    for e in seen["exchanges"]:
        path = e["path"].split("?")[0].strip("/") or "root"
        key = path
        if path == "webhook" and isinstance(e["request"], dict):
            key = f"webhook-{str(e['request'].get('action', '')).lower()}"
        if path == "predict" and isinstance(e["request"], dict):
            urls = [t["data"].get("image", "") for t in e["request"].get("tasks", [])]
            key = "predict-upload" if any("/upload/" in u for u in urls) else "predict"
        kinds.setdefault(key, e)
    for key, e in kinds.items():
        request = e["request"]
        if isinstance(request, dict):
            request = {k: ("REDACTED" if k in SECRETS else v) for k, v in request.items()}
        (target / f"{key}.json").write_text(
            json.dumps({**e, "request": request}, indent=1, ensure_ascii=False) + "\n"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label-studio", required=True, help="the label-studio executable")
    parser.add_argument("--write-fixtures", type=Path, required=True)
    parser.add_argument(
        "--retrain-args", default="--epochs 1 --epoch-crops 64 --no-int8 --real-test-limit 4"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hupai-lsml-") as tmp:
        seen = run(args.label_studio, Path(tmp), retrain_args=args.retrain_args)
    write_fixtures(seen, args.write_fixtures)
    for task_id, task in seen["opened"].items():
        print(f"task {task_id} ({task['data']['image']}): opened in {task['opened_in_seconds']} s")
    for e in seen["exchanges"]:
        print(f"{e['method']} {e['path']} {e['status']} {e['seconds']} s")
    print(json.dumps(seen.get("status"), indent=1, default=str)[:3000])
    print(f"wrote {args.write_fixtures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
