"""``hupai serve``: the HTTP API and the phone web page (docs/service.md), under uvicorn."""

from __future__ import annotations

import argparse

from hupai.cli import add_models_option


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the HTTP API and the phone web page",
        description=(
            "Start the FastAPI service: the web page at /, the API under /v1, OpenAPI at "
            "/docs. Every setting also reads an environment variable (HUPAI_MODEL, "
            "HUPAI_HOST, HUPAI_PORT, HUPAI_MAX_UPLOAD_BYTES, HUPAI_MAX_PIXELS, HUPAI_THREADS, "
            "HUPAI_READ_CONCURRENCY, HUPAI_CORS_ORIGINS …); an option given here wins."
        ),
    )
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default 8000)")
    parser.add_argument("--model", help="ONNX finder (default: models/reader.json)")
    parser.add_argument("--namer", help="ONNX namer (default: models/reader.json)")
    add_models_option(parser)
    parser.add_argument("--threads", type=int, help="onnxruntime threads per read")
    parser.add_argument(
        "--read-concurrency", type=int, help="photos read at the same time (default 1)"
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="uvicorn log level (default info)",
    )
    parser.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from hupai.cli import UserError, as_user_error
    from hupai.service.reader import ModelMissingError, check_model
    from hupai.service.settings import Settings

    given = {
        "host": args.host,
        "port": args.port,
        "model": args.model,
        "namer": args.namer,
        "models": args.models,
        "threads": args.threads,
        "read_concurrency": args.read_concurrency,
    }
    try:
        settings = Settings(**{k: v for k, v in given.items() if v is not None})
    except ValidationError as exc:
        first = exc.errors()[0]
        if not first["loc"]:  # a check of several settings (--models): its message says all
            raise UserError(first["msg"].removeprefix("Value error, ")) from None
        where = ".".join(str(p) for p in first["loc"])
        raise UserError(f"{where}: {first['msg']} (got {first.get('input')!r})") from None
    with as_user_error(ModelMissingError):
        check_model(settings.model_file(), settings.namer_file())  # one line, before uvicorn

    import sys

    import uvicorn

    from hupai.ledger.store import Ledger
    from hupai.service.app import create_app

    # where the tables are kept (opened on the first table request, not now)
    print(f"hupai serve: tables in {Ledger(settings.database_url).safe_url}", file=sys.stderr)
    from hupai.service.protocol import server_options

    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=args.log_level,
        **server_options(settings),
    )
    return 0
