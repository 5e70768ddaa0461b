"""Pre-label latency of the Label Studio ML backend: a 12-MP phone photo, from the ``/predict``
request Label Studio sends when a task is opened to the backend's answer (fetch from the local
files root, decode, read, answer), over real HTTP on loopback with the shipped models.

    python bench/label_studio.py [--photos 10] [--threads 2] [--models DIR]

The photos: real val photos made into 4000×3000 JPEGs (quality 90, cubic upscaling), as a
phone stores them. Prints each request's seconds, the median and the slowest; the target is
the issue's: pre-labels within 1 s of opening the task. (Label Studio's own part — its
health and setup calls before each prediction round, saving the prediction — comes on top:
``make test-labelstudio-ml`` records the whole opening of a task.)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def phone_photos(folder: Path, n: int) -> list[str]:
    import cv2

    val = sorted((ROOT / "data" / "real" / "images" / "val").glob("*.jpg"))
    if not val:
        val = sorted((ROOT / "tests" / "vision" / "fixtures" / "real").glob("*.jpg"))
    names = []
    (folder / "images").mkdir(parents=True)
    for k, source in enumerate(val[:: max(1, len(val) // n)][:n]):
        image = cv2.imread(str(source))
        assert image is not None, source
        big = cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
        name = f"phone-{k:02d}.jpg"
        cv2.imwrite(str(folder / "images" / name), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
        names.append(name)
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", type=Path, help="model folder (default: the shipped one)")
    args = parser.parse_args(argv)

    import uvicorn

    from hupai.commands.label_studio import model_version
    from hupai.datasets.labelstudio import labelstudio_config
    from hupai.labeling.backend import BackendOptions
    from hupai.labeling.backend_app import create_app
    from hupai.vision.detector import SHIPPED_MODELS, models_in

    finder, namer = models_in(args.models or SHIPPED_MODELS)
    with tempfile.TemporaryDirectory(prefix="hupai-lsbench-") as tmp:
        root = Path(tmp)
        names = phone_photos(root, args.photos)
        opts = BackendOptions(
            finder, namer, model_version(finder, namer), local_files_root=root, threads=args.threads
        )
        config = uvicorn.Config(create_app(opts), host="127.0.0.1", port=0, log_level="warning")
        server = uvicorn.Server(config)
        threading.Thread(target=server.run, daemon=True).start()
        while not server.started:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        setup = {
            "project": "1.0",
            "schema": labelstudio_config(),
            "hostname": "",
            "access_token": "",
        }
        _post(url + "/setup", setup)
        _post(url + "/predict", _request(names[0]))  # the first read warms the sessions
        seconds = []
        for name in names:
            began = time.perf_counter()
            answer = _post(url + "/predict", _request(name))
            seconds.append(time.perf_counter() - began)
            boxes = len(answer["results"][0]["result"])
            print(f"{name}: {seconds[-1]:.3f} s, {boxes} boxes")
        server.should_exit = True
    print(
        f"{len(seconds)} 12-MP photos, {args.threads} threads: median "
        f"{statistics.median(seconds):.3f} s, slowest {max(seconds):.3f} s"
    )
    return 0


def _request(name: str) -> dict[str, object]:
    from hupai.datasets.labelstudio import labelstudio_config

    task = {"id": 1, "data": {"image": f"/data/local-files/?d=images/{name}"}}
    return {"tasks": [task], "project": "1.0", "label_config": labelstudio_config()}


def _post(url: str, body: object) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as r:
        return json.loads(r.read())


if __name__ == "__main__":
    raise SystemExit(main())
