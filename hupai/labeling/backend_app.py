"""The ML backend's HTTP app (FastAPI): Label Studio's routes over :mod:`hupai.labeling.backend`.

Reads run in worker threads, at most ``read_concurrency`` at once, each task bounded by
``read_timeout`` (its answer then says so; the read finishes in the background), so that
``/health`` and ``/setup`` — which Label Studio gives 1 s and 3 s — answer at once while
photos are read. Every error is JSON ``{"error": …}``: never a traceback page.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

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
from hupai.vision.classes import CLASS_NAMES

log = logging.getLogger("hupai.label_studio")


class Reader:
    """The loaded pair and the photo-to-prediction path (one per server)."""

    def __init__(self, opts: BackendOptions) -> None:
        from hupai.vision.detector import Detector
        from hupai.vision.namer import Namer

        self.detector = Detector(opts.finder, threads=opts.threads)
        self.namer = Namer(opts.namer, threads=opts.threads)

    def read(self, data: bytes, source: str) -> Any:
        """The reading of a photo's bytes, the way every command reads
        (:func:`hupai.vision.reading.read_photo_image`: decoded no larger than its tiles
        need), in the photo's own pixels."""
        from hupai.vision.reading import read_photo_image

        try:
            _, reading = read_photo_image(
                data, detector=self.detector, namer=self.namer, source=source
            )
        except ValueError as exc:
            raise TaskError(f"{source}: {getattr(exc, 'message', None) or exc}") from None
        return reading


def create_app(opts: BackendOptions, reader: Reader | None = None) -> FastAPI:
    app = FastAPI(title="hupai ML backend for Label Studio", docs_url=None, redoc_url=None)
    reader = reader or Reader(opts)
    fetcher = Fetcher(opts)
    trainer = Trainer(opts, fetcher)
    projects: dict[str, Project] = {}
    limiter = anyio.CapacityLimiter(opts.read_concurrency)
    version = opts.model_version

    def project_of(body: dict[str, Any]) -> Project:
        return projects.setdefault(str(body.get("project", "")), Project())

    @app.exception_handler(RequestError)
    async def _request_error(_: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": f"not a Label Studio request: {exc.errors()[:1]}"}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _bug(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return JSONResponse({"error": f"hupai backend: {type(exc).__name__}: {exc}"}, 500)

    async def json_body(request: Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            raise RequestError("the body is not JSON") from None
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
        project.config = config
        project.hostname = body.get("hostname") or project.hostname
        project.access_token = body.get("access_token") or project.access_token
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
        project.hostname = project.hostname or (body.get("params") or {}).get("hostname")
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
                        fetcher.photo, url, task_id, project, abandon_on_cancel=True
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

    @app.post("/webhook")
    async def webhook(request: Request) -> dict[str, Any]:
        body = await json_body(request)
        action = str(body.get("action") or "")
        info = body.get("project") if isinstance(body.get("project"), dict) else {}
        number = project_number((info or {}).get("id"))
        uid = next((u for u in projects if project_number(u) == number), str(number))
        project = projects.setdefault(uid, Project())
        project.events[action] += 1
        if action != "START_TRAINING":
            return {"status": "ok", "action": action}
        if number is None:
            raise RequestError("START_TRAINING without a project id")
        return trainer.start(number, project, None)

    @app.post("/train")
    async def train(request: Request) -> dict[str, Any]:
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

    return app
