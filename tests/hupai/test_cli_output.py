"""The console command's output: to a reader that stops early; errors the user caused, in a line."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hupai.cli import KNOWN_ERRORS

HUPAI = Path(sys.executable).parent / "hupai"


def test_a_reader_that_stops_reading_gets_no_traceback(tmp_path: Path) -> None:
    """``hupai … | head``: the reader (here ``true``) is gone before hupai writes."""
    request = tmp_path / "hand.json"
    request.write_text(
        json.dumps(
            {
                "city": "shaanxi",
                "hand": "123m456p789s11z555z",
                "win_tile": "5z",
                "win": "discard",
                "winner": 0,
                "discarder": 2,
            }
        )
    )
    done = subprocess.run(
        f"'{HUPAI}' score --pretty '{request}' | true",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stderr == ""


@pytest.mark.parametrize("name", sorted(KNOWN_ERRORS))
def test_each_error_the_cli_prints_in_one_line_names_a_real_exception(name: str) -> None:
    # named, not imported (hupai --help imports no package): a moved class would turn its
    # one-line message back into a traceback without this
    module, _, qualname = name.rpartition(".")
    cls = getattr(importlib.import_module(module), qualname)
    assert issubclass(cls, Exception) and f"{cls.__module__}.{cls.__qualname__}" == name
