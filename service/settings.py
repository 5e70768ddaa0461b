"""The service's settings, read from the environment (``HUPAI_*``) or given to the app factory.

>>> s = Settings(_env_file=None)
>>> s.max_upload_bytes == 15 * 1024 * 1024, s.port
(True, 8000)
>>> Settings(cors_origins="https://a.example, https://b.example").cors_origins
['https://a.example', 'https://b.example']
>>> Settings(allowed_hosts="hupai.example.org").allowed_hosts
['hupai.example.org']
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

#: hupai's root — the checkout, or the installed package, where models/ is package data: a
#: relative model path is looked up here when the working directory does not have it
#: (``hupai serve`` run from elsewhere).
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = Path("models/hupai-tiles-v1.onnx")


def _shipped(role: str) -> Path | None:
    """The shipped finder or namer (``models/reader.json``), relative to the repository."""
    from hupai.vision.detector import shipped_file

    path = shipped_file(role)
    return Path("models") / path.name if path is not None else None


def _shipped_finder() -> Path:
    return _shipped("finder") or DEFAULT_MODEL


class Settings(BaseSettings):
    """Every setting has an environment variable: ``HUPAI_`` + the name in capitals
    (``HUPAI_MODEL``, ``HUPAI_MAX_UPLOAD_BYTES``, ``HUPAI_CORS_ORIGINS`` …)."""

    model_config = SettingsConfigDict(env_prefix="HUPAI_", extra="ignore")

    model: Path = Field(
        default_factory=_shipped_finder,
        description="the ONNX tile finder or detector (a .json beside it)",
    )
    namer: Path | None = Field(
        default_factory=lambda: _shipped("namer"),
        description="the ONNX tile namer (a .json beside it); none: the detector names",
    )
    models: Path | None = Field(
        None,
        description="a model folder whose reader.json names the finder and the namer (as "
        "`hupai retrain` writes one); given, it replaces model and namer",
    )
    host: str = Field("127.0.0.1", description="address `hupai serve` listens on")
    port: int = Field(8000, ge=0, le=65535, description="port `hupai serve` listens on")
    max_upload_bytes: int = Field(
        15 * 1024 * 1024, ge=1024, description="largest photo accepted (bytes); larger is 413"
    )
    max_json_bytes: int = Field(
        64 * 1024, ge=1024, description="largest JSON request body (bytes); larger is 413"
    )
    max_pixels: int = Field(
        50_000_000, ge=256, description="largest photo accepted (width × height); larger is 413"
    )
    threads: int | None = Field(
        None, ge=1, description="onnxruntime threads per read (default: all cores)"
    )
    read_concurrency: int = Field(
        1, ge=1, le=64, description="photos read at the same time (each in a worker thread)"
    )
    read_timeout: float = Field(
        10.0,
        gt=0,
        le=600,
        description="seconds a photo's reading may take; past it the read stops between "
        "passes and answers 422 read_timeout, freeing its worker",
    )
    max_waiting: int = Field(
        32, ge=1, description="photo requests queued or running at once; more is 503"
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["localhost", "*.localhost", "*.local"],
        description="names the server answers to in the Host header, besides any IP address "
        "(which is always accepted); `*.example.org` patterns; `*` turns the check off (only "
        "behind a proxy that checks it). Others get 421: DNS rebinding on a LAN",
    )
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="origins allowed to call the API from a browser"
    )
    head_timeout: float = Field(
        10.0, gt=0, le=300, description="seconds a connection may take to send a request's head"
    )
    body_timeout: float = Field(
        60.0, gt=0, le=3600, description="seconds a request may take to send its body (a photo)"
    )
    keep_alive: float = Field(
        5.0, gt=0, le=300, description="seconds an idle keep-alive connection stays open"
    )
    annotated_max_side: int = Field(
        1600, ge=64, le=8192, description="the annotated photo is scaled down to this side (px)"
    )
    database_url: str | None = Field(
        None,
        description="the table ledger's database: sqlite:///PATH or postgresql://… "
        "(default: SQLite in $XDG_DATA_HOME/hupai/tables.sqlite3, created on first use)",
    )
    tables_per_hour: int = Field(
        120,
        ge=1,
        description="tables one client (address) may create an hour, after a burst of "
        "tables_burst; more is 429 with Retry-After",
    )
    tables_burst: int = Field(20, ge=1, description="tables one client may create at once")
    annotated_keep: int = Field(
        64, ge=1, description="annotated photos kept in memory for ?image=url (latest first)"
    )

    @field_validator("cors_origins", "allowed_hosts", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        """``a, b`` or a JSON list."""
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                import json

                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _pair_of_the_folder(self) -> Settings:
        """A model folder's pair replaces ``model`` and ``namer`` (a folder without a
        readable ``reader.json``, or missing a file it names, is a setting error)."""
        if self.models is not None:
            from hupai.vision.detector import models_in

            self.model, self.namer = models_in(_in_repo(self.models))
        return self

    def model_file(self) -> Path:
        """The model path as given, or under the repository root when relative and not in
        the working directory (the caller checks that it exists)."""
        return _in_repo(self.model)

    def namer_file(self) -> Path | None:
        return None if self.namer is None else _in_repo(self.namer)


def _in_repo(path: Path) -> Path:
    if path.is_absolute() or path.exists():
        return path
    in_repo = REPO_ROOT / path
    return in_repo if in_repo.exists() else path
