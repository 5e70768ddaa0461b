"""The golden-vector harness of the five cities, written once (test helper module).

``golden/<city>.json`` is a list of vectors ``{id, source, request, expected}``, the seed's
own examples first (ids starting ``seed``). ``expected`` holds ``valid``, ``reason`` and
``deltas``, and may hold ``patterns`` (codes, in order), ``items`` (the keys given are
compared, item by item), ``decomposition`` (the groups as text), ``details`` (the keys
given), ``warning`` (a warning starting with this code), ``spirit_scores`` (Nanchang), or
``error`` (the path of the input error raised instead of a result).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from hupai.scoring import ScoringInputError, result_to_dict, score

GOLDEN_DIR = Path(__file__).parent / "golden"
CITIES = ("nanning", "nanchang", "ningbo", "guiyang", "shaanxi")
#: Cities whose vectors list every warning they expect (no ``warning``: none at all).
WARNINGS_LISTED = frozenset({"ningbo"})
VECTOR_KEYS = {"id", "source", "request", "expected"}


@cache
def _load(city: str) -> tuple[dict[str, Any], ...]:
    path = GOLDEN_DIR / f"{city}.json"
    return tuple(json.loads(path.read_text(encoding="utf-8")))


def golden(city: str) -> list[dict[str, Any]]:
    """The city's vectors (a fresh list; the vectors themselves are shared, do not change
    them)."""
    return list(_load(city))


def vector(city: str, vector_id: str) -> dict[str, Any]:
    (found,) = [v for v in _load(city) if v["id"] == vector_id]
    return found


def all_vectors() -> list[Any]:
    """Every city's vectors as pytest params, ids ``city/vector-id``."""
    return [pytest.param(city, v, id=f"{city}/{v['id']}") for city in CITIES for v in _load(city)]


def cli_vectors() -> list[Any]:
    """The seed's own examples of every city, and every input-error vector."""
    return [
        p
        for p in all_vectors()
        if p.values[1]["id"].startswith("seed") or "error" in p.values[1]["expected"]
    ]


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Score a request as the service and the CLI do, to JSON."""
    return result_to_dict(score(request))


def check_vector(city: str, vector: dict[str, Any], result: dict[str, Any] | None = None) -> None:
    """Score ``vector`` (unless its ``result`` is given) and compare with ``expected``."""
    expected = vector["expected"]
    if "error" in expected:
        with pytest.raises(ScoringInputError) as info:
            score(vector["request"])
        assert info.value.path == expected["error"]
        return
    result = run(vector["request"]) if result is None else result
    check_expected(city, expected, result)


def check_expected(city: str, expected: dict[str, Any], result: dict[str, Any]) -> None:
    assert result["valid"] is expected["valid"], result["message"]
    assert result["reason"] == expected["reason"], result["message"]
    assert result["deltas"] == expected["deltas"]
    assert sum(result["deltas"]) == 0
    if "patterns" in expected:
        assert [p["code"] for p in result["patterns"]] == expected["patterns"]
    if "items" in expected:
        assert len(result["items"]) == len(expected["items"])
        pairs = zip(result["items"], expected["items"], strict=True)
        assert [{k: item[k] for k in want} for item, want in pairs] == expected["items"]
    if "decomposition" in expected:
        groups = " ".join(g["tiles"] for g in result["decomposition"]["groups"])
        assert groups == expected["decomposition"]
    for key, value in expected.get("details", {}).items():
        assert result["details"][key] == value, key
    if "spirit_scores" in expected:
        assert [s["score"] for s in result["details"]["spirits"]] == expected["spirit_scores"]
    if "warning" in expected:
        assert any(w.startswith(expected["warning"] + ":") for w in result["warnings"])
    elif city in WARNINGS_LISTED:
        assert result["warnings"] == []
