"""A Label Studio ML backend (``hupai label-studio serve``, docs/labeling.md).

Label Studio 1.23 calls a backend at the URL set in a project's *Model* settings
(label_studio/ml/api_connector.py):

* ``GET /health`` (1 s timeout) and ``POST /setup`` (3 s) before every prediction round:
  setup carries the project (``"<id>.<created>"``), its labelling config (``schema``), Label
  Studio's ``hostname`` and the project owner's legacy ``access_token``; it answers the model
  version. The hostname and the token are *not* used: Label Studio's address and API key are
  the backend's start-up settings only (``--label-studio-url``, ``--api-key``), so that no
  request can send the key anywhere else. Both answer at once: the models are loaded when
  the server starts.
* ``POST /predict`` (100 s) with ``tasks`` (a task when someone opens it; a page of them when
  the data manager retrieves predictions): answered with one prediction per task, in order —
  rectangles in percent with hupai's class names, each box's score, the three likeliest
  names per box as the region's meta text (shown in the region's panel), the mean as the
  prediction's score and the model version.
* ``POST /webhook``: the annotation events (counted, shown at ``/status``) and, from the
  *Start Training* button, ``START_TRAINING``: the project's annotations are exported through
  Label Studio's API, their photos fetched, imported as ``hupai data import`` does and
  retrained on (:mod:`hupai.labeling.retrain`) in a process of its own, one job at a time;
  ``GET /status`` shows its state, log tail and before/after table. ``POST /train`` (the
  older protocol, when Label Studio's training webhooks flag is off) starts the same job with
  the annotated tasks it carries.

Photos come only from that Label Studio or the local files root: ``/data/local-files/?d=…``
from the folder given as the local files root (else from Label Studio), ``/data/upload/…`` and
other Label Studio paths (or full URLs on Label Studio's own origin) from Label Studio with the
API key, ``s3://``-style storage URIs through Label Studio's ``/tasks/<id>/resolve/`` (which
redirects to the bucket: the key stays home). Any other URL is refused without a request, so a
task cannot make the backend probe other hosts or ports. A task that cannot be read is
answered with an empty prediction and its ``error``; a request that is not one Label Studio
sends gets 422 and ``{"error"}``.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hupai.datasets.image_labels import ImageLabels
from hupai.datasets.labelstudio import labelstudio_tasks
from hupai.vision.classes import CLASS_NAMES

log = logging.getLogger("hupai.label_studio")

#: Label Studio serves a local folder at this path (LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT).
LOCAL_FILES = "/data/local-files/"
#: Storage URIs Label Studio resolves for a task (its /tasks/<id>/resolve/ endpoint).
STORAGE_SCHEMES = ("s3", "gs", "azure-blob")


class TaskError(ValueError):
    """One task cannot be predicted (its photo cannot be fetched or read); the message says
    which and why, and travels back in the task's prediction."""


