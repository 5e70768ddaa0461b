"""The ML backend's HTTP app (FastAPI): Label Studio's routes over :mod:`hupai.labeling.backend`.

Reads run in worker threads, at most ``read_concurrency`` at once, each task bounded by
``read_timeout`` (its answer then says so; the read stops at its next pass, as the service's
does, and a photo's decode is bounded by :mod:`hupai.vision.images`), so that
``/health`` and ``/setup`` — which Label Studio gives 1 s and 3 s — answer at once while
photos are read. Every error is JSON ``{"error": …}`` in words: never a traceback page.

Guarded as ``hupai serve`` is: with ``basic_auth`` set every route asks for Label Studio's
*Basic Authentication* (its model connection form sends it) and only then may training start;
a body is at most ``max_body_bytes`` (413, refused by its length before it is read), read as
JSON by one reader in a worker thread (numbers of at most 100 digits, nesting and lone
surrogates refused in words); projects kept and webhook actions counted are bounded.
"""

from __future__ import annotations

import base64
import hmac
import logging
import time
from collections import OrderedDict
from typing import Any

import anyio
import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from hupai.labeling.backend import (
    BackendOptions,
    Config,
    Fetcher,
    Project,
    RequestError,
    TaskError,
    Trainer,
    failed,
    image_url,
    prediction,
    project_number,
)
from hupai.scoring import ScoringInputError
from hupai.scoring.request import loads_request, non_text
from hupai.vision.classes import CLASS_NAMES

log = logging.getLogger("hupai.label_studio")


class Reader:
    """The loaded pair and the photo-to-prediction path (one per server)."""

    def __init__(self, opts: BackendOptions) -> None:
        from hupai.vision.detector import Detector
        from hupai.vision.namer import Namer

        self.detector = Detector(opts.finder, threads=opts.threads)
        self.namer = Namer(opts.namer, threads=opts.threads)
        self.read_timeout = opts.read_timeout

    def read(self, data: bytes, source: str) -> Any:
        """The reading of a photo's bytes, the way every command reads
        (:func:`hupai.vision.reading.read_photo_image`: decoded no larger than its tiles
        need), in the photo's own pixels."""
        from hupai.vision.reading import ReadTimeout, read_deadline, read_photo_image

        try:  # past the task's time the read stops between its passes: its worker is freed
            with read_deadline(self.read_timeout):
                _, reading = read_photo_image(
                    data, detector=self.detector, namer=self.namer, source=source
                )
        except (ValueError, ReadTimeout) as exc:
            raise TaskError(f"{source}: {getattr(exc, 'message', None) or exc}") from None
        return reading


