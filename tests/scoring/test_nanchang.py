"""Nanchang (seed 001): golden vectors through the scorer and the ``hupai score`` CLI, the
rule tables, options, warnings, and Hypothesis invariants (zero-sum, order independence)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from golden_vectors import golden
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hupai.scoring import ScoringInputError, get_city, result_to_dict, score
from hupai.scoring.decompose import all_sets
from hupai.scoring.hand import MeldKind, previous_seat
from hupai.scoring.nanchang import (
    BASE_ROWS,
    KONG_PAYOUT,
    MULTIPLIERS,
    BaseCode,
    DragonCycle,
    Holding,
    MultiplierCode,
    NanchangOptions,
    PaymentModel,
    Spirits,
    SpiritSettlement,
    VirtuousMode,
    explosive,
)
from hupai.scoring.tiles import HAND_TILES, Tile, format_tiles

GOLDEN = golden("nanchang")
IDS = [v["id"] for v in GOLDEN]


# -- golden vectors -----------------------------------------------------------------------------
def test_every_row_multiplier_and_option_has_a_golden_vector() -> None:
    scored = {p for v in GOLDEN for p in v["expected"].get("patterns", [])}
    assert {row.code.value for row in BASE_ROWS} <= scored
    assert {m.code.value for m in MULTIPLIERS} <= scored
    used = {(k, o) for v in GOLDEN for k, o in v["request"].get("options", {}).items()}
    assert {k for k, _ in used} == {"dragon_cycle", "virtuous_mode", "payment_model"}
    assert {("virtuous_mode", "no_spirits"), ("virtuous_mode", "off")} <= used
    assert ("payment_model", "all_pay") in used
    assert ("dragon_cycle", "red_green_white") in used


def test_golden_file_holds_the_whole_explosive_table() -> None:
    ids = set(IDS)
    assert {f"seed-explosive-{t}" for t in range(5, 11)} <= ids


# -- rule tables ----------------------------------------------------------------------------------
def test_base_rows_hold_the_seed_figures() -> None:
    figures = {row.code: row.points for row in BASE_ROWS}
    assert figures == {
        BaseCode.PLAIN: 1,
        BaseCode.SEVEN_PAIRS: 2,
        BaseCode.BIG_SEVEN_PAIRS: 4,
        BaseCode.THIRTEEN_MISFITS: 2,
        BaseCode.SEVEN_STAR_MISFITS: 4,
        BaseCode.HEAVENLY: 20,
        BaseCode.EARTHLY: 20,
    }


def test_multipliers_hold_the_seed_figures() -> None:
    figures = {m.code: (m.factor, m.bonus) for m in MULTIPLIERS}
    assert figures == {
        MultiplierCode.SELF_DRAW: (2, 0),
        MultiplierCode.ROBBING_KONG: (2, 0),
        MultiplierCode.SPIRIT_FISHING: (2, 0),
        MultiplierCode.VIRTUOUS_COUNTRY: (2, 5),
        MultiplierCode.TRUE_VIRTUOUS: (4, 5),
    }


def test_kong_payouts_hold_the_seed_figures() -> None:
    assert KONG_PAYOUT == {MeldKind.CONCEALED_KONG: 2, MeldKind.KONG: 1, MeldKind.ADDED_KONG: 1}


def test_explosive_table_matches_the_seed() -> None:
    # "5 points x 2, 6 points x 3, 7 points x 4, 8 points x 5, 9 points x 6, 10 points x 7"
    seed = {5: 5 * 2, 6: 6 * 3, 7: 7 * 4, 8: 8 * 5, 9: 9 * 6, 10: 10 * 7}
    assert {t: explosive(t) for t in seed} == seed
    assert [explosive(t) for t in range(5)] == [0, 1, 2, 3, 4]


def test_spirit_kong_adds_ten_after_the_explosive_bonus() -> None:
    assert Holding(primary=2, secondary=4, kongs=1).score == 8 * 5 + 10


def test_indomitable_doubles_only_a_lone_holder() -> None:
    assert SpiritSettlement.of({1: Holding(1, 0)}).scores == (0, 4, 0, 0)
    assert SpiritSettlement.of({1: Holding(1, 0), 2: Holding(0, 1)}).scores == (0, 2, 1, 0)
    assert SpiritSettlement.of({}).settlement().items == ()


@pytest.mark.parametrize(
    ("indicator", "secondary", "cycle"),
    [
        ("3s", "4s", DragonCycle.GREEN_RED_WHITE),
        ("9p", "1p", DragonCycle.GREEN_RED_WHITE),
        ("1z", "2z", DragonCycle.GREEN_RED_WHITE),
        ("4z", "1z", DragonCycle.GREEN_RED_WHITE),
        ("6z", "7z", DragonCycle.GREEN_RED_WHITE),
        ("7z", "5z", DragonCycle.GREEN_RED_WHITE),
        ("5z", "6z", DragonCycle.GREEN_RED_WHITE),
        ("7z", "6z", DragonCycle.RED_GREEN_WHITE),
        ("6z", "5z", DragonCycle.RED_GREEN_WHITE),
        ("5z", "7z", DragonCycle.RED_GREEN_WHITE),
    ],
)
def test_spirits_from_the_indicator(indicator: str, secondary: str, cycle: DragonCycle) -> None:
    spirits = Spirits.of(Tile.parse(indicator), cycle)
    assert (str(spirits.primary), str(spirits.secondary)) == (indicator, secondary)


# -- options and fields -------------------------------------------------------------------------
def test_options_are_documented_with_the_spec_defaults() -> None:
    described = {o["name"]: o for o in get_city("nanchang").describe()["options"]}
    assert described["dragon_cycle"]["default"] == "green_red_white"
    assert described["virtuous_mode"]["default"] == "natural"
    assert described["payment_model"]["default"] == "discarder"
    assert all(o["doc"] for o in described.values())
    defaults = NanchangOptions()
    assert defaults.virtuous_mode is VirtuousMode.NATURAL
    assert defaults.payment_model is PaymentModel.DISCARDER


def test_table_fields_are_described() -> None:
    fields = {f["name"]: f for f in get_city("nanchang").describe()["fields"]}
    assert set(fields) == {"indicator", "spirits"}
    assert fields["indicator"]["required"] is True
    assert fields["spirits"]["items"]["type"] == "object"


def test_unknown_option_value_is_an_error_listing_the_choices() -> None:
    request = {**GOLDEN[0]["request"], "options": {"virtuous_mode": "strict"}}
    with pytest.raises(ScoringInputError, match="natural, no_spirits, off"):
        score(request)


# -- warnings and details -------------------------------------------------------------------------
BASE = {
    "city": "nanchang",
    "hand": "123m456p789s123s22z",
    "win_tile": "2z",
    "win": "discard",
    "winner": 1,
    "discarder": 0,
    "indicator": "5m",
}


def test_missing_seats_are_warned_about() -> None:
    result = score(BASE)
    assert len(result.warnings) == 1
    assert "0 (East), 2 (West), 3 (North) not given" in result.warnings[0]
    assert "true virtuous" in result.warnings[0]


def test_no_warning_when_every_seat_is_given() -> None:
    result = score({**BASE, "spirits": [{"seat": 0}, {"seat": 2}, {"seat": 3}]})
    assert result.warnings == ()


def test_first_turn_without_heavenly_or_earthly_is_warned_about() -> None:
    result = score({**BASE, "discarder": 2, "first_turn": True})
    assert [p.code for p in result.patterns] == ["plain", "virtuous_country"]
    assert any("first_turn" in w for w in result.warnings)


def test_details_name_the_spirits_and_the_share() -> None:
    details = result_to_dict(score(GOLDEN[0]["request"]))["details"]
    assert (details["primary"], details["secondary"]) == ("3s", "4s")
    assert details["spirits_as_wild"] == "4s"
    assert details["share"] == 2
    assert details["indomitable_seat"] == 1
    assert [s["source"] for s in details["spirits"]] == ["given", "hand", "given", "given"]


def test_the_winner_may_be_listed_when_the_counts_agree() -> None:
    request = {**GOLDEN[0]["request"], "spirits": [{"seat": 1, "secondary": 1}]}
    assert score(request).deltas == score(GOLDEN[0]["request"]).deltas


def test_the_reading_used_is_reported() -> None:
    result = score(GOLDEN[0]["request"])
    assert result.decomposition is not None
    assert format_tiles(result.decomposition.fills) == "9p"


# -- properties -----------------------------------------------------------------------------------
SETS = all_sets(honor_sequences=True)


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """A winning Nanchang request: four sets and a pair, some of them melds, some tiles turned
    into spirits, a random win, options and the other seats' spirits."""
    indicator = draw(st.sampled_from(HAND_TILES))
    spirits = Spirits.of(indicator, draw(st.sampled_from(list(DragonCycle))))
    groups = [list(draw(st.sampled_from(SETS)).tiles) for _ in range(4)]
    pair = draw(st.sampled_from(HAND_TILES))
    copies = Counter([t for g in groups for t in g] + [pair, pair, indicator])
    assume(max(copies.values()) <= 4)
    winner = draw(st.integers(0, 3))
    n_melds = draw(st.integers(0, 3))
    melds: list[dict[str, Any]] = []
    concealed: list[Tile] = [pair, pair]
    for i, group in enumerate(groups):
        if i >= n_melds:
            concealed.extend(group)
            continue
        is_chow = group[0] != group[1]
        kind = "chow" if is_chow else draw(st.sampled_from(["pung", "kong", "concealed_kong"]))
        tiles = group + ([group[0]] if kind in ("kong", "concealed_kong") else [])
        if kind.endswith("kong"):
            copies[group[0]] += 1
        meld: dict[str, Any] = {"kind": kind, "tiles": format_tiles(tiles)}
        if kind == "chow":
            meld["from"] = previous_seat(winner)
        elif kind != "concealed_kong":
            meld["from"] = draw(st.sampled_from([s for s in range(4) if s != winner]))
        melds.append(meld)
    assume(max(copies.values()) <= 4)
    # turn a few concealed tiles into spirits (they stay a win: a spirit is wild)
    rng = random.Random(draw(st.integers(0, 2**16)))
    for _ in range(draw(st.integers(0, 4))):
        kind = rng.choice(sorted(spirits.kinds))
        if copies[kind] >= 4:
            continue
        victim = rng.randrange(len(concealed))
        copies[concealed[victim]] -= 1
        concealed[victim] = kind
        copies[kind] += 1
    win_tile = draw(st.sampled_from(concealed))
    has_kong = any(m["kind"] in ("kong", "concealed_kong") for m in melds)
    methods = ["self_draw", "discard"] + (["kong_replacement"] if has_kong else [])
    all_tiles = concealed + [Tile.parse(t) for m in melds for t in _split(m["tiles"])]
    if all_tiles.count(win_tile) == 1:
        methods.append("robbed_kong")
    method = draw(st.sampled_from(methods))
    request: dict[str, Any] = {
        "city": "nanchang",
        "hand": [str(t) for t in concealed],
        "melds": melds,
        "win_tile": str(win_tile),
        "win": method,
        "winner": winner,
        "indicator": str(indicator),
        "options": {
            "dragon_cycle": spirits_cycle(indicator, spirits),
            "virtuous_mode": draw(st.sampled_from([m.value for m in VirtuousMode])),
            "payment_model": draw(st.sampled_from([m.value for m in PaymentModel])),
        },
    }
    if method in ("discard", "robbed_kong"):
        request["discarder"] = draw(st.sampled_from([s for s in range(4) if s != winner]))
    if not any(m["kind"] != "concealed_kong" for m in melds) and method == "self_draw":
        request["first_turn"] = draw(st.booleans())
    # the other seats' spirits, within the copies left in play
    left = {
        "primary": (4 - copies[spirits.primary]),
        "secondary": (4 - copies[spirits.secondary]),
    }
    entries = []
    for seat in range(4):
        if seat == winner or not draw(st.booleans()):
            continue
        entry: dict[str, Any] = {"seat": seat}
        for name in ("primary", "secondary"):
            n = draw(st.integers(0, left[name]))
            left[name] -= n
            entry[name] = n
        if entry["secondary"] == 4 and draw(st.booleans()):
            entry["kongs"] = 1
        entries.append(entry)
    request["spirits"] = entries
    return request


def spirits_cycle(indicator: Tile, spirits: Spirits) -> str:
    """The cycle whose secondary the strategy drew."""
    for cycle in DragonCycle:
        if Spirits.of(indicator, cycle) == spirits:
            return cycle.value
    raise AssertionError(spirits)


def _split(text: str) -> list[str]:
    from hupai.scoring.tiles import parse_tiles

    return [str(t) for t in parse_tiles(text)]


PROPERTY = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


@PROPERTY
@given(requests())
def test_settlement_is_zero_sum_and_the_hand_wins(request: dict[str, Any]) -> None:
    result = score(request)
    assert result.valid, (request, result.message)
    assert sum(result.deltas) == 0
    assert all(item.amount > 0 for item in result.items)
    winner = request["winner"]
    assert result.settlement.total(payee=winner, group=None) > 0


@PROPERTY
@given(requests(), st.randoms(use_true_random=False))
def test_tile_order_does_not_matter(request: dict[str, Any], rnd: random.Random) -> None:
    shuffled = list(request["hand"])
    rnd.shuffle(shuffled)
    again = {**request, "hand": "".join(shuffled[::-1]) if rnd.random() < 0.5 else shuffled}
    assert result_to_dict(score(again)) == result_to_dict(score(request))
