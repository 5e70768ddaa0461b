"""Ningbo (seed 002): golden vectors through the scorer and the ``hupai score`` CLI, the baida
and tai tables, options, input errors, and Hypothesis invariants (zero-sum settlement, order
independence of the hand's tiles)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from golden_vectors import golden
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hupai.scoring import ScoringInputError, Tile, get_city, result_to_dict, score
from hupai.scoring.ningbo import (
    MULTIPLIERS,
    TAI_TABLE,
    Baida,
    BaidaMode,
    DragonCycle,
    Multiplier,
    NingboOptions,
    Tai,
)
from hupai.scoring.tiles import HAND_TILES, Suit

GOLDEN = golden("ningbo")
REASONS = {"ok", "below_minimum", "not_a_winning_hand", "baida_cannot_be_claimed"}


# -- golden vectors -----------------------------------------------------------------------------
def test_every_row_multiplier_and_option_has_a_golden_vector() -> None:
    scored = {p for v in GOLDEN for p in v["expected"].get("patterns", [])}
    assert {code.value for code in Tai} <= scored
    assert {code.value for code in Multiplier} <= scored
    used = {k: v for g in GOLDEN for k, v in g["request"].get("options", {}).items()}
    assert set(used) == {"baida_mode", "min_tai", "dragon_cycle"}
    modes = {g["request"].get("options", {}).get("baida_mode") for g in GOLDEN}
    assert {m.value for m in BaidaMode} - {BaidaMode.SEVEN.value} <= modes
    fields = {k for v in GOLDEN for k in v["request"]}
    assert {"indicator", "contract", "flowers", "round_wind", "last_tile", "first_turn"} <= fields


# -- the rule tables ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("flipped", "mode", "wild"),
    [
        ("3s", BaidaMode.SEVEN, "34s"),
        ("9s", BaidaMode.SEVEN, "19s"),
        ("9m", BaidaMode.SEVEN, "19m"),
        ("1z", BaidaMode.SEVEN, "12z"),
        ("4z", BaidaMode.SEVEN, "14z"),
        ("6z", BaidaMode.SEVEN, "67z"),
        ("7z", BaidaMode.SEVEN, "57z"),
        ("5z", BaidaMode.SEVEN, "56z"),
        ("3s", BaidaMode.THREE, "3s"),
        ("3s", BaidaMode.NEXT_ONLY, "4s"),
        ("8f", BaidaMode.SEVEN, "1234567f"),
        ("8f", BaidaMode.NEXT_ONLY, "1234567f"),
    ],
)
def test_baida_from_the_indicator(flipped: str, mode: BaidaMode, wild: str) -> None:
    assert str(Baida.of(Tile.parse(flipped), mode)) == wild


def test_other_dragon_cycle() -> None:
    cycle = DragonCycle.GREEN_WHITE_RED
    assert str(Baida.of(Tile.parse("6z"), BaidaMode.SEVEN, cycle)) == "56z"
    assert str(Baida.of(Tile.parse("5z"), BaidaMode.SEVEN, cycle)) == "57z"


def test_tai_table_holds_the_seed_figures() -> None:
    tens = {Tai.EIGHT_FLOWERS, Tai.ALL_HONORS, Tai.HEAVENLY, Tai.EARTHLY}
    expected = {code: 10 if code in tens else 1 for code in Tai}
    expected |= {Tai.PURE_SUIT: 4, Tai.HALF_PURE: 2, Tai.ALL_TRIPLETS: 2}
    assert {code: row.tai for code, row in TAI_TABLE.items()} == expected
    assert {code: row.tai for code, row in MULTIPLIERS.items()} == {
        Multiplier.KONG_WIN: 2,
        Multiplier.ROBBED_KONG: 5,
        Multiplier.CONTRACT: 5,
    }


def test_options_are_documented_with_the_spec_defaults() -> None:
    described = {o["name"]: o for o in get_city("ningbo").describe()["options"]}
    assert described["baida_mode"]["default"] == "seven"
    assert described["baida_mode"]["enum"] == ["seven", "three", "next_only"]
    assert described["min_tai"]["default"] == 4
    assert described["dragon_cycle"]["default"] == "green_red_white"
    assert all(o["doc"] for o in described.values())
    assert NingboOptions().baida_mode is BaidaMode.SEVEN


def test_table_fields_are_described() -> None:
    fields = {f["name"]: f for f in get_city("ningbo").describe()["fields"]}
    assert set(fields) == {"indicator", "contract"}
    assert fields["indicator"]["required"] is True
    assert fields["contract"]["nullable"] is True


# -- details, messages, errors ------------------------------------------------------------------
BASE: dict[str, Any] = {
    "city": "ningbo",
    "indicator": "3s",
    "hand": "123m456m789p555z1z4s",
    "win_tile": "4s",
    "win": "self_draw",
    "winner": 1,
}


def test_result_reports_the_reading_wait_and_multiplier() -> None:
    out = result_to_dict(score(BASE))
    assert out["wait"] == "single"
    assert out["decomposition"]["wilds"] == {
        "tiles": "4s",
        "stand_for": "1z",
        "at_face_value": "",
        "as_wild": "4s",
    }
    assert out["details"] == {"indicator": "3s", "baida": "34s", "tai": 5, "multiplier": 1}
    assert all(p["unit"] == "tai" for p in out["patterns"])


def test_flower_baida_are_reported_as_the_flowers_held() -> None:
    result = score({**BASE, "indicator": "8f", "hand": "123m456m789p555z1z2f", "win_tile": "2f"})
    assert result.valid
    assert result.decomposition is not None
    assert [str(t) for t in result.decomposition.wild_tiles] == ["2f"]
    assert [str(t) for t in result.decomposition.as_wild] == ["2f"]


def test_below_minimum_keeps_the_reading_and_patterns() -> None:
    result = score({**BASE, "options": {"min_tai": 6}})
    assert result.reason == "below_minimum"
    assert "5 tai" in result.message and "6" in result.message
    assert result.decomposition is not None
    assert sum(p.value for p in result.patterns) == 5


def test_three_melds_from_one_seat_without_a_contract_warns() -> None:
    result = score(
        {
            "city": "ningbo",
            "indicator": "4z",
            "hand": "345s11m",
            "melds": [
                {"tiles": "555z", "from": 3},
                {"tiles": "666z", "from": 3},
                {"tiles": "222p", "from": 3},
            ],
            "win_tile": "1m",
            "win": "self_draw",
            "winner": 1,
        }
    )
    assert result.deltas == (-5, 15, -5, -5)
    assert any(w.startswith("melds:") and "contract=3" in w for w in result.warnings)


def test_contract_accepts_melds_whose_source_is_unknown() -> None:
    melds = [{"tiles": "555z"}, {"tiles": "666z"}, {"tiles": "222p", "from": 3}]
    result = score(
        {
            "city": "ningbo",
            "indicator": "4z",
            "hand": "345s11m",
            "melds": melds,
            "win_tile": "1m",
            "win": "self_draw",
            "winner": 1,
            "contract": 3,
        }
    )
    assert result.deltas == (0, 25, 0, -25)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"melds": [{"tiles": "444s", "from": 0}], "hand": "123m456m777z55z", "win_tile": "5z"},
            r"melds\[0\]\.tiles: '444s' holds baida 4s \(indicator 3s\)",
        ),
        ({"flowers": "1f", "indicator": "3f"}, r"flowers: '1f' laid aside, but the flipped flower"),
        ({"hand": "123m456m789p555z1z2f", "win_tile": "2f"}, r"hand: '2f' is a flower"),
        ({"contract": 1}, r"contract: 1 is the winner's own seat"),
        ({"contract": 2}, r"contract: seat 2 is named, but only 0 of the winner's melds"),
        ({"indicator": None}, r"indicator: .*not a tile"),
        ({"options": {"baida_mode": "four"}}, r"options\.baida_mode: 'four' is not one of"),
        ({"options": {"min_tai": -1}}, r"options\.min_tai: -1 is outside 0-1000"),
        ({"indicator": "4s", "hand": "4444s56s123m555z11z", "win_tile": "1z"}, r"5 copies of 4s"),
    ],
)
def test_input_errors_name_the_field(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ScoringInputError, match=message):
        score({**BASE, **overrides})


# -- Hypothesis: zero-sum and order independence -----------------------------------------------
SUITED = [t for t in HAND_TILES if t.is_numbered]
FLOWERS = [Tile(Suit.FLOWER, r) for r in range(1, 9)]


@st.composite
def winning_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A random legal Ningbo request whose tiles form four sets and a pair, some of them
    then swapped for baida (a flower indicator: flowers in the hand), with random melds
    (never of baida), method, flowers, contract and options."""
    indicator = draw(st.sampled_from([*HAND_TILES, *FLOWERS]))
    options = {
        "baida_mode": draw(st.sampled_from([m.value for m in BaidaMode])),
        "min_tai": draw(st.integers(0, 8)),
        "dragon_cycle": draw(st.sampled_from([c.value for c in DragonCycle])),
    }
    baida = Baida.of(
        indicator, BaidaMode(options["baida_mode"]), DragonCycle(options["dragon_cycle"])
    )
    copies: Counter[Tile] = Counter([indicator])

    def take(tiles: list[Tile]) -> bool:
        need = Counter(tiles)
        if any(copies[t] + n > (1 if t.is_flower else 4) for t, n in need.items()):
            return False
        copies.update(need)
        return True

    winner = draw(st.integers(0, 3))
    others = [s for s in range(4) if s != winner]
    plain = [t for t in HAND_TILES if t not in baida.kinds]
    melds: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["pung", "kong", "added_kong", "concealed_kong", "chow"]))
        if kind == "chow":
            low = draw(st.sampled_from([t for t in SUITED if t.rank <= 7]))
            tiles = [Tile(low.suit, low.rank + i) for i in range(3)]
            if any(t in baida.kinds for t in tiles):
                continue
        else:
            tile = draw(st.sampled_from(HAND_TILES if kind == "concealed_kong" else plain))
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

    # swap some tiles for baida: a wild keeps the hand a win
    spare = [t for t in sorted(baida.kinds | baida.flowers) for _ in range(4 - copies[t])]
    spare = [t for t in spare if not t.is_flower or copies[t] == 0]
    swaps = draw(st.integers(0, min(7, len(spare))))
    rng = random.Random(draw(st.integers(0, 2**16)))
    for wild in rng.sample(spare, swaps):
        spots = [i for i, t in enumerate(concealed) if t not in baida]
        if not spots or not take([wild]):
            continue
        spot = rng.choice(spots)
        copies[concealed[spot]] -= 1
        concealed[spot] = wild

    win_tile = draw(st.sampled_from(concealed))
    has_kong = any(m["kind"] in ("kong", "added_kong", "concealed_kong") for m in melds)
    methods = ["self_draw", "discard"] + (["kong_replacement"] if has_kong else [])
    if copies[win_tile] <= 1 and not win_tile.is_flower:
        methods.append("robbed_kong")
    method = draw(st.sampled_from(methods))
    request: dict[str, Any] = {
        "city": "ningbo",
        "indicator": str(indicator),
        "hand": [str(t) for t in concealed],
        "win_tile": str(win_tile),
        "melds": melds,
        "win": method,
        "winner": winner,
        "round_wind": draw(st.sampled_from(["1z", "2z", "3z", "4z"])),
        "last_tile": draw(st.booleans()),
        "first_turn": draw(st.booleans()),
        "options": options,
    }
    if method in ("discard", "robbed_kong"):
        request["discarder"] = draw(st.sampled_from(others))
    if not indicator.is_flower:
        free = [f for f in FLOWERS if f != indicator]
        request["flowers"] = "".join(
            str(f) for f in draw(st.lists(st.sampled_from(free), unique=True))
        )
    claimed = Counter(m.get("from") for m in melds if "from" in m)
    contracted = [seat for seat, n in claimed.items() if n >= 3]
    if contracted and draw(st.booleans()):
        request["contract"] = contracted[0]
    return request


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(winning_requests())
def test_settlement_is_zero_sum_and_matches_the_tai(request: dict[str, Any]) -> None:
    result = score(request)
    assert result.reason in REASONS
    assert sum(result.deltas) == 0
    if result.reason == "not_a_winning_hand":
        # only a natural winning hand can fail: when baida are swapped in, it stays a win
        # unless a swap broke the 4-copies limit of a value (never here) — so never
        pytest.fail(f"built a winning hand, scored as not winning: {request}")
    if not result.valid:
        assert result.deltas == (0, 0, 0, 0)
        return
    tai = sum(p.value for p in result.patterns if p.unit == "tai")
    factor = 1
    for p in result.patterns:
        if p.unit == "x":
            factor *= p.value
    assert tai >= request["options"]["min_tai"]
    payers = (
        1
        if (
            request.get("contract") is not None
            or (request["win"] != "self_draw" and request["win"] != "kong_replacement")
        )
        else 3
    )
    assert result.deltas[request["winner"]] == tai * factor * payers


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(winning_requests(), st.randoms(use_true_random=False))
def test_order_of_the_hand_does_not_matter(request: dict[str, Any], rnd: random.Random) -> None:
    shuffled = list(request["hand"])
    rnd.shuffle(shuffled)
    first = result_to_dict(score(request))
    second = result_to_dict(score({**request, "hand": shuffled}))
    assert first == second


