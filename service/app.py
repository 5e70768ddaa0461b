"""The FastAPI application: :func:`create_app` builds it from :class:`Settings`.

The tile detector is loaded once, in the lifespan, unless ``get_reader`` is overridden
(``app.dependency_overrides[get_reader] = lambda: fake`` — what the tests do). ``hupai serve``
runs it under uvicorn; ``uvicorn --factory hupai.service.app:create_app`` works too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from hupai.ledger.store import Ledger
from hupai.scoring import city_names
from hupai.service import errors, redact
from hupai.service.api import router
from hupai.service.dependencies import AnnotatedStore, ReadPool, get_reader
from hupai.service.headers import SecurityHeaders
from hupai.service.hosts import HostCheck
from hupai.service.limits import BodyLimit, RateLimit
from hupai.service.reader import load_reader
from hupai.service.schemas import ErrorBody, Health
from hupai.service.settings import Settings
from hupai.service.tables import router as tables_router
from hupai.service.text import TextCheck

STATIC = Path(__file__).resolve().parent / "static"
#: Room for the multipart framing and the JSON context beside the photo.
BODY_SLACK = 1024 * 1024
#: The routes that take a photo (the photo's body limit); every other route takes JSON.
PHOTO_ROUTES = ("/v1/read", "/v1/score", "/v1/tables/*/photo")

DESCRIPTION = """Read a winning mahjong hand from a photo and score it under Chinese city rules.

* `POST /v1/read` — photo → reading (tiles, melds, winning tile, indicator/fishing, warnings)
* `POST /v1/score` — photo + JSON context → reading, score, annotated photo
* `POST /v1/score/hand` — the `hupai score` JSON request → result (re-score corrected tiles)
* `GET /v1/cities` — cities, options with defaults, per-city fields
* `/v1/tables…` — a table's whole game: create, add/edit/delete/undo hands (from a photo or
  tiles), totals, next dealer and round, CSV/JSON export, a read-only share link

Errors are `{code, message, field, hint}`; see docs/service.md."""


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app. Without ``settings``, they come from the environment (``HUPAI_*``)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if get_reader not in app.dependency_overrides:
            app.state.reader = load_reader(
                settings.model_file(), settings.threads, settings.namer_file()
            )
        yield
        app.state.reader = None
        app.state.ledger.close()

    app = FastAPI(
        title="hupai",
        version=_version(),
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served below from local assets: a table's Wi-Fi may be offline
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.reader = None
    app.state.annotated = AnnotatedStore(settings.annotated_keep)
    app.state.pool = ReadPool(settings.read_concurrency, settings.max_waiting)
    app.state.table_limit = RateLimit(settings.tables_per_hour, settings.tables_burst)
    app.state.ledger = Ledger(settings.database_url)  # the database is opened on first use
    errors.install(app)
    app.include_router(router)
    app.include_router(tables_router)

    @app.get("/healthz", response_model=Health, responses={503: {"model": ErrorBody}})
    async def healthz() -> dict[str, Any]:
        """Liveness and what is loaded."""
        reader = get_reader_for_health(app)
        return {"status": "ok", "model": reader.info(), "cities": list(city_names())}

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _local_docs(app)

    # Middleware, innermost first: each answer, an error included, passes every layer above
    # the one that made it — so the security headers (outermost) are on a 413, 421 or 500.
    app.add_middleware(errors.Unexpected)
    app.add_middleware(TextCheck)
    app.add_middleware(
        BodyLimit,
        limit=settings.max_upload_bytes + BODY_SLACK,
        message=f"request: larger than the {settings.max_upload_bytes / 2**20:g} MiB allowed "
        "for a photo",
        json_limit=settings.max_json_bytes,
        photo_paths=PHOTO_ROUTES,
    )
    app.add_middleware(HostCheck, names=settings.allowed_hosts)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["*"],
        )
    app.add_middleware(SecurityHeaders)
    redact.install()  # no token in any log line (uvicorn's access log shows paths)
    return app


def _local_docs(app: FastAPI) -> None:
    """``/docs`` (Swagger UI) and ``/redoc`` from the assets the fastapi-offline package
    ships, so that they work on a network without the internet."""
    from importlib.resources import files

    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
    from fastapi.responses import HTMLResponse

    assets = Path(str(files("fastapi_offline") / "static"))
    app.mount("/docs-static", StaticFiles(directory=assets), name="docs-static")

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="hupai — API",
            swagger_js_url="/docs-static/swagger-ui-bundle.js",
            swagger_css_url="/docs-static/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url="/openapi.json",
            title="hupai — API",
            redoc_js_url="/docs-static/redoc.standalone.js",
            redoc_favicon_url="/static/favicon.svg",
            with_google_fonts=False,
        )


def get_reader_for_health(app: FastAPI) -> Any:
    """The reader the routes would get (an override included)."""
    from hupai.service.errors import ApiError

    override = app.dependency_overrides.get(get_reader)
    reader = override() if override is not None else app.state.reader
    if reader is None:
        raise ApiError(503, "not_ready", "the tile reader is not loaded")
    return reader


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hupai")
    except PackageNotFoundError:
        return "0"
