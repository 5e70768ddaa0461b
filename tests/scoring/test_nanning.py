"""Nanning (seed 000): golden vectors through the scorer and the ``hupai score`` CLI, the
fishing seat table, options, and Hypothesis invariants (zero-sum, order independence)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from golden_vectors import golden
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hupai.scoring import ScoringInputError, get_city, result_to_dict, score
from hupai.scoring.nanning import (
    ROWS,
    Catch,
    Combine,
    NanningOptions,
    RowCode,
    seat_named_by,
)
from hupai.scoring.tiles import HAND_TILES, Tile

GOLDEN = golden("nanning")


# -- golden vectors -----------------------------------------------------------------------------
def test_every_row_and_option_has_a_golden_vector() -> None:
    scored = {p for v in GOLDEN for p in v["expected"].get("patterns", [])}
    assert {row.code.value for row in ROWS} <= scored
    used = {k for v in GOLDEN for k in v["request"].get("options", {})}
    assert used == {"combine", "min_points", "allow_chow_claim"}
    fields = {k for v in GOLDEN for k in v["request"]}
    assert {"fishing", "sealed", "hand_points"} <= fields


# -- the rule tables ----------------------------------------------------------------------------
SEED_SEATS = {
    0: "1m5m9m1p5p9p1s5s9s1z7z",
    1: "2m6m2p6p2s6s2z6z",
    2: "3m7m3p7p3s7s3z5z",
    3: "4m8m4p8p4s8s4z",
}


def test_every_tile_names_the_seat_of_the_seed_list() -> None:
    named = {seat: sorted(Tile.parse(t) for t in _split(text)) for seat, text in SEED_SEATS.items()}
    for tile in HAND_TILES:
        owners = [seat for seat, tiles in named.items() if tile in tiles]
        assert owners == [seat_named_by(tile)], tile


def _split(text: str) -> list[str]:
    from hupai.scoring.tiles import parse_tiles

    return [str(t) for t in parse_tiles(text)]


def test_fishing_multiplier_counts_winner_and_payer_tiles() -> None:
    catch = Catch.of("1m8s6z", winner=0)
    assert [catch.multiplier(p) for p in (1, 2, 3)] == [4, 2, 4]
    assert Catch.of("", winner=2).multiplier(0) == 1


def test_options_are_documented_with_the_spec_defaults() -> None:
    described = {o["name"]: o for o in get_city("nanning").describe()["options"]}
    assert described["combine"]["default"] == "max"
    assert described["min_points"]["default"] == 9
    assert described["allow_chow_claim"]["default"] is False
    assert all(o["doc"] for o in described.values())
    assert NanningOptions().combine is Combine.MAX


def test_table_fields_are_described() -> None:
    fields = {f["name"]: f for f in get_city("nanning").describe()["fields"]}
    assert set(fields) == {"fishing", "sealed", "hand_points"}
    assert fields["sealed"]["type"] == "object"


def test_rows_hold_the_seed_figures() -> None:
    figures = {row.code: (row.self_draw, row.discard) for row in ROWS}
    assert figures[RowCode.PLAIN] == (3, 2)
    assert figures[RowCode.BIG_SEVEN_PAIRS] == (16, 24)
    assert figures[RowCode.GLOBAL_WIN] == (None, 18)


# -- warnings and details -----------------------------------------------------------------------
BASE: dict[str, Any] = {
    "city": "nanning",
    "hand": "234m567p55s",
    "win_tile": "5s",
    "melds": [
        {"kind": "pung", "tiles": "777z", "from": 0},
        {"kind": "pung", "tiles": "999s", "from": 3},
    ],
    "win": "self_draw",
    "winner": 1,
}


def test_ineligible_fishing_is_ignored_with_a_warning() -> None:
    result = score({**BASE, "fishing": "2s"})
    assert result.deltas == (-3, 9, -3, -3)
    assert any("fishing" in w and "8 tiles" in w for w in result.warnings)
    fishing = result.details["fishing"]
    assert isinstance(fishing, dict) and fishing["eligible"] is False


def test_sealing_without_three_claims_from_the_sealed_seat_warns() -> None:
    result = score({**BASE, "sealed": {"seat": 0, "by": 1}})
    assert result.details["sealing"] == "self_draw"
    assert any(w.startswith("sealed:") for w in result.warnings)


def test_robbed_kong_reports_the_void_payout() -> None:
    result = score(
        {
            "city": "nanning",
            "hand": "123m456m789m789m11m",
            "win_tile": "5m",
            "win": "robbed_kong",
            "winner": 1,
            "discarder": 3,
        }
    )
    assert "robbed_kong" in result.details
    assert all(i.reason == "hand" for i in result.items)


def test_below_minimum_keeps_the_reading_and_patterns() -> None:
    result = score({**BASE, "win": "discard", "discarder": 2})
    assert result.reason == "below_minimum"
    assert [p.code for p in result.patterns] == ["plain"]
    assert result.decomposition is not None


def test_sealed_requires_both_seats() -> None:
    with pytest.raises(ScoringInputError, match=r"sealed\.by: required"):
        score({**BASE, "sealed": {"seat": 2}})


# -- Hypothesis: zero-sum and order independence -----------------------------------------------
SUITED = [t for t in HAND_TILES if t.is_numbered]


@st.composite
def winning_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A random legal Nanning request whose tiles form a win (four sets and a pair, seven
    pairs or thirteen orphans), with random melds, method, fishing, sealing and options."""
    copies: Counter[Tile] = Counter()

    def take(tiles: list[Tile]) -> bool:
        need = Counter(tiles)
        if any(copies[t] + n > 4 for t, n in need.items()):
            return False
        copies.update(need)
        return True

    allow_chow = draw(st.booleans())
    winner = draw(st.integers(0, 3))
    others = [s for s in range(4) if s != winner]
    melds: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(
            st.sampled_from(
                ["pung", "kong", "added_kong", "concealed_kong"] + (["chow"] if allow_chow else [])
            )
        )
        if kind == "chow":
            low = draw(st.sampled_from([t for t in SUITED if t.rank <= 7]))
            tiles = [Tile(low.suit, low.rank + i) for i in range(3)]
        else:
            tile = draw(st.sampled_from(HAND_TILES))
            tiles = [tile] * (3 if kind == "pung" else 4)
        if not take(tiles):
            continue
        meld: dict[str, Any] = {"kind": kind, "tiles": "".join(str(t) for t in tiles)}
        if kind == "chow":
            meld["from"] = (winner + 3) % 4
        elif kind != "concealed_kong":
            meld["from"] = draw(st.sampled_from(others))
        melds.append(meld)

    concealed: list[Tile] = []
    shape = draw(st.sampled_from(["standard", "standard", "seven_pairs", "orphans"]))
    if melds or shape == "standard":
        for _ in range(4 - len(melds)):
            for _attempt in range(20):
                if draw(st.booleans()):
                    low = draw(st.sampled_from([t for t in SUITED if t.rank <= 7]))
                    group = [Tile(low.suit, low.rank + i) for i in range(3)]
                else:
                    group = [draw(st.sampled_from(HAND_TILES))] * 3
                if take(group):
                    concealed += group
                    break
            else:
                assume(False)
        pair_tile = draw(st.sampled_from([t for t in HAND_TILES if copies[t] <= 2]))
        take([pair_tile] * 2)
        concealed += [pair_tile] * 2
    elif shape == "seven_pairs":
        kinds = draw(st.lists(st.sampled_from(HAND_TILES), min_size=6, max_size=7, unique=True))
        pairs = kinds + [kinds[0]] * (7 - len(kinds))  # six kinds: a quad (big seven pairs)
        for tile in pairs:
            assume(take([tile] * 2))
            concealed += [tile] * 2
    else:
        orphans = [t for t in HAND_TILES if t.is_terminal_or_honor]
        concealed = [*orphans, draw(st.sampled_from(orphans))]
        assume(take(concealed))

    win_tile = draw(st.sampled_from(concealed))
    has_kong = any(m["kind"] != "pung" and m["kind"] != "chow" for m in melds)
    methods = ["self_draw", "discard"]
    if has_kong:
        methods.append("kong_replacement")
    if copies[win_tile] == 1:
        methods.append("robbed_kong")
    method = draw(st.sampled_from(methods))
    request: dict[str, Any] = {
        "city": "nanning",
        "hand": [str(t) for t in concealed],
        "win_tile": str(win_tile),
        "melds": melds,
        "win": method,
        "winner": winner,
        "options": {
            "combine": draw(st.sampled_from(["max", "sum"])),
            "min_points": draw(st.integers(0, 20)),
            "allow_chow_claim": allow_chow,
        },
    }
    if method in ("discard", "robbed_kong"):
        request["discarder"] = draw(st.sampled_from(others))
    last_tile = draw(st.booleans())
    request["last_tile"] = last_tile
    if not any(m["kind"] != "concealed_kong" for m in melds):
        request["first_turn"] = draw(st.booleans())
    if not last_tile:
        fishing = [t for t in draw(st.lists(st.sampled_from(HAND_TILES), max_size=3)) if take([t])]
        request["fishing"] = "".join(str(t) for t in fishing)
    if draw(st.booleans()):
        seat, by = draw(st.lists(st.integers(0, 3), min_size=2, max_size=2, unique=True))
        request["sealed"] = {"seat": seat, "by": by}
    if draw(st.integers(0, 4)) == 0:
        request["hand_points"] = draw(st.integers(1, 50))
    return request


FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(winning_requests())
def test_settlement_is_zero_sum_and_the_hand_wins(request: dict[str, Any]) -> None:
    result = score(request)
    assert sum(result.deltas) == 0
    assert sum(i.amount for i in result.items if i.payee == request["winner"]) >= 0
    if result.valid:
        assert result.deltas[request["winner"]] > 0
    else:
        assert result.reason in ("below_minimum", "sealed_player_cannot_win")


@FAST
@given(winning_requests(), st.randoms(use_true_random=False))
def test_result_does_not_depend_on_tile_order(request: dict[str, Any], rnd: Any) -> None:
    shuffled = dict(request)
    tiles = list(request["hand"])
    rnd.shuffle(tiles)
    shuffled["hand"] = tiles
    melds = list(request["melds"])
    rnd.shuffle(melds)
    shuffled["melds"] = melds
    a, b = result_to_dict(score(request)), result_to_dict(score(shuffled))
    assert a["deltas"] == b["deltas"]
    assert a["patterns"] == b["patterns"]
    assert a["decomposition"] == b["decomposition"]
    assert sorted(map(json.dumps, a["items"])) == sorted(map(json.dumps, b["items"]))
