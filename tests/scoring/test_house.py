"""House rules (cap 封顶, dealer double 庄家翻倍) and the city variants (Shaanxi
``pure_suit_double``, Nanchang ``spirit_groups``): each against a worked example computed by
hand in its docstring, and Hypothesis invariants over every golden vector and every
combination of the options (zero-sum, the cap holds, instant payments untouched)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from golden_vectors import CITIES, golden, run, vector
from hypothesis import given, settings
from hypothesis import strategies as st

from hupai.scoring import ScoringInputError

#: The seed's fishing check (000): the dealer self-draws a 5-point hand, fishing 1m 8s 6z.
NANNING_SEED = vector("nanning", "seed-fishing-self-draw")["request"]
#: 004's Pao Zi check: seat 1 wins on seat 3's discard, antes 2 (winner) and 3 (discarder).
SHAANXI_PAOZI = vector("shaanxi", "seed_paozi_loser_3_winner_2_discard")["request"]
#: 002: seat 1 wins 5 tai on the dealer's discard.
NINGBO_DEALER_DISCARDS = vector("ningbo", "seed-discard-win-discarder-pays")["request"]
#: 003's worked example: the dealer self-draws, 3 per payer for the hand, beans and chickens
#: paid at once.
GUIYANG_SEED = vector("guiyang", "seed_worked_example")["request"]


def scored(request: dict[str, Any], **options: Any) -> dict[str, Any]:
    return run({**request, "options": {**request.get("options", {}), **options}})


def items(result: dict[str, Any], reason: str) -> list[tuple[int, int, int]]:
    return [(i["payer"], i["payee"], i["amount"]) for i in result["items"] if i["reason"] == reason]


# -- cap 封顶 -----------------------------------------------------------------------------------
def test_cap_brings_each_payer_down_to_it() -> None:
    """Nanning's seed: shares South 5 × 4 = 20, West 5 × 2 = 10, North 5 × 4 = 20. Cap 15:
    South and North pay 15 (the dealer hands 5 back to each), West's 10 stays:
    deltas (15 + 10 + 15, −15, −10, −15) = (40, −15, −10, −15)."""
    result = scored(NANNING_SEED, cap=15)
    assert result["deltas"] == [40, -15, -10, -15]
    assert items(result, "cap") == [(0, 1, 5), (0, 3, 5)]
    assert result["details"]["house_rules"] == {"cap": 15, "dealer_double": False}


def test_cap_counts_the_whole_hand_of_one_payer() -> None:
    """Shaanxi's Pao Zi check: North pays the hand 3 and Pao Zi (3 + 2) × 1 × 3 = 15, 18 in
    all. Cap 10: seat 1 hands 8 back; deltas (0, 10, 0, −10)."""
    result = scored(SHAANXI_PAOZI, cap=10)
    assert result["deltas"] == [0, 10, 0, -10]
    assert items(result, "cap") == [(1, 3, 8)]


def test_cap_leaves_instant_payments_alone() -> None:
    """Guiyang's worked example: each payer 3 for the hand (1 hand + 1 chicken + 1 bean),
    then 1 for the bean and 1 for the chicken at once. Cap 2: the hand is 2 from each, the
    instant 2 from each stay — deltas (12, −4, −4, −4) instead of (15, −5, −5, −5)."""
    result = scored(GUIYANG_SEED, cap=2)
    assert result["deltas"] == [12, -4, -4, -4]
    assert items(result, "cap") == [(0, 1, 1), (0, 2, 1), (0, 3, 1)]


def test_a_cap_above_the_hand_changes_nothing() -> None:
    """Nanning's seed pays 20 at most: a cap of 20 leaves (50, −20, −10, −20) as it is."""
    result = scored(NANNING_SEED, cap=20)
    assert result["deltas"] == [50, -20, -10, -20]
    assert items(result, "cap") == []


def test_cap_settles_a_drawn_hand_payer_by_payee() -> None:
    """Guiyang's yellow tile: seats not ready pay each ready seat its hand. Seat 0 waits on a
    pure suit (1112345678999p, best 10 points), the others are not ready: each pays 10.
    Cap 4: each pays 4; deltas (12, −4, −4, −4)."""
    hands = [
        {"hand": "1112345678999p"},
        {"hand": "13579m2468s2578p"},
        {"hand": "2468m13579s3568p"},
        {"hand": "1357m1357s24567p"},
    ]
    request = {"city": "guiyang", "kind": "draw", "hands": hands}
    assert run(request)["deltas"] == [30, -10, -10, -10]
    assert scored(request, cap=4)["deltas"] == [12, -4, -4, -4]


