"""The Label Studio ML backend over real HTTP (uvicorn on loopback) with the shipped models and
real photos, answering the requests a real Label Studio 1.23.2 sent (recorded by
tests/hupai/labelstudio_ml_live.py into fixtures/labelstudio_ml/)."""

from __future__ import annotations

import json
import shutil
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import cv2
import pytest

from hupai.labeling.backend import BackendOptions, Config, TaskError
from hupai.labeling.backend_app import Reader, create_app
from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detector import SHIPPED_MODELS, models_in

HERE = Path(__file__).resolve().parent

RECORDED = HERE / "fixtures" / "labelstudio_ml"
REAL = HERE.parent / "vision" / "fixtures" / "real"
sys.path.insert(0, str(HERE.parent / "service"))  # the uvicorn thread helper
from uvicorn_thread import free_port, live_server  # noqa: E402


def recorded(name: str) -> dict[str, Any]:
    """A request Label Studio sent (and what the backend answered then)."""
    data: dict[str, Any] = json.loads((RECORDED / f"{name}.json").read_text())
    return data


def post(
    url: str, body: Any, *, raw: bytes | None = None, auth: tuple[str, str] | None = None
) -> tuple[int, Any]:
    data = raw if raw is not None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **basic(auth)}
    request = urllib.request.Request(url, data=data, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def get(url: str, timeout: float = 30, auth: tuple[str, str] | None = None) -> Any:
    request = urllib.request.Request(url, headers=basic(auth))
    with urllib.request.urlopen(request, timeout=timeout) as r:
        return json.loads(r.read())


def basic(auth: tuple[str, str] | None) -> dict[str, str]:
    """The header Label Studio's model connection sends with Basic Authentication."""
    if auth is None:
        return {}
    import base64

    return {"Authorization": "Basic " + base64.b64encode(":".join(auth).encode()).decode()}


#: The Basic Authentication a test backend is started with.
AUTH = ("label-studio", "s3cret-pass")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Label Studio's local files root: the recorded tasks' photos (and a broken one)."""
    folder = tmp_path_factory.mktemp("root")
    (folder / "images").mkdir()
    shutil.copy(REAL / "row14a.jpg", folder / "images" / "row14a.jpg")
    shutil.copy(REAL / "row14b.jpg", folder / "images" / "phone-12mp.jpg")  # a small stand-in
    (folder / "images" / "broken.jpg").write_bytes(b"\xff\xd8 not a photo")
    image = cv2.imread(str(REAL / "row14a.jpg"))
    big = cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC)  # a phone's 12 MP
    cv2.imwrite(str(folder / "images" / "row14a-12mp.jpg"), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return folder


@pytest.fixture(scope="module")
def reader() -> Reader:
    finder, namer = models_in(SHIPPED_MODELS)
    return Reader(options(finder=finder, namer=namer))


def options(**kw: Any) -> BackendOptions:
    finder, namer = models_in(SHIPPED_MODELS)
    return BackendOptions(**{"finder": finder, "namer": namer, "model_version": "hupai test",
                             "threads": 1, **kw})  # fmt: skip


@pytest.fixture(scope="module")
def backend(root: Path, reader: Reader) -> Iterator[str]:
    with live_server(create_app(options(local_files_root=root), reader)) as url:
        assert post(url + "/setup", recorded("setup")["request"])[0] == 200
        yield url


def test_health_answers_up_with_the_model_version(backend: str) -> None:
    assert recorded("health")["method"] == "GET"
    assert get(backend + "/health") == {
        "status": "UP",
        "model_class": "hupai",
        "model_version": "hupai test",
    }


def test_setup_as_label_studio_sends_it_answers_the_model_version(backend: str) -> None:
    status, answer = post(backend + "/setup", recorded("setup")["request"])
    assert (status, answer) == (200, {"model_version": "hupai test"})


def test_setup_without_rectangles_is_refused_with_a_message(backend: str) -> None:
    body = {**recorded("setup")["request"], "schema": "<View><Text name='t' value='$t'/></View>"}
    status, answer = post(backend + "/setup", body)
    assert status == 422 and "no RectangleLabels over an Image" in answer["error"]


def test_predict_as_label_studio_sends_it(backend: str) -> None:
    request = recorded("predict")["request"]
    status, answer = post(backend + "/predict", request)
    assert status == 200 and len(answer["results"]) == len(request["tasks"])
    prediction = answer["results"][0]
    assert prediction["model_version"] == "hupai test" and prediction["result"]
    region = prediction["result"][0]
    assert (region["from_name"], region["to_name"], region["type"]) == (
        "label",
        "image",
        "rectanglelabels",
    )
    assert region["value"]["rectanglelabels"][0] in CLASS_NAMES
    assert 0 < region["score"] <= 1


def test_each_box_carries_its_three_likeliest_names(backend: str) -> None:
    _, answer = post(backend + "/predict", recorded("predict")["request"])
    (text,) = answer["results"][0]["result"][0]["meta"]["text"]
    assert text.count(" · ") == 2


def test_the_prediction_score_is_the_photos_review_score(backend: str) -> None:
    """hupai.vision.trust.review_score: from the weakest box, confident photos from 0.5 up."""
    _, answer = post(backend + "/predict", recorded("predict")["request"])
    prediction = answer["results"][0]
    weakest = min(r["score"] for r in prediction["result"])
    candidates = [0.5 + 0.5 * weakest, 0.5 * weakest, 0.25 * weakest]
    assert min(abs(prediction["score"] - c) for c in candidates) < 1e-3


def test_a_12_megapixel_photo_is_boxed_in_percent_of_the_whole_photo(backend: str) -> None:
    small, big = _predict(
        backend,
        "/data/local-files/?d=images/row14a.jpg",
        "/data/local-files/?d=images/row14a-12mp.jpg",
    )
    region = big["result"][0]
    assert (region["original_width"], region["original_height"]) == (4000, 3000)
    xs = sorted(r["value"]["x"] for r in small["result"])
    assert sorted(r["value"]["x"] for r in big["result"]) == pytest.approx(xs, abs=1.0)


def _task(image: str, task_id: int = 99) -> dict[str, Any]:
    return {"id": task_id, "data": {"image": image}, "annotations": [], "predictions": []}


def _predict(backend: str, *images: str) -> list[dict[str, Any]]:
    request = {**recorded("predict")["request"], "tasks": [_task(i) for i in images]}
    status, answer = post(backend + "/predict", request)
    assert status == 200
    results: list[dict[str, Any]] = answer["results"]
    return results


def test_a_missing_photo_is_that_tasks_error_and_the_others_are_predicted(backend: str) -> None:
    missing, good = _predict(
        backend, "/data/local-files/?d=images/gone.jpg", "/data/local-files/?d=images/row14a.jpg"
    )
    assert missing["result"] == [] and "gone.jpg" in missing["error"]
    assert good["result"] and "error" not in good


def test_a_broken_photo_is_named(backend: str) -> None:
    (broken,) = _predict(backend, "/data/local-files/?d=images/broken.jpg")
    assert broken["result"] == [] and "broken.jpg" in broken["error"]


def test_a_path_out_of_the_local_files_root_is_refused(backend: str) -> None:
    (escaped,) = _predict(backend, "/data/local-files/?d=../../../etc/passwd")
    assert "outside the local files root" in escaped["error"]


def test_a_task_without_the_image_field_is_named(backend: str) -> None:
    request = {**recorded("predict")["request"], "tasks": [{"id": 5, "data": {"photo": "x"}}]}
    _, answer = post(backend + "/predict", request)
    assert answer["results"][0]["error"] == "task 5: no 'image' in its data"


def test_a_body_that_is_not_json_is_refused_with_a_message(backend: str) -> None:
    status, answer = post(backend + "/predict", None, raw=b"{not json")
    assert status == 422 and answer["error"].startswith("the body is not valid JSON:")


def test_predict_without_tasks_is_refused_with_a_message(backend: str) -> None:
    status, answer = post(backend + "/predict", {"project": "1.1"})
    assert (status, answer) == (422, {"error": "no 'tasks' list"})


def test_annotation_webhooks_are_counted_at_the_status_url(backend: str) -> None:
    body = recorded("webhook-annotation_created")["request"]
    assert post(backend + "/webhook", body) == (
        200,
        {"status": "ok", "action": "ANNOTATION_CREATED"},
    )
    events = get(backend + "/status")["training"]["events"]
    assert any(e.get("ANNOTATION_CREATED") for e in events.values())


# -- photos from Label Studio itself -----------------------------------------------------------


@contextmanager
def fake_label_studio(token: str, files: dict[str, bytes | str]) -> Iterator[str]:
    """A real HTTP server answering Label Studio's paths: ``files`` by path, only with
    ``Authorization: Token <token>``."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.headers.get("Authorization") != f"Token {token}":
                self.send_response(401)
                self.end_headers()
                return
            data = files.get(self.path)
            if isinstance(data, str):  # a storage URI resolved: to a presigned URL
                self.send_response(303)
                self.send_header("Location", data)
                self.end_headers()
                return
            self.send_response(200 if data is not None else 404)
            self.send_header("Content-Length", str(len(data or b"")))
            self.end_headers()
            self.wfile.write(data or b"")

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def test_an_uploaded_photo_is_fetched_from_label_studio_with_the_key(reader: Reader) -> None:
    upload = "/data/upload/1/8f3a2b1c-row14a.jpg"
    with fake_label_studio("k1", {upload: (REAL / "row14a.jpg").read_bytes()}) as studio:
        opts = options(label_studio_url=studio, api_key="k1")
        with live_server(create_app(opts, reader)) as url:
            post(url + "/setup", recorded("setup")["request"])
            (prediction,) = _predict(url, upload)
    assert prediction["result"] and "error" not in prediction


def test_a_refused_key_is_named_with_what_to_give(reader: Reader) -> None:
    with fake_label_studio("k1", {}) as studio:
        opts = options(label_studio_url=studio, api_key="wrong")
        with live_server(create_app(opts, reader)) as url:
            post(url + "/setup", recorded("setup")["request"])
            (prediction,) = _predict(url, "/data/upload/1/x.jpg")
    assert prediction["error"] == "/data/upload/1/x.jpg: HTTP 401 Unauthorized (give --api-key)"


@contextmanager
def fake_bucket(photo: bytes) -> Iterator[str]:
    """A cloud bucket's presigned URL: refuses a request carrying an Authorization header."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            refused = "Authorization" in self.headers
            self.send_response(400 if refused else 200)
            self.send_header("Content-Length", str(0 if refused else len(photo)))
            self.end_headers()
            if not refused:
                self.wfile.write(photo)

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/photo.jpg?X-Amz-Signature=x"
    finally:
        server.shutdown()


def test_a_storage_uri_is_resolved_by_label_studio_and_fetched_without_the_key(
    reader: Reader,
) -> None:
    import base64

    uri = "s3://bucket/hands/row14a.jpg"
    resolve = "/tasks/99/resolve/?fileuri=" + base64.urlsafe_b64encode(uri.encode()).decode()
    with (
        fake_bucket((REAL / "row14a.jpg").read_bytes()) as presigned,
        fake_label_studio("k1", {resolve: presigned}) as studio,
        live_server(create_app(options(label_studio_url=studio, api_key="k1"), reader)) as url,
    ):
        post(url + "/setup", recorded("setup")["request"])
        (prediction,) = _predict(url, uri)
    assert prediction["result"] and "error" not in prediction


# -- sane under load ---------------------------------------------------------------------------


class HeldReader(Reader):
    """A reader whose reads wait until the test lets them go."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.started = threading.Event()

    def read(self, data: bytes, source: str) -> Any:
        self.started.set()
        self.go.wait(30)
        raise TaskError(f"{source}: let go")


def test_health_answers_while_a_photo_is_read(root: Path) -> None:
    held = HeldReader()
    with live_server(create_app(options(local_files_root=root), held)) as url:
        post(url + "/setup", recorded("setup")["request"])
        predicting = threading.Thread(
            target=_predict, args=(url, "/data/local-files/?d=images/row14a.jpg")
        )
        predicting.start()
        assert held.started.wait(30)
        health = get(url + "/health", timeout=10)  # Label Studio allows it 1 s
        held.go.set()
        predicting.join(30)
    assert health["status"] == "UP"


def test_a_task_past_its_time_is_answered_with_the_reason(root: Path) -> None:
    held = HeldReader()
    with live_server(create_app(options(local_files_root=root, read_timeout=0.5), held)) as url:
        post(url + "/setup", recorded("setup")["request"])
        (late,) = _predict(url, "/data/local-files/?d=images/row14a.jpg")
        held.go.set()
    assert late["error"] == "task took over 0.5 s (--read-timeout)"


# -- start training ------------------------------------------------------------------------------


def test_start_training_exports_imports_and_runs_one_job(
    root: Path, reader: Reader, tmp_path: Path
) -> None:
    """The START_TRAINING webhook Label Studio sent: the annotations exported through Label
    Studio's API, the photos fetched, imported, and the retraining command run (here a
    stand-in that writes a report: the real one is tested by make test-train and the live
    test); the state at /status."""
    body = recorded("webhook-start_training")["request"]
    project = body["project"]["id"]
    task = {
        "id": 1,
        "data": {"image": "/data/local-files/?d=images/row14a.jpg"},
        "annotations": [{"id": 1, "result": _predict_regions(reader), "was_cancelled": False}],
        "predictions": [],
    }
    export = json.dumps([task]).encode()
    files = {f"/api/projects/{project}/export?exportType=JSON": export}
    script = (
        "import json,sys,pathlib; out=pathlib.Path(sys.argv[sys.argv.index('--out')+1]);"
        "out.mkdir(parents=True,exist_ok=True);"
        "photos=list(pathlib.Path(sys.argv[1]).glob('images/train/*'));"
        "(out/'retrain-report.json').write_text(json.dumps({'photos':len(photos)}))"
    )
    with fake_label_studio("k1", files) as studio:
        opts = options(
            local_files_root=root,
            label_studio_url=studio,
            api_key="k1",
            retrain_out=tmp_path / "retrained",
            retrain_command=(sys.executable, "-c", script),
            basic_auth=AUTH,
        )
        with live_server(create_app(opts, reader)) as url:
            post(url + "/setup", recorded("setup")["request"], auth=AUTH)
            status, started = post(url + "/webhook", body, auth=AUTH)
            state = _wait(url)
    assert status == 200 and started["status"] == "started"
    assert state["state"] == "done", state
    assert state["report"] == {"photos": 1}


def _predict_regions(reader: Reader) -> list[dict[str, Any]]:
    from hupai.labeling.backend import prediction
    from hupai.vision.images import load_image
    from hupai.vision.reading import read_image

    reading = read_image(load_image(REAL / "row14a.jpg"), detector=reader.detector,
                         namer=reader.namer)  # fmt: skip
    config = Config("label", "image", "image", frozenset(CLASS_NAMES))
    regions: list[dict[str, Any]] = prediction(reading, config, "v")["result"]
    return regions


def _wait(url: str) -> dict[str, Any]:
    for _ in range(600):
        state: dict[str, Any] = get(url + "/status", auth=AUTH)["training"]
        if state["state"] in ("done", "failed"):
            return state
        time.sleep(0.1)
    return state


# -- issue #40: only Label Studio may use it, and only with its own key --------------------------


@contextmanager
def recording_server() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Any host: answers 200 with a few bytes, and records each request's headers."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            seen.append({"path": self.path, **dict(self.headers)})
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()


def test_setup_cannot_send_the_key_to_another_host(reader: Reader) -> None:
    """Row 3: setup's ``hostname`` once replaced Label Studio's address, and the next
    prediction sent the API key there."""
    upload = "/data/upload/1/8f3a2b1c-row14a.jpg"
    photo = (REAL / "row14a.jpg").read_bytes()
    with (
        fake_label_studio("k1", {upload: photo}) as studio,
        recording_server() as (attacker, seen),
    ):
        opts = options(label_studio_url=studio, api_key="k1", basic_auth=AUTH)
        with live_server(create_app(opts, reader)) as url:
            setup = {**recorded("setup")["request"], "hostname": attacker, "access_token": "x"}
            assert post(url + "/setup", setup, auth=AUTH)[0] == 200
            request = {**recorded("predict")["request"], "tasks": [_task(upload)]}
            request["params"] = {"hostname": attacker}
            status, answer = post(url + "/predict", request, auth=AUTH)
    assert status == 200 and answer["results"][0]["result"]  # from the real Label Studio
    assert seen == []


def test_without_a_label_studio_url_an_upload_is_not_fetched_from_setups_host(
    reader: Reader,
) -> None:
    with (
        recording_server() as (attacker, seen),
        live_server(create_app(options(api_key="k1"), reader)) as url,
    ):
        post(url + "/setup", {**recorded("setup")["request"], "hostname": attacker})
        (prediction,) = _predict(url, "/data/upload/1/x.jpg")
    assert "no Label Studio URL (--label-studio-url)" in prediction["error"]
    assert seen == []


def test_a_task_cannot_make_the_backend_fetch_another_host(reader: Reader) -> None:
    """Row 7: any URL was fetched (SSRF), and the error told open ports from closed."""
    with fake_label_studio("k1", {}) as studio, recording_server() as (other, seen):
        closed = f"http://127.0.0.1:{free_port()}/x.jpg"
        tricks = [
            other + "/x.jpg",
            closed,
            studio.replace("127.0.0.1", "localhost") + "/x.jpg",  # another name: another origin
            f"http://user@{other.removeprefix('http://')}/x.jpg",
            "file:///etc/passwd",
            "//127.0.0.1/x.jpg",
        ]
        opts = options(label_studio_url=studio, api_key="k1")
        with live_server(create_app(opts, reader)) as url:
            post(url + "/setup", recorded("setup")["request"])
            results = _predict(url, *tricks)
    assert seen == []
    errors = [r["error"].removeprefix(f"{t}: ") for r, t in zip(results, tricks, strict=True)]
    assert len(set(errors)) == 1, errors  # one answer: nothing told about the host or port
    assert "fetches photos only from them" in errors[0]


def test_every_route_asks_for_the_basic_authentication(reader: Reader) -> None:
    with live_server(create_app(options(basic_auth=AUTH), reader)) as url:
        for path in ("/health", "/setup", "/predict", "/webhook", "/train", "/status"):
            data = None if path in ("/health", "/status") else b"{}"
            wrong = basic(("label-studio", "wrong"))
            request = urllib.request.Request(url + path, data=data, headers=wrong)
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code == 401, path
            assert refused.value.headers["WWW-Authenticate"].startswith("Basic")
        assert get(url + "/health", auth=AUTH)["status"] == "UP"
        assert post(url + "/setup", recorded("setup")["request"], auth=AUTH)[0] == 200


def test_training_cannot_be_started_without_the_authentication(
    reader: Reader, tmp_path: Path
) -> None:
    """Row 8: anyone could start a retraining."""
    marker = tmp_path / "ran"
    command = (sys.executable, "-c", f"open({str(marker)!r}, 'w')")
    start = recorded("webhook-start_training")["request"]
    train = {"project": "1.1", "annotations": [{"id": 1, "annotations": [{"result": []}]}]}
    opts = options(retrain_out=tmp_path / "out", retrain_command=command)
    with live_server(create_app(opts, reader)) as url:  # no --basic-auth: never
        assert post(url + "/webhook", start)[0] == 403
        status, answer = post(url + "/train", train)
        assert status == 403 and "--basic-auth" in answer["error"]
        assert get(url + "/status")["training"]["state"] == "idle"
    with live_server(create_app(replace(opts, basic_auth=AUTH), reader)) as url:
        assert post(url + "/webhook", start)[0] == 401  # without the credentials
        assert post(url + "/train", train, auth=("label-studio", "guess"))[0] == 401
        assert get(url + "/status", auth=AUTH)["training"]["state"] == "idle"
    assert not marker.exists()


def deep(depth: int) -> bytes:
    return b'{"tasks": ' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize("path", ["/setup", "/predict", "/webhook", "/train", "/job_status"])
def test_deep_nesting_is_a_422_in_words_and_the_connection_is_kept(
    reader: Reader, path: str
) -> None:
    """Row 9: JSON nested 3,000 deep was a 500 with ``RecursionError`` and a reset."""
    import http.client

    opts = options(basic_auth=AUTH)
    with live_server(create_app(opts, reader)) as url:
        connection = http.client.HTTPConnection(url.removeprefix("http://"), timeout=30)
        headers = {"Content-Type": "application/json", **basic(AUTH)}
        connection.request("POST", path, deep(3000), headers)
        first = connection.getresponse()
        answer = json.loads(first.read())
        connection.request("GET", "/health", headers=basic(AUTH))  # the same connection
        second = connection.getresponse()
        second.read()
        connection.close()
    if path == "/job_status":  # reads no body
        assert first.status == 200
    else:
        assert first.status == 422 and answer == {"error": "the body is nested too deeply"}
    assert second.status == 200


def test_a_lone_surrogate_in_a_webhook_is_a_422_and_status_stays_up(reader: Reader) -> None:
    """Row 9: a lone surrogate in ``action`` was a 500, and /status 500 until restart."""
    with live_server(create_app(options(basic_auth=AUTH), reader)) as url:
        raw = b'{"action": "\\udc00", "project": {"id": 1}}'
        status, answer = post(url + "/webhook", None, raw=raw, auth=AUTH)
        assert status == 422 and "not text: a lone surrogate" in answer["error"]
        assert get(url + "/status", auth=AUTH)["model_version"] == "hupai test"


def test_a_body_over_the_limit_is_a_413_before_it_is_read(reader: Reader) -> None:
    """Row 14: a 20 MB body was read whole. Only the head and a little of the body are sent:
    the answer comes from the head."""
    import socket

    with live_server(create_app(options(max_body_bytes=2**20), reader)) as url:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(
                b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b'Content-Length: 20000000\r\n\r\n{"tasks": ['
            )
            answer = s.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 413") and "1 MiB" in answer, answer[:300]


def test_webhook_counts_and_projects_are_bounded(reader: Reader) -> None:
    """Row 14: one counter per action and per project named: /status grew 318 B → 10 MB."""
    with live_server(create_app(options(max_projects=8), reader)) as url:
        for k in range(60):
            body = {"action": f"MADE_UP_{k}", "project": {"id": k}}
            assert post(url + "/webhook", body)[0] == 200
            post(url + "/setup", {**recorded("setup")["request"], "project": f"{k}.1"})
        events = get(url + "/status")["training"]["events"]
    assert len(events) <= 8
    assert all(set(counts) <= {"other"} for counts in events.values())


def test_a_half_sent_head_is_closed_like_hupai_serve_does(reader: Reader) -> None:
    """Row 14: the backend waited forever for a head; the CLI now runs uvicorn with
    `hupai serve`'s deadlines (:func:`hupai.service.protocol.server_options`)."""
    import socket

    import uvicorn

    from hupai.service.protocol import server_options

    opts = options(head_timeout=0.5)
    config = uvicorn.Config(create_app(opts, reader), host="127.0.0.1", port=free_port(),
                            log_level="warning", **server_options(opts))  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        with socket.create_connection(("127.0.0.1", config.port), timeout=10) as s:
            s.sendall(b"POST /predict HTTP/1.1\r\nHost: x\r\n")  # and no more
            began = time.monotonic()
            assert s.recv(100) == b""  # closed by the server
            assert time.monotonic() - began < 5
    finally:
        server.should_exit = True
        thread.join(10)


def test_the_basic_auth_comes_from_the_option_or_label_studios_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hupai.cli import UserError
    from hupai.commands.label_studio import basic_auth

    monkeypatch.delenv("BASIC_AUTH_USER", raising=False)
    monkeypatch.delenv("BASIC_AUTH_PASS", raising=False)
    assert basic_auth(None) is None
    assert basic_auth("ls:p:w") == ("ls", "p:w")
    monkeypatch.setenv("BASIC_AUTH_USER", "ls")
    monkeypatch.setenv("BASIC_AUTH_PASS", "secret")
    assert basic_auth(None) == ("ls", "secret")
    for bad in ("nopassword", ":x", "x:"):
        with pytest.raises(UserError):
            basic_auth(bad)
