"""docs/schema.md: every example request scores to the result documented beside it.

An example is a ```json block holding a request (it names a ``city`` and has no ``valid``)
followed by a ```json block holding its result. The document shortens some results, and the
comparison reads the shortening the same way:

* a dict with a ``"…"`` key shows only some of its keys; the keys shown must match;
* a dict with a ``"…"`` key inside a list stands for elements left out; the other elements
  must appear in the scored list in that order, and ``"N items in all"`` fixes its length;
* everything else (deltas, reasons, messages, details …) must match exactly.

The prose under an example states variants of it (``deltas`` `[…]`, a quoted warning or
message); ``VARIANTS`` scores them and checks the figures are the ones written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from hupai.scoring import result_to_dict, score
from hupai.scoring.registry import CITY_MODULES

SCHEMA_PATH = Path(__file__).parents[2] / "docs" / "schema.md"
ELLIPSIS = "…"


@dataclass(frozen=True)
class Block:
    """One ```json block of the document, with the section it sits in."""

    line: int
    section: str  # the ``## `` heading, e.g. "Nanchang"
    data: Any  # the parsed JSON, or None when it does not parse
    error: str | None


@dataclass(frozen=True)
class Example:
    id: str
    line: int
    section: str
    request: dict[str, Any]
    result: dict[str, Any]
    prose: str = field(repr=False)  # the section's text, whitespace collapsed


def read_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    section = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        if line.strip() == "```json":
            end = lines.index("```", i + 1)
            source = "\n".join(lines[i + 1 : end])
            try:
                blocks.append(Block(i + 1, section, json.loads(source), None))
            except json.JSONDecodeError as exc:
                blocks.append(Block(i + 1, section, None, str(exc)))
            i = end
        i += 1
    return blocks


def is_request(block: Block) -> bool:
    return isinstance(block.data, dict) and "city" in block.data and "valid" not in block.data


def is_result(block: Block) -> bool:
    return isinstance(block.data, dict) and "valid" in block.data


def section_prose(text: str, section: str) -> str:
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return " ".join(body.split())


def read_examples(text: str) -> list[Example]:
    blocks = read_blocks(text)
    examples: list[Example] = []
    seen: dict[str, int] = {}
    for request, result in pairwise(blocks):
        if not (is_request(request) and is_result(result)):
            continue
        base = f"{request.data['city']}-{request.data.get('kind', 'win')}"
        seen[base] = seen.get(base, 0) + 1
        example_id = base if seen[base] == 1 else f"{base}-{seen[base]}"
        examples.append(
            Example(
                example_id,
                request.line,
                request.section,
                request.data,
                result.data,
                section_prose(text, request.section),
            )
        )
    return examples


SCHEMA_TEXT = SCHEMA_PATH.read_text(encoding="utf-8")
EXAMPLES = {e.id: e for e in read_examples(SCHEMA_TEXT)}


# -- comparing a scored result with a shortened documented one -------------------------------
def is_elision(value: Any) -> bool:
    return isinstance(value, dict) and ELLIPSIS in value


def mismatch(scored: Any, documented: Any, path: str = "result") -> str | None:
    """Where ``scored`` differs from ``documented`` (read with its elisions), or None.

    >>> mismatch({"a": [1, 2, 3], "b": 0}, {"a": [1, {"…": "3 items in all"}], "…": ""})
    >>> mismatch({"deltas": [1, -1]}, {"deltas": [1, 1]})
    'result.deltas[1]: documented 1, scored -1'
    """
    if isinstance(documented, dict):
        return _dict_mismatch(scored, documented, path)
    if isinstance(documented, list):
        return _list_mismatch(scored, documented, path)
    if type(scored) is not type(documented) or scored != documented:
        return f"{path}: documented {documented!r}, scored {scored!r}"
    return None


def _dict_mismatch(scored: Any, documented: dict[str, Any], path: str) -> str | None:
    if not isinstance(scored, dict):
        return f"{path}: documented an object, scored {scored!r}"
    shown = [k for k in documented if k != ELLIPSIS]
    if ELLIPSIS not in documented and set(scored) != set(shown):
        return f"{path}: documented keys {sorted(shown)}, scored {sorted(scored)}"
    for key in shown:
        if key not in scored:
            return f"{path}.{key}: documented, but not in the scored result"
        if (found := mismatch(scored[key], documented[key], f"{path}.{key}")) is not None:
            return found
    return None