# -- dealer double 庄家翻倍 ----------------------------------------------------------------------
def test_dealer_double_doubles_a_dealer_win() -> None:
    """Nanning's seed with the dealer double: 20, 10, 20 become 40, 20, 40; the dealer +100."""
    result = scored(NANNING_SEED, dealer_double=True)
    assert result["deltas"] == [100, -40, -20, -40]
    assert items(result, "dealer_double") == [(1, 0, 20), (2, 0, 10), (3, 0, 20)]


def test_dealer_double_doubles_what_the_dealer_pays() -> None:
    """Ningbo: seat 1 wins 5 tai on the dealer's discard; the dealer pays 5 + 5 = 10."""
    result = scored(NINGBO_DEALER_DISCARDS, dealer_double=True)
    assert result["deltas"] == [-10, 10, 0, 0]


def test_dealer_double_leaves_instant_payments_alone() -> None:
    """Guiyang's worked example: the hand's 3 from each doubles to 6; the bean and the
    chicken (1 + 1 from each, paid at once) do not: (3 × 8, −8, −8, −8) = (24, −8, −8, −8)."""
    assert scored(GUIYANG_SEED, dealer_double=True)["deltas"] == [24, -8, -8, -8]


def test_dealer_double_adds_nothing_where_the_dealer_is_not_involved() -> None:
    """Shaanxi's Pao Zi check is between seats 1 and 3: still (0, 18, 0, −18)."""
    result = scored(SHAANXI_PAOZI, dealer_double=True)
    assert result["deltas"] == [0, 18, 0, -18]
    assert items(result, "dealer_double") == []


def test_shaanxi_already_doubles_a_dealer_win() -> None:
    """004's first check: the dealer wins 3 × 1 × 2 = 6 on seat 2's discard; the seed
    doubles it already, so the house rule adds nothing: (6, 0, −6, 0)."""
    request = vector("shaanxi", "seed_dealer_wins_on_a_discard")["request"]
    assert scored(request, dealer_double=True)["deltas"] == [6, 0, -6, 0]


def test_shaanxi_dealer_pays_double_but_not_its_paozi() -> None:
    """The Pao Zi check with the dealer as the discarder (seat 0, ante 3): the hand 3 and
    Pao Zi (3 + 2) × 1 × 3 = 15, 18; doubled, the hand is 3 + 3 and Pao Zi stays 15: 21."""
    request = {**SHAANXI_PAOZI, "discarder": 0, "paozi": [3, 2, 0, 0]}
    assert run(request)["deltas"] == [-18, 18, 0, 0]
    result = scored(request, dealer_double=True)
    assert result["deltas"] == [-21, 21, 0, 0]
    assert items(result, "dealer_double") == [(0, 1, 3)]


def test_cap_comes_after_the_dealer_double() -> None:
    """Nanning's seed, doubled (40, 20, 40) then capped at 30: (30 + 20 + 30, −30, −20, −30)."""
    assert scored(NANNING_SEED, dealer_double=True, cap=30)["deltas"] == [80, -30, -20, -30]


def test_house_rules_are_checked_like_any_option() -> None:
    with pytest.raises(ScoringInputError, match=r"^options\.cap: -1 is outside 0-1000000$"):
        scored(NANNING_SEED, cap=-1)
    with pytest.raises(ScoringInputError, match=r"^options\.dealer_double: 'yes' is not true"):
        scored(NANNING_SEED, dealer_double="yes")


# -- city variants ------------------------------------------------------------------------------
SHAANXI_PURE = {
    "city": "shaanxi",
    "hand": "123m456m789m234m55m",
    "win_tile": "5m",
    "win": "self_draw",
    "winner": 1,
}


def test_shaanxi_pure_suit_double() -> None:
    """A pure-character hand self-drawn by seat 1: base 3 × self-draw 2 = 6 from each;
    with ``pure_suit_double`` × 2 = 12 from each: (−12, 36, −12, −12)."""
    assert run(SHAANXI_PURE)["deltas"] == [-6, 18, -6, -6]
    result = scored(SHAANXI_PURE, pure_suit_double=True)
    assert result["deltas"] == [-12, 36, -12, -12]
    assert [p["code"] for p in result["patterns"]][-1] == "pure_suit"


