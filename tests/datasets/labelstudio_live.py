"""Drive a real Label Studio on loopback through its HTTP API: import the tasks ``hupai label``
wrote (photos served as local files from the output folder), correct them as a person would,
and export the project in JSON, JSON-MIN, YOLO and COCO.

Used by the optional integration test (``make test-labelstudio``) and to (re)write the test
fixtures from a real export::

    python tests/datasets/labelstudio_live.py --label-studio /path/to/label-studio \\
        --out-dir OUT --write-fixtures tests/datasets/fixtures/labelstudio

``OUT`` is a ``hupai label`` output folder (it must hold ``labelstudio.json`` and
``labelstudio-config.xml``). The corrections: in the first task, the first box is renamed
to ``5z``, the second removed, and a box added; the second task is accepted as predicted;
every later task is left unannotated; the first task is annotated twice (the later one wins).
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))  # the free-port helper
from uvicorn_thread import free_port

EXPORTS = {"JSON": "export.json", "JSON_MIN": "export-min.json", "YOLO": "yolo", "COCO": "coco"}
USER, PASSWORD = "hupai@example.com", "hupai-test-password"


@contextmanager
def label_studio(
    executable: str, document_root: Path, env: dict[str, str] | None = None
) -> Iterator[tuple[str, str]]:
    """A Label Studio server (its own data folder, local files served from
    ``document_root``, ``env`` added to its environment); yields (base URL, API token)."""
    port = free_port()
    data = Path(tempfile.mkdtemp(prefix="hupai-ls-"))
    token = "hupai" + os.urandom(8).hex()
    env = {
        **os.environ,
        "LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED": "true",
        "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(document_root.resolve()),
        "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "false",
        "LABEL_STUDIO_USER_TOKEN": token,
        "LABEL_STUDIO_USERNAME": USER,
        "LABEL_STUDIO_PASSWORD": PASSWORD,
        "COLLECT_ANALYTICS": "false",
        "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
        **(env or {}),
    }
    log = open(data / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [
            executable,
            "start",
            "--no-browser",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data-dir",
            str(data),
            "--username",
            USER,
            "--password",
            PASSWORD,
            "--user-token",
            token,
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                with urllib.request.urlopen(base + "/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.close()
                raise RuntimeError(
                    "Label Studio did not start:\n" + (data / "server.log").read_text()[-3000:]
                )
            time.sleep(1)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(data, ignore_errors=True)


def call(base: str, token: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        base + path,
        data=data,
        method=method,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=120) as r:
        raw = r.read()
    if r.headers.get("Content-Type", "").startswith("application/json"):
        return json.loads(raw)
    return raw


def corrected(result: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A person's correction of the predicted regions: rename the first to 5z, drop the
    second, add one box in the photo's top-left corner."""
    out = copy.deepcopy(result)
    out[0]["value"]["rectanglelabels"] = ["5z"]
    del out[1]
    added = copy.deepcopy(out[0])
    added["id"] = "added1"
    added["value"].update(x=1.0, y=1.0, width=5.0, height=7.0, rectanglelabels=["9p"])
    out.append(added)
    for r in out:
        r.pop("score", None)
    return out


def run(executable: str, out_dir: Path) -> dict[str, Any]:
    """Import, correct, export; returns {format: bytes or parsed JSON}."""
    tasks = json.loads((out_dir / "labelstudio.json").read_text())
    config = (out_dir / "labelstudio-config.xml").read_text()
    exports: dict[str, Any] = {}
    with label_studio(executable, out_dir) as (base, token):
        project = call(
            base, token, "POST", "/api/projects", {"title": "hupai", "label_config": config}
        )
        pid = project["id"]
        call(base, token, "POST", f"/api/projects/{pid}/import", tasks)
        listed = call(base, token, "GET", f"/api/tasks?project={pid}&page_size=100&fields=all")
        listed = listed["tasks"] if isinstance(listed, dict) else listed
        listed.sort(key=lambda t: t["id"])
        first, second = listed[0], listed[1]
        predicted = first["predictions"][0]["result"]
        wrong = corrected(predicted)
        wrong[0]["value"]["rectanglelabels"] = ["6z"]  # a first try, corrected again below
        call(base, token, "POST", f"/api/tasks/{first['id']}/annotations", {"result": wrong})
        time.sleep(1.1)  # the later annotation must be later by the clock
        call(
            base,
            token,
            "POST",
            f"/api/tasks/{first['id']}/annotations",
            {"result": corrected(predicted)},
        )
        accepted = copy.deepcopy(second["predictions"][0]["result"])
        for r in accepted:
            r.pop("score", None)
        call(base, token, "POST", f"/api/tasks/{second['id']}/annotations", {"result": accepted})
        for fmt in EXPORTS:
            exports[fmt] = call(
                base,
                token,
                "GET",
                f"/api/projects/{pid}/export?exportType={fmt}&download_all_tasks=true",
            )
    return exports


def write_fixtures(exports: dict[str, Any], target: Path) -> None:
    """The exports as files: JSON as is; YOLO and COCO unpacked without their images (the
    tests find the photos with --images)."""
    target.mkdir(parents=True, exist_ok=True)
    for fmt, name in EXPORTS.items():
        data = exports[fmt]
        if isinstance(data, bytes) and data[:2] == b"PK":
            folder = target / name
            shutil.rmtree(folder, ignore_errors=True)
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for member in z.namelist():
                    if member.startswith("images/") or member.endswith("/"):
                        continue
                    (folder / member).parent.mkdir(parents=True, exist_ok=True)
                    (folder / member).write_bytes(z.read(member))
        else:
            text = data if isinstance(data, bytes | str) else json.dumps(data, indent=1)
            if isinstance(text, bytes):
                text = text.decode()
            (target / name).write_text(text if text.endswith("\n") else text + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label-studio", required=True, help="the label-studio executable")
    parser.add_argument("--out-dir", type=Path, required=True, help="a hupai label output")
    parser.add_argument("--write-fixtures", type=Path, required=True)
    args = parser.parse_args()
    write_fixtures(run(args.label_studio, args.out_dir), args.write_fixtures)
    print(f"wrote {args.write_fixtures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