# -- the free-group shortcut against brute force ------------------------------------------------
def brute_force_tai(request: dict[str, Any]) -> int:
    """The most tai over every completion of every reading: each set or pair made only of
    baida tried as every pung, chow and pair (``Decomposition.expand``), waits from
    ``Decomposition.waits`` — none of the shortcuts of ``hupai.scoring.ningbo._options``."""
    from hupai.scoring.decompose import all_pairs, all_sets
    from hupai.scoring.ningbo import (
        READING_PATTERNS,
        SITUATION_PATTERNS,
        WAIT_PATTERNS,
        Reading,
        Situation,
        _limits,
        _meld_group,
        _readings,
    )
    from hupai.scoring.request import parse_request

    parsed = parse_request(request, get_city("ningbo"))
    hand, win, options = parsed.hand, parsed.win, parsed.options
    baida = Baida.of(parsed.table.indicator, options.baida_mode, options.dragon_cycle)
    limits = _limits(hand, baida)
    kong = any(m.is_concealed and m.tile in baida for m in hand.melds)
    situation = Situation(win, hand.win_tile, hand.win_tile in baida, hand.flowers, kong)

    def tai(hits: Any) -> int:
        return sum(TAI_TABLE[code].tai * n for code, n in hits)

    fixed = tai((c, r(situation)) for c, r in SITUATION_PATTERNS)
    melds = tuple(_meld_group(m) for m in hand.melds)
    best = -1
    for reading in _readings(hand, baida, limits):
        for e in reading.expand(all_sets(), all_pairs()):
            used = Counter(t.index for t in e.values)
            if any(n > limits[i] for i, n in used.items()):
                continue
            assert e.pair is not None
            view = Reading.of(
                e.sets + melds, e.pair, bool(e.wild_tiles), bool(e.as_wild), bool(e.at_face_value)
            )
            base = tai((c, r(view, situation)) for c, r in READING_PATTERNS)
            waits = [
                tai((c, r(w, situation)) for c, r in WAIT_PATTERNS) for w in e.waits(hand.win_tile)
            ]
            best = max(best, fixed + base + max(waits, default=0))
    return best


@pytest.mark.parametrize(
    ("indicator", "hand", "win_tile", "winner"),
    [
        ("3s", "3334444s123m456p7z", "4s", 0),  # two free sets, or a free set and pair
        ("6p", "6667777p9s55m6m543s", "7p", 0),
        ("1z", "1112222z56z99m123p", "9m", 1),  # honor baida: free honor pungs
        ("8f", "1234567f567z11m99p", "1f", 2),  # seven flower baida
    ],
)
def test_free_baida_groups_score_as_brute_force(
    indicator: str, hand: str, win_tile: str, winner: int
) -> None:
    request = {
        "city": "ningbo",
        "indicator": indicator,
        "hand": hand,
        "win_tile": win_tile,
        "win": "self_draw",
        "winner": winner,
        "options": {"min_tai": 0},
    }
    assert score(request).details["tai"] == brute_force_tai(request)