def create_app(opts: BackendOptions, reader: Reader | None = None) -> FastAPI:
    app = FastAPI(title="hupai ML backend for Label Studio", docs_url=None, redoc_url=None)
    reader = reader or Reader(opts)
    fetcher = Fetcher(opts)
    trainer = Trainer(opts, fetcher)
    projects: OrderedDict[str, Project] = OrderedDict()
    limiter = anyio.CapacityLimiter(opts.read_concurrency)
    version = opts.model_version

    def project_of(body: dict[str, Any]) -> Project:
        return project_named(str(body.get("project", ""))[:MAX_PROJECT_ID])

    def project_named(uid: str) -> Project:
        """The project's state, made on first sight; beyond ``max_projects`` the one least
        recently seen is dropped (its config comes again with the next setup or predict)."""
        project = projects.pop(uid, None) or Project()
        projects[uid] = project
        while len(projects) > opts.max_projects:
            projects.popitem(last=False)
        return project

    @app.exception_handler(RequestError)
    async def _request_error(_: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": "not a Label Studio request"}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _bug(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")  # the traceback is logged, never sent
        return JSONResponse({"error": "hupai backend: an unexpected error (see its log)"}, 500)

    async def json_body(request: Request) -> dict[str, Any]:
        """The body as a JSON object: at most ``max_body_bytes`` (413), read by the one
        reader in a worker thread (422 in words)."""
        limit = opts.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise RequestError(too_large(limit), status=413)
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise RequestError(too_large(limit), status=413)
            chunks.append(chunk)
        body = await anyio.to_thread.run_sync(read_body, b"".join(chunks))
        if not isinstance(body, dict):
            raise RequestError("the body is not a JSON object")
        return body

    @app.get("/health")
    @app.get("/")
    async def health() -> dict[str, Any]:
        return {"status": "UP", "model_class": "hupai", "model_version": version}

    @app.post("/setup")
    async def setup(request: Request) -> dict[str, Any]:
        body = await json_body(request)
        config = Config.parse(str(body.get("schema") or ""))
        missing = config.missing_names()
        if len(missing) == len(CLASS_NAMES):
            raise RequestError(
                f"the labelling config's {config.from_name} has none of hupai's names "
                f"(1m … 9s, 1z … 7z, flowers, back): paste hupai's labelstudio-config.xml"
            )
        project = project_of(body)
        project.config = config  # its hostname and access_token are not used: start-up's are
        if missing:
            log.warning(
                "project %s lacks labels %s: those boxes would not show",
                body.get("project"),
                " ".join(missing),
            )
        return {"model_version": version}

    @app.get("/versions")
    async def versions() -> dict[str, Any]:
        return {"versions": [version]}

    @app.post("/predict")
    async def predict(request: Request) -> dict[str, Any]:
        body = await json_body(request)
        tasks = body.get("tasks")
        if not isinstance(tasks, list):
            raise RequestError("no 'tasks' list")
        project = project_of(body)
        config = project.config
        if body.get("label_config"):
            config = Config.parse(str(body["label_config"]))
            project.config = config
        if config is None:
            raise RequestError("no labelling config: Label Studio sends it with setup/predict")
        results: list[dict[str, Any]] = [{} for _ in tasks]
        async with anyio.create_task_group() as group:  # the limiter bounds the reads
            for k, task in enumerate(tasks):
                group.start_soon(one_task, task, config, project, results, k)
        errors = [r["error"] for r in results if "error" in r]
        if errors:
            log.warning("%d of %d task(s) not predicted: %s", len(errors), len(tasks), errors[0])
        return {"results": results, "model_version": version}

    async def one_task(
        task: Any, config: Config, project: Project, slots: list[dict[str, Any]], k: int
    ) -> None:
        began = time.perf_counter()
        try:
            url, task_id = image_url(task, config)
            with anyio.fail_after(opts.read_timeout):
                async with limiter:
                    # abandoned past the timeout: the answer goes now, the thread ends later
                    data = await anyio.to_thread.run_sync(
                        fetcher.photo, url, task_id, abandon_on_cancel=True
                    )
                    reading = await anyio.to_thread.run_sync(
                        reader.read, data, url, abandon_on_cancel=True
                    )
            slots[k] = prediction(reading, config, version)
            log.info(
                "task %s: %d tiles in %.2f s",
                task_id,
                len(slots[k]["result"]),
                time.perf_counter() - began,
            )
        except TaskError as exc:
            slots[k] = failed(str(exc), version)
        except TimeoutError:
            slots[k] = failed(f"task took over {opts.read_timeout:g} s (--read-timeout)", version)

    def may_train() -> None:
        if opts.basic_auth is None:  # with it, the middleware let only Label Studio in
            raise RequestError(
                "training is started only by Label Studio with the backend's Basic "
                "Authentication: start the backend with --basic-auth (or BASIC_AUTH_USER "
                "and BASIC_AUTH_PASS) and give them in the model connection",
                status=403,
            )

    @app.post("/webhook")
    async def webhook(request: Request) -> dict[str, Any]:
        body = await json_body(request)
        action = body.get("action")
        if not isinstance(action, str) or not action:
            raise RequestError("no 'action' (the webhook's event name)")
        info = body.get("project") if isinstance(body.get("project"), dict) else {}
        number = project_number((info or {}).get("id"))
        uid = next((u for u in projects if project_number(u) == number), str(number))
        project = project_named(uid)
        project.events[action if action in ACTIONS else "other"] += 1
        if action != "START_TRAINING":
            return {"status": "ok", "action": action[:80]}
        may_train()
        if number is None:
            raise RequestError("START_TRAINING without a project id")
        return trainer.start(number, project, None)

    @app.post("/train")
    async def train(request: Request) -> dict[str, Any]:
        may_train()
        body = await json_body(request)
        tasks = body.get("annotations")
        if not isinstance(tasks, list):
            raise RequestError("no 'annotations' list")
        number = project_number(body.get("project"))
        if number is None:
            raise RequestError("no project")
        project = project_of(body)
        if body.get("label_config"):
            project.config = Config.parse(str(body["label_config"]))
        return trainer.start(number, project, tasks)

    @app.post("/job_status")
    @app.get("/status")
    async def status() -> dict[str, Any]:
        state = trainer.status()
        state["events"] = {uid: dict(p.events) for uid, p in projects.items() if p.events}
        return {"model_version": version, "training": state}

    if opts.basic_auth is not None:
        app.add_middleware(BasicAuth, user=opts.basic_auth[0], password=opts.basic_auth[1])
    return app