def _list_mismatch(scored: Any, documented: list[Any], path: str) -> str | None:
    if not isinstance(scored, list):
        return f"{path}: documented a list, scored {scored!r}"
    shown = [v for v in documented if not is_elision(v)]
    if len(shown) == len(documented):
        if len(scored) != len(documented):
            return f"{path}: documented {len(documented)} elements, scored {len(scored)}"
        for i, (got, want) in enumerate(zip(scored, documented, strict=True)):
            if (found := mismatch(got, want, f"{path}[{i}]")) is not None:
                return found
        return None
    for elision in (v for v in documented if is_elision(v)):
        if (m := re.search(r"(\d+) items in all", str(elision[ELLIPSIS]))) and int(
            m.group(1)
        ) != len(scored):
            return f"{path}: documented {m.group(1)} items in all, scored {len(scored)}"
    rest = iter(enumerate(scored))
    for want in shown:  # the shown elements, in order, as a subsequence of the scored list
        if not any(mismatch(got, want) is None for _, got in rest):
            return f"{path}: documented element not scored (in this order): {want!r}"
    return None


def scored_json(request: dict[str, Any]) -> Any:
    """The result as ``hupai score`` prints it (enums as strings, keys as strings)."""
    return json.loads(json.dumps(result_to_dict(score(request)), ensure_ascii=False))


# -- the examples -----------------------------------------------------------------------------
def test_every_json_block_parses() -> None:
    broken = [f"line {b.line}: {b.error}" for b in read_blocks(SCHEMA_TEXT) if b.error]
    assert broken == []


def test_every_request_has_its_result_and_every_result_its_request() -> None:
    blocks = read_blocks(SCHEMA_TEXT)
    for before, after in zip(blocks, [*blocks[1:], None], strict=True):
        if is_request(before):
            assert after is not None and is_result(after), f"line {before.line}: no result"
        if after is not None and is_result(after):
            assert is_request(before), f"line {after.line}: a result without its request"


def test_every_city_and_the_draw_have_an_example() -> None:
    assert {e.request["city"] for e in EXAMPLES.values()} == set(CITY_MODULES)
    assert any(e.request.get("kind") == "draw" for e in EXAMPLES.values())


@pytest.mark.parametrize("example_id", list(EXAMPLES))
def test_example_sits_in_its_city_section(example_id: str) -> None:
    example = EXAMPLES[example_id]
    assert example.section.lower() == example.request["city"]
    assert example.result["city"] == example.request["city"]


@pytest.mark.parametrize("example_id", list(EXAMPLES))
def test_example_scores_as_documented(example_id: str) -> None:
    example = EXAMPLES[example_id]
    scored = scored_json(example.request)
    for key in ("valid", "reason", "deltas"):  # the headline figures first, for a clear failure
        assert scored[key] == example.result[key], f"line {example.line}: {key}"
    assert sum(scored["deltas"]) == 0
    assert mismatch(scored, example.result) is None


# -- the variants the prose states ------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """The example ``base`` with ``change`` applied and ``drop`` removed scores ``deltas``
    (and ``reason``); the prose writes those deltas and quotes the result's ``quoted`` fields."""

    id: str
    base: str
    deltas: tuple[int, int, int, int]
    change: dict[str, Any] = field(default_factory=dict)
    drop: tuple[str, ...] = ()
    reason: str = "ok"
    quoted: tuple[str, ...] = ()


VARIANTS = [
    Variant("nanning-rows-instead-of-hand-points", "nanning-win", (40, -16, -8, -16),
            drop=("hand_points",)),
    Variant("nanchang-no-spirits-given", "nanchang-win", (-4, 12, -4, -4),
            change={"spirits": []}, quoted=("warnings",)),
    Variant("ningbo-discard-below-minimum", "ningbo-win", (0, 0, 0, 0),
            change={"win": "discard", "discarder": 0}, reason="below_minimum",
            quoted=("message",)),
    Variant("guiyang-seed-check", "guiyang-win", (15, -5, -5, -5),
            drop=("chickens", "rushing_chicken", "kongs")),
    Variant("shaanxi-seed-dealer-discard", "shaanxi-win", (6, 0, -6, 0),
            change={"winner": 0, "discarder": 2}, drop=("paozi",)),
]  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.id for v in VARIANTS])
def test_prose_variant_scores_as_written(variant: Variant) -> None:
    example = EXAMPLES[variant.base]
    request = {k: v for k, v in example.request.items() if k not in variant.drop}
    scored = scored_json({**request, **variant.change})
    assert (scored["reason"], scored["deltas"]) == (variant.reason, list(variant.deltas))
    assert f"`deltas` `{json.dumps(list(variant.deltas))}`" in example.prose
    for key in variant.quoted:
        for text in scored[key] if isinstance(scored[key], list) else [scored[key]]:
            assert text and " ".join(text.split()) in example.prose, key
