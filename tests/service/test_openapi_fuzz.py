"""Schemathesis fuzzes every operation of the OpenAPI document (with the fake reader): no
input, however odd, gets a 5xx, and every error has the documented shape."""

from __future__ import annotations

import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from conftest import FakeReader
from hupai.service.api import get_reader
from hupai.service.app import create_app
from hupai.service.settings import Settings

schemathesis = pytest.importorskip("schemathesis")
# Every check but "schema-valid data is accepted": a photo the schema allows (any bytes) is
# rarely an image, and the score request's city fields are checked by scoring, not the schema.
from schemathesis.specs.openapi.checks import positive_data_acceptance  # noqa: E402

_database = f"sqlite:///{tempfile.mkdtemp(prefix='hupai-fuzz-')}/tables.sqlite3"
# schemathesis calls the app as http://testserver: a name the app must be told it answers to
app = create_app(
    Settings(_env_file=None, database_url=_database, allowed_hosts=["testserver"])  # type: ignore[call-arg]
)
_reader = FakeReader()
app.dependency_overrides[get_reader] = lambda: _reader
schema = schemathesis.openapi.from_asgi("/openapi.json", app)

ERROR_KEYS = {"code", "message", "field", "hint"}


@schema.parametrize()
@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,  # the same cases on every run: CI stays reproducible
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_no_input_gets_a_server_error(case: Any) -> None:
    response = case.call()
    case.validate_response(response, excluded_checks=[positive_data_acceptance])
    if response.status_code >= 400:
        assert set(response.json()) >= ERROR_KEYS, response.text[:300]