#: The webhook actions Label Studio sends, counted by name at /status (any other as "other").
ACTIONS = frozenset(
    {
        "ANNOTATION_CREATED",
        "ANNOTATION_UPDATED",
        "ANNOTATIONS_CREATED",
        "ANNOTATIONS_DELETED",
        "TASKS_CREATED",
        "TASKS_DELETED",
        "PROJECT_CREATED",
        "PROJECT_UPDATED",
        "PROJECT_DELETED",
        "START_TRAINING",
    }
)
#: A project is named ``"<id>.<created>"``: a longer name is cut.
MAX_PROJECT_ID = 64
#: The longest number a request may write (digits), as ``hupai serve`` allows.
MAX_DIGITS = 100


def too_large(limit: int) -> str:
    return f"the body is larger than the {limit / 2**20:g} MiB allowed (--max-body-mb)"


def read_body(data: bytes) -> Any:
    """A request body as JSON, read as ``hupai serve`` reads one: strict JSON, numbers of at
    most :data:`MAX_DIGITS` digits, text that is text; a :class:`RequestError` in words.

    >>> read_body(b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}")
    Traceback (most recent call last):
    ...
    hupai.labeling.backend.RequestError: the body is nested too deeply
    >>> read_body(rb'{"action": "\\udc00"}')
    Traceback (most recent call last):
    ...
    hupai.labeling.backend.RequestError: the body's action is not text: a lone surrogate
    \\udc00 (half of a pair)
    """
    try:
        value = loads_request(data, "the body", max_digits=MAX_DIGITS)
    except ScoringInputError as exc:
        if "recursion" in str(exc):
            raise RequestError("the body is nested too deeply") from None
        raise RequestError(str(exc).replace("the body: ", "the body is ", 1)) from None
    found = non_text(value)
    if found is not None:
        raise RequestError(f"the body's {found[0][:80]} is not text: {found[1]}")
    return value


class BasicAuth:
    """ASGI middleware: every request must carry the HTTP Basic credentials Label Studio's
    model connection was given (``Authorization: Basic …``), else 401 — compared in
    constant time, and answered before the body is read."""

    def __init__(self, app: ASGIApp, user: str, password: str) -> None:
        self.app = app
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        self.expected = f"Basic {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((v for k, v in scope.get("headers", []) if k == b"authorization"), b"")
        if hmac.compare_digest(bytes(given), self.expected):
            await self.app(scope, receive, send)
            return
        refusal = JSONResponse(
            {"error": "this backend asks for the Basic Authentication given in Label Studio's "
             "model connection"},
            401,
            headers={"WWW-Authenticate": 'Basic realm="hupai ML backend"'},
        )  # fmt: skip
        await refusal(scope, receive, send)