def test_shaanxi_pure_suit_double_needs_one_suit_without_honors() -> None:
    """The Pao Zi check holds honors (11z 555z): nothing doubles."""
    assert scored(SHAANXI_PAOZI, pure_suit_double=True)["deltas"] == [0, 18, 0, -18]


def test_shaanxi_discarder_pays_all() -> None:
    """The Pao Zi check with 点炮包三家: the discarder (seat 3) pays the hand 3 for all three
    seats, 9, and its Pao Zi (3 + 2) × 3 = 15 as before: (0, 24, 0, −24)."""
    result = scored(SHAANXI_PAOZI, discarder_pays_all=True)
    assert result["deltas"] == [0, 24, 0, -24]
    assert items(result, "hand") == [(3, 1, 9)]


def test_shaanxi_discarder_pays_all_leaves_a_self_draw_alone() -> None:
    """A self-draw is paid by each of three anyway: 6 from each."""
    assert scored(SHAANXI_PURE, discarder_pays_all=True)["deltas"] == [-6, 18, -6, -6]


NANCHANG_SPIRIT_PAIR = {
    "city": "nanchang",
    "hand": "1p1p3p3p4p4p9p9p3s4s5s5s6s6s",
    "win_tile": "3p",
    "win": "self_draw",
    "winner": 1,
    "indicator": "9p",
}


def test_nanchang_spirit_groups() -> None:
    """Indicator 9p: 9p primary, 1p secondary; the winner holds two of each (2·2 + 2 = 6
    spirit points, explosive 6 × 3 = 18, the only holder ×2 = 36 from each). Read with a
    pair of two spirits standing for 3p (33p 33p 44p 33s 44s 55s 66s): big seven pairs 4 ×
    self-draw 2 × spirit fishing 2 = 16, +36 = 52 from each. Without ``spirit_groups`` the
    best reading is 33p 444p 333s 456s 567s: plain 1 × self-draw 2 = 2, +36 = 38."""
    assert run(NANCHANG_SPIRIT_PAIR)["deltas"] == [-52, 156, -52, -52]
    result = scored(NANCHANG_SPIRIT_PAIR, spirit_groups=False)
    assert result["deltas"] == [-38, 114, -38, -38]
    assert [p["code"] for p in result["patterns"]] == ["plain", "self_draw"]


NANNING_PLAIN_DISCARD = {
    "city": "nanning",
    "hand": "234m567p789s55s",
    "win_tile": "5s",
    "melds": [{"kind": "pung", "tiles": "777z", "from": 0}],
    "win": "discard",
    "winner": 1,
    "discarder": 0,
}


def test_nanning_plain_needs_self_draw() -> None:
    """A plain hand won on the dealer's discard is worth the plain row, 2: with no minimum
    the dealer pays 2; with 平胡需自摸 it does not win at all."""
    assert scored(NANNING_PLAIN_DISCARD, min_points=0)["deltas"] == [-2, 2, 0, 0]
    result = scored(NANNING_PLAIN_DISCARD, min_points=0, plain_needs_self_draw=True)
    assert (result["valid"], result["reason"]) == (False, "plain_needs_self_draw")


def test_nanning_plain_needs_self_draw_leaves_a_self_draw_alone() -> None:
    """The same hand self-drawn: plain 3 from each, well over the minimum of 9."""
    request = {**NANNING_PLAIN_DISCARD, "win": "self_draw", "discarder": None}
    result = scored(request, plain_needs_self_draw=True)
    assert result["deltas"] == [-3, 9, -3, -3]


GUIYANG_EIGHT_DOTS = {
    "city": "guiyang",
    "hand": "234m567m1s2s3s88p",
    "win_tile": "8p",
    "melds": [{"kind": "kong", "tiles": "5555p", "from": 2}],
    "win": "self_draw",
    "winner": 0,
    "indicator": "8s",
}


