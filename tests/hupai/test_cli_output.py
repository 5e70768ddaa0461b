"""The console command's output going to a reader that stops early."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
