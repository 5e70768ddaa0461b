"""Golden vectors of the five cities (seed examples first), through the scorer and the
``hupai score`` CLI, and unchanged with every house rule written out at its default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from golden_vectors import (
    CITIES,
    VECTOR_KEYS,
    all_vectors,
    check_expected,
    check_vector,
    cli_vectors,
    golden,
)

from hupai.cli import main as hupai_main
from hupai.scoring import get_city
from hupai.scoring.house import HouseRules


@pytest.mark.parametrize("city", CITIES)
def test_golden_file_is_well_formed(city: str) -> None:
    vectors = golden(city)
    ids = [v["id"] for v in vectors]
    seeds = [i for i in ids if i.startswith("seed")]
    assert len(ids) == len(set(ids))
    assert seeds and ids[: len(seeds)] == seeds  # the seed's own examples come first
    for v in vectors:
        assert set(v) == VECTOR_KEYS
        assert v["request"]["city"] == city
        assert v["source"]


@pytest.mark.parametrize(("city", "vector"), all_vectors())
def test_golden_vector(city: str, vector: dict[str, Any]) -> None:
    check_vector(city, vector)


@pytest.mark.parametrize(("city", "vector"), all_vectors())
def test_golden_vector_holds_with_the_house_rules_off(city: str, vector: dict[str, Any]) -> None:
    """The default reading is unchanged: the house rules written out at their defaults (no
    cap, no dealer double) score every vector as before."""
    off = {"cap": 0, "dealer_double": False}
    assert HouseRules().house_rules == off
    request = {**vector["request"], "options": {**vector["request"].get("options", {}), **off}}
    check_vector(city, {**vector, "request": request})


@pytest.mark.parametrize(("city", "vector"), cli_vectors())
def test_seed_and_error_vectors_through_the_hupai_score_cli(
    city: str, vector: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(vector["request"], ensure_ascii=False), encoding="utf-8")
    code = hupai_main(["score", str(path)])
    out, err = capsys.readouterr()
    if "error" in vector["expected"]:
        assert code == 2
        assert f"hupai score: {vector['expected']['error']}: " in err
        return
    assert code == 0, err
    check_expected(city, vector["expected"], json.loads(out))


@pytest.mark.parametrize("city", CITIES)
def test_every_city_takes_the_house_rules_first(city: str) -> None:
    options = [o["name"] for o in get_city(city).describe()["options"]]
    assert options[:2] == ["cap", "dealer_double"]