def test_guiyang_black_chicken() -> None:
    """003's worked example with 88p for the pair (wild chicken 9s, not held): 1 hand + 1
    chicken (1s) + 1 bean = 3 from each, then 1 bean and 1 chicken at once: (15, −5, −5, −5).
    With ``black_chicken`` the two 8 dots are worth 2 each: chickens 1 + 4 = 5, the hand
    1 + 5 + 1 = 7 from each, and 4 more at once for them: 7 + 1 + 1 + 4 = 13 from each."""
    assert run(GUIYANG_EIGHT_DOTS)["deltas"] == [15, -5, -5, -5]
    result = scored(GUIYANG_EIGHT_DOTS, black_chicken=True)
    assert result["deltas"] == [39, -13, -13, -13]
    assert items(result, "black_chicken") == [(1, 0, 4), (2, 0, 4), (3, 0, 4)]


def test_guiyang_black_chicken_held_by_another_seat() -> None:
    """Seat 1 holds one 8 dots: 2 from each of the others (the dealer's 13 − 2 = 11 from
    seat 1, 13 + 2 from seats 2 and 3)."""
    request = {**GUIYANG_EIGHT_DOTS, "chickens": [[], ["8p"], [], []]}
    assert scored(request, black_chicken=True)["deltas"] == [37, -7, -15, -15]
    with pytest.raises(ScoringInputError, match=r"^chickens\[1\]: '8p' is not a chicken"):
        run(request)


NANCHANG_LONE_SECONDARY = {
    "city": "nanchang",
    "hand": "123m456p78p4s789s55z",
    "win_tile": "4s",
    "win": "self_draw",
    "winner": 1,
    "indicator": "3s",
}


def test_nanchang_indomitable_plus_ten() -> None:
    """001's spirit example: indicator 3s, the winner alone holds one secondary (4s): 1
    point, ×2 = 2 from each, beside the hand's 1 × self-draw 2 = 2: (−4, 12, −4, −4). With
    ``indomitable=plus_ten`` the lone holder scores 1 + 10 = 11: (−13, 39, −13, −13)."""
    assert run(NANCHANG_LONE_SECONDARY)["deltas"] == [-4, 12, -4, -4]
    result = scored(NANCHANG_LONE_SECONDARY, indomitable="plus_ten")
    assert result["deltas"] == [-13, 39, -13, -13]
    assert items(result, "spirits") == [(0, 1, 11), (2, 1, 11), (3, 1, 11)]


# -- invariants -----------------------------------------------------------------------------------
VARIANTS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "shaanxi": {"pure_suit_double": st.booleans(), "discarder_pays_all": st.booleans()},
    "guiyang": {"black_chicken": st.booleans()},
    "nanning": {"plain_needs_self_draw": st.booleans()},
    "nanchang": {
        "spirit_groups": st.booleans(),
        "indomitable": st.sampled_from(["double", "plus_ten"]),
    },
}
WINS = [
    (city, v["request"])
    for city in CITIES
    for v in golden(city)
    if v["expected"].get("valid") and "error" not in v["expected"]
]


@st.composite
def options(draw: st.DrawFn, city: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "cap": draw(st.sampled_from([0, 1, 5, 10, 30, 100]) | st.integers(0, 500)),
        "dealer_double": draw(st.booleans()),
    }
    for name, values in VARIANTS.get(city, {}).items():
        out[name] = draw(values)
    return out


def hand_totals(result: dict[str, Any]) -> dict[tuple[int, int], int]:
    out: dict[tuple[int, int], int] = defaultdict(int)
    for i in result["items"]:
        if i["group"] == "hand":
            out[(i["payer"], i["payee"])] += i["amount"]
    return out


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(WINS).flatmap(lambda w: st.tuples(st.just(w), options(w[0]))))
def test_every_combination_stays_zero_sum_and_capped(case: Any) -> None:
    (_, request), house = case
    result = scored(request, **house)
    assert sum(result["deltas"]) == 0
    if house["cap"] and result["valid"]:
        for (payer, payee), total in hand_totals(result).items():
            net = total - hand_totals(result).get((payee, payer), 0)
            assert net <= house["cap"], (payer, payee)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(WINS), st.integers(0, 200), st.booleans())
def test_house_rules_never_touch_instant_payments(
    win: tuple[str, dict[str, Any]], cap: int, double: bool
) -> None:
    _, request = win
    plain = [i for i in run(request)["items"] if i["group"] == "instant"]
    ruled = [i for i in scored(request, cap=cap, dealer_double=double)["items"]]
    assert [i for i in ruled if i["group"] == "instant"] == plain
