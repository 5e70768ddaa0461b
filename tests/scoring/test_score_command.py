"""``hupai score``: a request file or stdin in, the JSON result out; bad input → exit 2."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import toy_city

from hupai.cli import main
from hupai.scoring import register
from hupai.scoring.registry import unregister

REQUEST = {
    "city": "toy",
    "hand": "123m456p789s11z555z",
    "win_tile": "5z",
    "win": "discard",
    "winner": 1,
    "discarder": 0,
}


@pytest.fixture(autouse=True)
def toy() -> Iterator[None]:
    register(toy_city.CITY)
    yield
    unregister("toy")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["score", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_scores_a_request_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "req.json"
    path.write_text(json.dumps(REQUEST), encoding="utf-8")
    code, out, _ = run([str(path)], capsys)
    assert code == 0
    result = json.loads(out)
    assert result["valid"] is True and result["deltas"] == [-1, 1, 0, 0]
    assert out.count("\n") == 1  # one line unless --pretty


def test_reads_stdin_and_pretty_prints(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(REQUEST)))
    code, out, _ = run(["-", "--pretty"], capsys)
    assert code == 0 and out.startswith("{\n  ")


def test_a_hand_that_does_not_win_is_a_result(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        "sys.stdin", io.StringIO(json.dumps({**REQUEST, "hand": "123m456p789s12z555z"}))
    )
    code, out, _ = run(["-"], capsys)
    assert code == 0 and json.loads(out)["reason"] == "not_a_winning_hand"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"city": "toy",}', "hupai score: stdin: not valid JSON: Expecting property name"),
        ('{"city": "toy", "city": "toy"}', "hupai score: stdin: key 'city' appears twice"),
        ("", "hupai score: stdin: empty; expected a JSON request object"),
        ('{"a": NaN}', "hupai score: stdin: not valid JSON: NaN is not a JSON number"),
        (json.dumps({**REQUEST, "winner": 9}), "hupai score: winner: 9 is not a seat"),
        (json.dumps({**REQUEST, "city": "x"}), "hupai score: city: 'x' is not a known city"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    text: str, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    code, out, err = run(["-"], capsys)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([str(tmp_path / "nope.json")], capsys)
    assert code == 2 and "nope.json: no such file" in err


def test_lists_the_cities(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--cities"], capsys)
    assert code == 0 and "toy" in [c["name"] for c in json.loads(out)]