class RequestError(ValueError):
    """A request that is not one Label Studio sends; answered ``status`` (422 unless said)
    with the message."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class BackendOptions:
    finder: Path
    namer: Path
    model_version: str
    label_studio_url: str | None = None  # where photos and annotations come from
    api_key: str | None = None  # sent to label_studio_url only
    local_files_root: Path | None = None  # LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT, if shared
    read_concurrency: int = 1
    read_timeout: float = 30.0  # seconds one task may take (fetch and read)
    fetch_timeout: float = 20.0
    max_photo_bytes: int = 50 * 1024 * 1024
    threads: int | None = None
    retrain_out: Path = Path("retrained")  # where Start Training writes its model folder
    retrain_args: tuple[str, ...] = ()  # more `hupai retrain` options
    #: the retraining command before its arguments (default: this Python's `hupai retrain`)
    retrain_command: tuple[str, ...] = ()
    #: (user, password) Label Studio's model connection sends (its Basic Authentication);
    #: None: no route asks for it, and training cannot be started
    basic_auth: tuple[str, str] | None = None
    max_body_bytes: int = 16 * 1024 * 1024  # a request's JSON (a /train carries annotations)
    head_timeout: float = 10.0  # seconds a connection may take to send a request's head
    body_timeout: float = 60.0  # ... and its body
    keep_alive: float = 5.0  # seconds an idle keep-alive connection stays open
    max_projects: int = 256  # projects whose config and counts are kept (oldest dropped)


# -- the project's labelling config ---------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """What a prediction needs from the labelling config: the ``RectangleLabels`` control,
    the ``Image`` it labels and the task field holding the image URL."""

    from_name: str
    to_name: str
    data_key: str
    labels: frozenset[str]

    @staticmethod
    def parse(xml: str) -> Config:
        """The first ``RectangleLabels`` over an ``Image``; RequestError naming what lacks.

        >>> c = Config.parse('<View><Image name="img" value="$photo"/>'
        ...     '<RectangleLabels name="tiles" toName="img"><Label value="1m"/>'
        ...     '</RectangleLabels></View>')
        >>> (c.from_name, c.to_name, c.data_key, sorted(c.labels))
        ('tiles', 'img', 'photo', ['1m'])
        """
        try:
            root = ET.fromstring(xml)
        except ET.ParseError as exc:
            raise RequestError(f"the labelling config is not XML ({exc})") from None
        images = {e.get("name"): e.get("value", "") for e in root.iter() if e.tag == "Image"}
        for control in root.iter("RectangleLabels"):
            to_name = control.get("toName", "")
            if to_name in images and control.get("name"):
                labels = frozenset(
                    str(label.get("value")) for label in control.iter("Label") if label.get("value")
                )
                return Config(
                    str(control.get("name")), to_name, images[to_name].lstrip("$"), labels
                )
        raise RequestError(
            "the labelling config has no RectangleLabels over an Image: paste hupai's "
            "labelstudio-config.xml (hupai label writes it) in the project's Labeling Interface"
        )

    def missing_names(self) -> list[str]:
        return [n for n in CLASS_NAMES if n not in self.labels]


@dataclass
class Project:
    """What setup told about a project (its labelling config) and its webhook counts."""

    config: Config | None = None
    events: Counter[str] = field(default_factory=Counter)


# -- fetching photos -----------------------------------------------------------------------


class KeyStaysHome(urllib.request.HTTPRedirectHandler):
    """Redirects followed without the API key when they leave Label Studio's host: its
    storage URIs resolve to presigned cloud URLs, which refuse a second credential (and must
    never see Label Studio's key)."""

    def redirect_request(
        self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> Any:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _host(newurl) != _host(req.full_url):
            new.remove_header("Authorization")
        return new


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc.lower()


def _origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port (the default port filled in), for comparing two URLs.

    >>> _origin("HTTP://LS.example:80/x") == _origin("http://ls.example/data/upload/1.jpg")
    True
    >>> _origin("http://ls.example@evil.example/") == _origin("http://ls.example/")
    False
    """
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return ("", "", None)
    scheme = parts.scheme.lower()
    default = {"http": 80, "https": 443}.get(scheme)
    return (scheme, (parts.hostname or "").lower(), port or default)


OPENER = urllib.request.build_opener(KeyStaysHome())


class Fetcher:
    """A task's photo as bytes (see the module's doc for where from)."""

    def __init__(self, opts: BackendOptions) -> None:
        self.opts = opts
        self._bearer: dict[str, tuple[str, float]] = {}  # refresh token → (access, expiry)
        self._lock = threading.Lock()

    def photo(self, url: str, task_id: Any) -> bytes:
        if not url:
            raise TaskError("the task has no image URL")
        local = self._local_file(url)
        if local is not None:
            return local
        scheme = urllib.parse.urlsplit(url).scheme
        base = self.opts.label_studio_url
        if scheme in STORAGE_SCHEMES:
            if base is None:
                raise TaskError(f"{url}: a storage URI, and no Label Studio URL to resolve it")
            fileuri = base64.urlsafe_b64encode(url.encode()).decode()
            if not isinstance(task_id, int) or isinstance(task_id, bool):
                raise TaskError(f"{url}: a storage URI in a task without a numeric id")
            return self._get(f"{base.rstrip('/')}/tasks/{task_id}/resolve/?fileuri={fileuri}", url)
        if scheme in ("http", "https"):
            if base is None or _origin(url) != _origin(base):
                raise TaskError(f"{url}: {self._where()}")
            return self._get(url, url)
        if url.startswith("/") and not url.startswith("//"):
            if base is None:
                raise TaskError(
                    f"{url}: a Label Studio path, and no Label Studio URL (--label-studio-url)"
                )
            return self._get(base.rstrip("/") + url, url)
        raise TaskError(f"{url}: {self._where()}")

    def _where(self) -> str:
        """Why a URL is refused (no request was made: nothing about the host is told)."""
        studio = self.opts.label_studio_url or "none given: --label-studio-url"
        return (
            f"not a photo of this Label Studio ({studio}) or its local files: the backend "
            "fetches photos only from them"
        )

    def _local_file(self, url: str) -> bytes | None:
        root = self.opts.local_files_root
        if root is None or not url.startswith(LOCAL_FILES):
            return None
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        rel = (query.get("d") or [""])[0]
        path = (root / rel).resolve()
        if not path.is_relative_to(root.resolve()):
            raise TaskError(f"{url}: outside the local files root")
        try:
            return self._capped(path.read_bytes(), url)
        except OSError as exc:
            raise TaskError(f"{url}: {exc.strerror or exc} under {root}") from None

    def _capped(self, data: bytes, url: str) -> bytes:
        if len(data) > self.opts.max_photo_bytes:
            raise TaskError(f"{url}: larger than {self.opts.max_photo_bytes} bytes")
        return data

    def _get(self, url: str, shown: str) -> bytes:
        """``url`` (on Label Studio's origin: the caller checked) with the API key."""
        headers = {"User-Agent": "hupai-ml-backend", **self.auth()}
        request = urllib.request.Request(url, headers=headers)
        try:
            with OPENER.open(request, timeout=self.opts.fetch_timeout) as r:
                data = r.read(self.opts.max_photo_bytes + 1)
        except urllib.error.HTTPError as exc:
            hint = " (give --api-key)" if exc.code in (401, 403) else ""
            raise TaskError(f"{shown}: HTTP {exc.code} {exc.reason}{hint}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise TaskError(f"{shown}: cannot fetch ({reason})") from None
        return self._capped(data, shown)

    def auth(self) -> dict[str, str]:
        """Label Studio's header for the key given at start-up: a legacy token as ``Token``,
        a personal access token (a JWT refresh token) exchanged for a short-lived ``Bearer``
        access token. Only for requests to ``label_studio_url``."""
        key = self.opts.api_key
        if not key or not self.opts.label_studio_url:
            return {}
        if key.count(".") != 2:
            return {"Authorization": f"Token {key}"}
        return {"Authorization": f"Bearer {self._access(key)}"}

    def _access(self, refresh: str) -> str:
        with self._lock:
            held = self._bearer.get(refresh)
            if held is not None and held[1] > time.monotonic():
                return held[0]
        base = self.opts.label_studio_url
        if base is None:
            raise TaskError("a personal access token, and no Label Studio URL to exchange it")
        request = urllib.request.Request(
            base.rstrip("/") + "/api/token/refresh",
            data=json.dumps({"refresh": refresh}).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.opts.fetch_timeout) as r:
                access = str(json.loads(r.read())["access"])
        except (urllib.error.URLError, OSError, ValueError, KeyError) as exc:
            raise TaskError(f"Label Studio refused the API key ({exc})") from None
        with self._lock:
            self._bearer[refresh] = (access, time.monotonic() + 240)  # tokens live 5 min
        return access


# -- predictions ---------------------------------------------------------------------------


def prediction(reading: Any, config: Config, model_version: str) -> dict[str, Any]:
    """One task's prediction from a reading (:class:`hupai.vision.result.Reading`): rectangles
    with hupai's names and scores, the namer's three likeliest names per box as the region's
    meta text, and the photo's review score (:func:`hupai.vision.trust.review_score`: doubtful
    photos lowest, so that sorting by it in Label Studio puts them first)."""
    from hupai.vision.trust import review_score

    item = ImageLabels(
        "", reading.width, reading.height, reading.detections, {"score": review_score(reading)}
    )
    (task,) = labelstudio_tasks([item], model_version=model_version)
    result = task["predictions"][0]["result"]
    width, height = reading.width, reading.height  # the photo's own pixels
    for k, region in enumerate(result):
        region["from_name"], region["to_name"] = config.from_name, config.to_name
        region["id"] = f"hupai{k}"
        region["original_width"], region["original_height"] = int(width), int(height)
        if reading.alternatives is not None and reading.alternative_probs is not None:
            text = likeliest(reading.alternatives[k], reading.alternative_probs[k])
            region["meta"] = {"text": [text]}
    return {
        "result": result,
        "score": task["predictions"][0]["score"],
        "model_version": model_version,
    }


def likeliest(names: Any, probs: Any) -> str:
    """The three likeliest names of a box, as a region's meta text.

    >>> likeliest([10, 11, 43], [0.91, 0.05, 0.02])
    '2p 0.91 · 3p 0.05 · not a tile 0.02'
    """
    parts = []
    for name, p in zip(np.asarray(names).tolist(), np.asarray(probs).tolist(), strict=True):
        label = CLASS_NAMES[name] if 0 <= name < len(CLASS_NAMES) else "not a tile"
        parts.append(f"{label} {p:.2f}")
    return " · ".join(parts)


def failed(error: str, model_version: str) -> dict[str, Any]:
    """A task that cannot be predicted: no region, and why (shown in the request's answer
    and the backend's log; Label Studio keeps the empty prediction)."""
    return {"result": [], "score": 0.0, "model_version": model_version, "error": error}


def image_url(task: Any, config: Config) -> tuple[str, Any]:
    if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
        raise TaskError("not a task (no data object)")
    url = task["data"].get(config.data_key)
    if not isinstance(url, str):
        raise TaskError(f"task {task.get('id')}: no '{config.data_key}' in its data")
    return url, task.get("id")


# -- retraining from Label Studio ------------------------------------------------------------


class Trainer:
    """One retraining at a time: export the annotations, fetch their photos, import them and
    run ``hupai retrain`` in a process of its own; its state for ``/status``."""

    def __init__(self, opts: BackendOptions, fetcher: Fetcher) -> None:
        self.opts = opts
        self.fetcher = fetcher
        self.lock = threading.Lock()
        self.state: dict[str, Any] = {"state": "idle"}
        self.jobs = 0

    def start(self, project_id: int, project: Project, tasks: list[Any] | None) -> dict[str, Any]:
        with self.lock:
            if self.state["state"] in ("exporting", "training"):
                return {"status": "busy", "job": self.state["job"], **self.status()}
            self.jobs += 1
            job = f"retrain-{self.jobs}-{int(time.time())}"
            self.state = {
                "state": "exporting",
                "job": job,
                "project": project_id,
                "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            }
        threading.Thread(
            target=self._run, args=(job, project_id, project, tasks), daemon=True
        ).start()
        return {"status": "started", "job": job}

    def status(self) -> dict[str, Any]:
        state = dict(self.state)
        out = self.opts.retrain_out
        logfile = out / ".retrain" / "retrain.log"
        if logfile.is_file():
            state["log"] = logfile.read_text(encoding="utf-8").splitlines()[-12:]
        report = out / "retrain-report.json"
        if state["state"] == "done" and report.is_file():
            state["report"] = json.loads(report.read_text())
        return state

    def _set(self, **kv: Any) -> None:
        with self.lock:
            self.state.update(kv)

    def _run(self, job: str, project_id: int, project: Project, tasks: list[Any] | None) -> None:
        work = self.opts.retrain_out.with_name(self.opts.retrain_out.name + "-import")
        try:
            if tasks is None:
                tasks = self._export(project_id)
            corrected = self._import(tasks, project, work)
            self._set(state="training")
            command = [
                *(self.opts.retrain_command or (sys.executable, "-m", "hupai", "retrain")),
                str(corrected),
                "--out",
                str(self.opts.retrain_out),
                *self.opts.retrain_args,
            ]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
                self._set(state="failed", error=" / ".join(tail), finished=_now())
            else:
                self._set(state="done", finished=_now(), models=str(self.opts.retrain_out))
        except Exception as exc:  # a failed job is reported at /status, never raised
            log.exception("retraining %s failed", job)
            self._set(state="failed", error=f"{type(exc).__name__}: {exc}", finished=_now())

    def _export(self, project_id: int) -> list[Any]:
        base = self.opts.label_studio_url
        if base is None:
            raise TaskError("no Label Studio URL to export the annotations from")
        url = f"{base.rstrip('/')}/api/projects/{project_id}/export?exportType=JSON"
        request = urllib.request.Request(url, headers=self.fetcher.auth())
        with urllib.request.urlopen(request, timeout=300) as r:
            data = json.loads(r.read())
        if not isinstance(data, list):
            raise TaskError(f"{url}: not a list of tasks")
        return data

    def _import(self, tasks: list[Any], project: Project, work: Path) -> Path:
        """The annotated tasks' photos fetched into ``work/photos`` and imported into
        ``work/corrected`` (as ``hupai data import`` does)."""
        import shutil

        from hupai.datasets.importing import import_labels

        shutil.rmtree(work, ignore_errors=True)
        photos = work / "photos"
        photos.mkdir(parents=True)
        config = project.config
        key = config.data_key if config else "image"
        annotated = [t for t in tasks if isinstance(t, dict) and t.get("annotations")]
        if not annotated:
            raise TaskError("no annotated task to train on")
        for task in annotated:
            url, task_id = image_url(task, config or Config("label", "image", key, frozenset()))
            name = Path(urllib.parse.unquote(urllib.parse.urlsplit(url).path)).name
            if url.startswith(LOCAL_FILES):
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
                name = Path((query.get("d") or [name])[0]).name
            (photos / name).write_bytes(self.fetcher.photo(url, task_id))
        export = work / "export.json"
        export.write_text(json.dumps(annotated))
        corrected = work / "corrected"
        import_labels(
            export,
            corrected,
            images=photos,
            split="train",
            link=False,
            predictions=None,
            overwrite=True,
            keep_empty=False,
        )
        self._set(photos=len(annotated))
        return corrected


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


_PROJECT_ID = re.compile(r"^(\d+)")


def project_number(uid: Any) -> int | None:
    """Label Studio's project id from its ``"<id>.<created>"`` uid (or a plain id).

    >>> project_number("3.1732000000"), project_number(7), project_number("x")
    (3, 7, None)
    """
    m = _PROJECT_ID.match(str(uid))
    return int(m.group(1)) if m else None
