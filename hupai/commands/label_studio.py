"""``hupai label-studio serve``: the ML backend Label Studio calls for pre-labels and to
start retraining (hupai/labeling/backend.py; docs/labeling.md)."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from hupai.cli import UserError, add_models_option


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "label-studio", help="Label Studio ML backend: pre-labels and retraining"
    )
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    serve = sub.add_parser(
        "serve",
        help="serve the ML backend (the URL to give in a project's Model settings)",
        description=(
            "Answer Label Studio's ML backend protocol (health, setup, predict, webhook, "
            "train, status) with hupai's reading. LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY, "
            "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT, BASIC_AUTH_USER and BASIC_AUTH_PASS are "
            "read when the options are left out."
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=9090, help="port (default 9090)")
    add_models_option(serve)
    serve.add_argument(
        "--label-studio-url",
        help="Label Studio's address: photos, storage URIs and annotations come from it (and "
        "the local files root) only; the address Label Studio sends at setup is not used",
    )
    serve.add_argument(
        "--api-key",
        help="a Label Studio API key (legacy token or personal access token) to fetch photos "
        "and export annotations; sent to --label-studio-url only",
    )
    serve.add_argument(
        "--local-files-root",
        type=Path,
        help="read /data/local-files/ photos from this folder (Label Studio's "
        "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT) instead of through Label Studio",
    )
    serve.add_argument(
        "--read-concurrency", type=int, default=1, help="photos read at once (default 1)"
    )
    serve.add_argument(
        "--read-timeout", type=float, default=30.0, help="seconds per task (default 30)"
    )
    serve.add_argument("--threads", type=int, help="onnxruntime threads per read")
    serve.add_argument(
        "--retrain-out",
        type=Path,
        default=Path("retrained"),
        help="model folder Start Training writes (default ./retrained)",
    )
    serve.add_argument(
        "--retrain-args",
        default="",
        help="more `hupai retrain` options for Start Training, as one string "
        "('--epochs 2 --real-test-limit 40')",
    )
    serve.add_argument(
        "--basic-auth",
        metavar="USER:PASSWORD",
        help="ask every request for these HTTP Basic credentials (give them in the project's "
        "Model connection, Basic Authentication); without them training cannot be started",
    )
    serve.add_argument(
        "--max-body-mb",
        type=float,
        default=16.0,
        help="largest request body in MiB (default 16; a /train carries annotations)",
    )
    serve.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    serve.set_defaults(handler=_serve, model=None, namer=None)


def model_version(finder: Path, namer: Path) -> str:
    """The pair's name and version, with each model's (what Label Studio shows)."""
    import json

    from hupai.vision.detector import PAIR_FILE

    def named(path: Path) -> str:
        meta = json.loads(path.with_suffix(".json").read_text())
        return f"{meta.get('name', path.stem)} {meta.get('version', '?')}"

    pair_file = namer.parent / PAIR_FILE
    pair = json.loads(pair_file.read_text()) if pair_file.is_file() else {}
    head = f"{pair.get('name', 'hupai')} {pair.get('version', '')}".strip()
    return f"{head} ({named(finder)} + {named(namer)})"


def _serve(args: argparse.Namespace) -> int:
    import logging

    from hupai.labeling.backend import BackendOptions
    from hupai.vision.detector import SHIPPED_MODELS, models_in

    if args.read_concurrency < 1 or args.read_timeout <= 0 or args.max_body_mb <= 0:
        raise UserError(
            "--read-concurrency must be 1 or more, --read-timeout and --max-body-mb above 0"
        )
    if args.model:
        finder, namer = Path(args.model), Path(args.namer)
    else:
        finder, namer = models_in(SHIPPED_MODELS)
    root = args.local_files_root or os.environ.get("LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT")
    if root is not None and not Path(root).is_dir():
        raise UserError(f"--local-files-root {root}: no such folder")
    opts = BackendOptions(
        finder=finder,
        namer=namer,
        model_version=model_version(finder, namer),
        label_studio_url=args.label_studio_url or os.environ.get("LABEL_STUDIO_URL"),
        api_key=args.api_key or os.environ.get("LABEL_STUDIO_API_KEY"),
        local_files_root=None if root is None else Path(root),
        read_concurrency=args.read_concurrency,
        read_timeout=args.read_timeout,
        threads=args.threads,
        retrain_out=args.retrain_out,
        retrain_args=tuple(shlex.split(args.retrain_args)),
        basic_auth=basic_auth(args.basic_auth),
        max_body_bytes=int(args.max_body_mb * 2**20),
    )
    import uvicorn

    from hupai.labeling.backend_app import create_app
    from hupai.service.protocol import server_options

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(message)s")
    app = create_app(opts)  # the models load now: setup and health answer at once
    print(f"hupai label-studio: {opts.model_version} at http://{args.host}:{args.port}")
    if opts.basic_auth is None:
        print(
            "hupai label-studio: no --basic-auth: any client that reaches this port may ask for "
            "predictions, and training cannot be started"
        )
    uvicorn.run(
        app, host=args.host, port=args.port, log_level=args.log_level, **server_options(opts)
    )
    return 0


def basic_auth(given: str | None) -> tuple[str, str] | None:
    """``USER:PASSWORD`` from the option, else BASIC_AUTH_USER and BASIC_AUTH_PASS (the
    names Label Studio's own ML backends read), else None."""
    if given is None:
        user, password = os.environ.get("BASIC_AUTH_USER"), os.environ.get("BASIC_AUTH_PASS")
        if not user and not password:
            return None
        given = f"{user or ''}:{password or ''}"
    user, sep, password = given.partition(":")
    if not sep or not user or not password:
        raise UserError("--basic-auth: give USER:PASSWORD, both not empty")
    return user, password
