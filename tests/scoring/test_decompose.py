"""Decomposition vectors for every hand shape, with and without wilds, and invariants
checked against the PyPI ``mahjong`` package and against brute-force substitution."""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hupai.scoring.decompose import (
    Decomposition,
    GroupKind,
    Shape,
    ShapeRules,
    WaitKind,
    all_sets,
    chow_of,
    counts,
    decompose,
    is_winning,
    pair_of,
    pung_of,
    ready_tiles,
    tiles,
)
from hupai.scoring.tiles import HAND_TILES, Tile, format_tiles

STANDARD = ShapeRules()
EVERY_SHAPE = ShapeRules(
    seven_pairs=True,
    thirteen_orphans=True,
    thirteen_misfits=True,
    all_unrelated=True,
    knitted_dragon=True,
)


def readings(hand: str, melds: int = 0, wilds: str = "", rules: ShapeRules = STANDARD) -> list[str]:
    return [
        f"{d.shape.value}: {d}"
        for d in decompose(counts(hand), melds, tiles(wilds) if wilds else (), rules)
    ]


def fills_of(hand: str, wilds: str, rules: ShapeRules = STANDARD, melds: int = 0) -> list[str]:
    return [format_tiles(d.fills) for d in decompose(counts(hand), melds, tiles(wilds), rules)]


# -- standard hands -----------------------------------------------------------------------
def test_all_readings_of_an_ambiguous_hand() -> None:
    assert readings("11122233344455m", rules=ShapeRules(seven_pairs=False)) == [
        "standard: 111m 222m 333m 444m 55m",
        "standard: 111m 234m 22m 345m 345m",
        "standard: 111m 234m 234m 234m 55m",
        "standard: 123m 123m 123m 444m 55m",
    ]


def test_nine_gates_waits_on_every_tile_of_its_suit() -> None:
    assert format_tiles(ready_tiles(counts("1112345678999m"))) == "123456789m"


def test_melds_reduce_the_sets_needed() -> None:
    assert readings("234m55p", melds=3) == ["standard: 234m 55p"]
    assert readings("55p", melds=4) == ["standard: 55p"]


def test_honors_form_pungs_and_the_pair_only() -> None:
    assert readings("123m456p789s111z22z") == ["standard: 123m 456p 789s 111z 22z"]
    assert not is_winning(counts("123m456p789s123z11z"))


def test_four_alike_in_the_hand_are_a_pung_and_one_more_tile() -> None:
    assert not is_winning(counts("1111m234p567s888s9s"))
    assert readings("1111m23m567s888s99s") == ["standard: 123m 111m 567s 888s 99s"]


def test_not_a_win() -> None:
    assert decompose(counts("123m456p789s12z345z")) == ()


def test_wrong_tile_count_is_an_error() -> None:
    with pytest.raises(ValueError, match="13 concealed tiles beside 0 melds"):
        decompose(counts("123m456p789s1234z"))


# -- seven pairs --------------------------------------------------------------------------
def test_seven_different_pairs() -> None:
    assert "seven_pairs: 11m 99m 11p 55s 11z 22z 77z" in readings("1199m11p55s112277z")


def test_a_quad_counts_as_two_pairs_only_when_allowed() -> None:
    hand = "1111m22m33p44p55s66s"
    assert readings(hand, rules=ShapeRules(quad_pairs=False)) == []
    assert readings(hand, rules=ShapeRules(quad_pairs=True)) == [
        "seven_pairs: 11m 11m 22m 33p 44p 55s 66s"
    ]


def test_seven_pairs_can_be_switched_off() -> None:
    assert readings("1199m11p55s112277z", rules=ShapeRules(seven_pairs=False)) == []


# -- special hands ------------------------------------------------------------------------
def test_thirteen_orphans() -> None:
    assert readings("19m19p19s12345677z", rules=EVERY_SHAPE) == [
        "thirteen_orphans: 1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 77z"
    ]
    assert readings("19m19p19s12345677z") == []  # not asked for


def test_thirteen_misfits_need_ranks_three_apart() -> None:
    assert readings("147m258p369s12345z", rules=ShapeRules(thirteen_misfits=True)) == [
        "thirteen_misfits: 1m 4m 7m 2p 5p 8p 3s 6s 9s 1z 2z 3z 4z 5z"
    ]
    assert readings("148m259p369s12345z", rules=ShapeRules(thirteen_misfits=True)) != []
    assert readings("146m258p369s12345z", rules=ShapeRules(thirteen_misfits=True)) == []


def test_all_unrelated_uses_one_knitted_pattern() -> None:
    rules = ShapeRules(all_unrelated=True)
    assert readings("147m258p369s12345z", rules=rules) == [
        "all_unrelated: 1m 4m 7m 2p 5p 8p 3s 6s 9s 1z 2z 3z 4z 5z"
    ]
    assert readings("148m259p369s12345z", rules=rules) == []  # 148 is no knitted pattern
    assert readings("147m147p369s12345z", rules=rules) == []  # 147 twice


def test_knitted_dragon_with_a_set_and_a_pair() -> None:
    assert readings("147m258p369s123m55s", rules=ShapeRules(knitted_dragon=True)) == [
        "knitted_dragon: 123m 147m 258p 369s 55s"
    ]
    assert readings("147m258p369s111z55s", rules=ShapeRules(knitted_dragon=True)) == []


def test_knitted_dragon_beside_one_meld() -> None:
    assert readings("147m258p369s55s", melds=1, rules=ShapeRules(knitted_dragon=True)) == [
        "knitted_dragon: 147m 258p 369s 55s"
    ]


def test_honor_sequences() -> None:
    rules = ShapeRules(honor_sequences=True)
    assert readings("124z567z234m55m111p", rules=rules) == ["standard: 234m 55m 111p 124z 567z"]
    assert readings("124z567z234m55m111p") == []


# -- wilds ---------------------------------------------------------------------------------
def test_a_wild_stands_for_the_missing_tile() -> None:
    (d,) = decompose(counts("123m456p789s111z5z5m"), wilds=tiles("5m"), rules=ShapeRules())
    assert str(d) == "123m 456p 789s 111z 55z"
    assert format_tiles(d.fills) == "5z"
    assert format_tiles(d.as_wild) == "5m" and d.at_face_value == ()
    assert d.uses_wilds


def test_a_wild_at_face_value() -> None:
    found = decompose(counts("123m456p789s11z46m5m"), wilds=tiles("5m"), rules=ShapeRules())
    face = [d for d in found if d.at_face_value]
    assert [str(d) for d in face] == ["123m 456m 456p 789s 11z"]
    assert not face[0].uses_wilds


def test_two_wild_kinds_are_interchangeable() -> None:
    # Nanchang: 3s primary, 4s secondary spirit
    got = fills_of("123m456p789s2z55z3s4s", "3s4s")
    assert sorted(got) == ["22z", "25z"]


def test_wilds_alone_make_a_free_set() -> None:
    found = decompose(counts("123m456p789s11z555m"), wilds=tiles("5m"), rules=ShapeRules())
    free = [d for d in found if d.free_sets]
    assert [str(d) for d in free] == ["123m 456p 789s 11z +free set"]
    assert not free[0].is_complete
    expanded = {str(e) for e in free[0].expand([pung_of("7z"), chow_of("123s")])}
    assert expanded == {"123m 456p 123s 789s 11z", "123m 456p 789s 11z 777z"}


def test_wilds_alone_make_a_free_pair() -> None:
    found = decompose(counts("123m456p789s111z5m5m"), wilds=tiles("5m"), rules=ShapeRules())
    (free,) = [d for d in found if d.free_pairs]
    assert [str(e) for e in free.expand(pair_choices=[pair_of("1z"), pair_of("2z")])] == [
        "123m 456p 789s 111z 22z"
    ]  # a fifth 1z is skipped


def test_wilds_in_seven_pairs() -> None:
    found = decompose(counts("1199m11p55s1122z7z5m"), wilds=tiles("5m"))
    assert [f"{d.shape.value} {format_tiles(d.fills)}" for d in found] == ["seven_pairs 7z"]


def test_wilds_never_stand_for_a_fifth_copy() -> None:
    rules = ShapeRules(seven_pairs=False)
    hand = counts("1111m234p567s88s9s9s")  # 9s wild: 1m pung + 1m pair would need 5 copies
    assert all(
        Counter(d.values)[Tile.parse("1m")] <= 4 for d in decompose(hand, 0, tiles("9s"), rules)
    )
    hand = counts("123m456p8s11z9s9s")  # beside a meld 888s: at most one more 8s
    eights = [Counter(d.values)[Tile.parse("8s")] for d in decompose(hand, 1, tiles("9s"), rules)]
    assert max(eights) == 3
    limits = [4] * 34
    limits[Tile.parse("8s").index] = 1
    found = decompose(hand, 1, tiles("9s"), rules, limits)
    assert found
    assert all(Counter(d.values)[Tile.parse("8s")] <= 1 for d in found)


def test_seven_wilds_still_resolve() -> None:
    hand = counts("159m139p7z3334444s")
    found = decompose(hand, 0, tiles("3s4s"), ShapeRules(quad_pairs=True, thirteen_misfits=True))
    assert found
    assert all(len(d.wild_tiles) == 7 for d in found)


def test_thirteen_orphans_with_a_wild_lists_each_possible_pair() -> None:
    found = decompose(counts("19m19p19s1234567z5m"), wilds=tiles("5m"), rules=EVERY_SHAPE)
    orphans = [d for d in found if d.shape is Shape.THIRTEEN_ORPHANS]
    assert len(orphans) == 13
    assert {format_tiles(d.fills) for d in orphans} == {str(t) for t in tiles("19m19p19s1234567z")}


def test_misfits_with_wilds_report_seven_star_and_face_value_readings() -> None:
    found = decompose(
        counts("14m258p369s12345z9m"), wilds=tiles("9m"), rules=ShapeRules(thirteen_misfits=True)
    )
    assert [(format_tiles(d.fills), format_tiles(d.at_face_value)) for d in found] == [
        ("6z", ""),  # the most honors: the wild is a sixth honor
        ("9m", "9m"),  # the wild at face value
    ]


def test_honor_sequence_with_a_wild() -> None:
    found = decompose(
        counts("234m55m111p12z567z9m"), wilds=tiles("9m"), rules=ShapeRules(honor_sequences=True)
    )
    assert [f"{d} / {format_tiles(d.fills)}" for d in found] == [
        "234m 55m 111p 123z 567z / 3z",
        "234m 55m 111p 124z 567z / 4z",
    ]


def test_knitted_dragon_with_a_wild() -> None:
    assert fills_of("147m258p369s12m55s3s", "3s", ShapeRules(knitted_dragon=True)) == ["3m3s"]


# -- waits ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "win", "kinds"),
    [
        ("123m456p789s111z22z", "3m", {WaitKind.EDGE}),
        ("123m456p789s111z22z", "7s", {WaitKind.EDGE}),
        ("123m456p789s111z22z", "5p", {WaitKind.CLOSED}),
        ("123m456p789s111z22z", "4p", {WaitKind.TWO_SIDED}),
        ("123m456p789s111z22z", "1m", {WaitKind.TWO_SIDED}),
        ("123m456p789s111z22z", "2z", {WaitKind.SINGLE}),
        ("123m456p789s111z22z", "1z", {WaitKind.DUAL_PUNG}),
        ("123m345m789s111z22z", "3m", {WaitKind.EDGE, WaitKind.TWO_SIDED}),
    ],
)
def test_wait_of_a_natural_winning_tile(hand: str, win: str, kinds: set[WaitKind]) -> None:
    (d,) = decompose(counts(hand), rules=ShapeRules())
    assert d.wait_kinds(Tile.parse(win)) == kinds


def test_a_wild_winning_tile_completes_what_it_stands_for() -> None:
    (d,) = decompose(counts("123m456p789s111z5z5m"), wilds=tiles("5m"), rules=ShapeRules())
    (wait,) = d.waits(Tile.parse("5m"))
    assert wait.kind is WaitKind.SINGLE and str(wait.stands_for) == "5z"


def test_a_wild_winning_tile_in_a_free_pair_is_a_single_wait() -> None:
    found = decompose(counts("123m456p789s111z5m5m"), wilds=tiles("5m"), rules=ShapeRules())
    (free,) = [d for d in found if d.free_pairs]
    assert free.wait_kinds(Tile.parse("5m")) == {WaitKind.SINGLE}


def test_seven_pairs_wait_is_single() -> None:
    (d,) = decompose(counts("1199m11p55s112277z"), rules=ShapeRules(seven_pairs=True))[-1:]
    assert d.wait_kinds(Tile.parse("7z")) == {WaitKind.SINGLE}


def test_special_hand_singles_are_irregular_waits() -> None:
    (d,) = decompose(counts("147m258p369s12345z"), rules=ShapeRules(thirteen_misfits=True))
    assert d.wait_kinds(Tile.parse("5z")) == {WaitKind.IRREGULAR}


# -- ready check ---------------------------------------------------------------------------
def test_ready_tiles_of_a_two_sided_wait() -> None:
    assert format_tiles(ready_tiles(counts("23m456p789s111z22z"))) == "14m"


def test_a_kind_held_four_times_is_not_waited_on() -> None:
    hand = counts("1111m234p567s888s")  # only a fifth 1m would complete it
    assert ready_tiles(hand) == ()
    assert format_tiles(ready_tiles(counts("111m234p567s888s9s"))) == "479s"


def test_ready_with_a_wild_in_hand() -> None:
    waits = ready_tiles(counts("23m456p789s111z2z5m"), wilds=tiles("5m"))
    assert {"1m", "4m", "2z", "5m"} <= {str(t) for t in waits}


def test_not_ready() -> None:
    assert ready_tiles(counts("159m159p159s1234z")) == ()


# -- invariants ----------------------------------------------------------------------------
def _blocks(d: Decomposition) -> list[list[int]]:
    return sorted([t.index for t in g.tiles] for g in d.groups)


@st.composite
def wild_free_hands(draw: st.DrawFn) -> list[int]:
    """14 tiles, built from sets and a pair (mostly winning), sometimes with one tile
    changed, sometimes plain random."""
    vector = [0] * 34
    if draw(st.booleans()):
        groups = [*all_sets(), *[pair_of(str(t)) for t in HAND_TILES]]
        sets = [g for g in groups if g.kind is not GroupKind.PAIR]
        chosen = [draw(st.sampled_from(sets)) for _ in range(4)]
        chosen.append(pair_of(str(draw(st.sampled_from(HAND_TILES)))))
        for g in chosen:
            for t in g.tiles:
                vector[t.index] += 1
        if draw(st.booleans()):
            src = draw(st.sampled_from([i for i in range(34) if vector[i]]))
            vector[src] -= 1
            vector[draw(st.integers(0, 33))] += 1
    else:
        for i in draw(st.lists(st.integers(0, 33), min_size=14, max_size=14)):
            vector[i] += 1
    from hypothesis import assume

    assume(max(vector) <= 4)
    return vector


@settings(
    max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(wild_free_hands())
def test_same_readings_as_the_mahjong_package(vector: list[int]) -> None:
    mahjong_divider = pytest.importorskip("mahjong.hand_calculating.divider")
    theirs = sorted(
        sorted(sorted(block) for block in reading)
        for reading in mahjong_divider.HandDivider.divide_hand(vector)
    )
    ours = sorted(_blocks(d) for d in decompose(vector, 0, (), ShapeRules(seven_pairs=True)))
    assert ours == theirs


@st.composite
def hands_with_wilds(draw: st.DrawFn) -> tuple[list[int], Tile, int]:
    n_wild = draw(st.integers(1, 2))
    vector = draw(wild_free_hands())
    wild = draw(st.sampled_from([t for t in HAND_TILES if not vector[t.index]]))
    # turn n_wild tiles into wilds
    for _ in range(n_wild):
        src = draw(st.sampled_from([i for i in range(34) if vector[i] and i != wild.index]))
        vector[src] -= 1
        vector[wild.index] += 1
    return vector, wild, vector[wild.index]


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(hands_with_wilds())
def test_wilds_win_exactly_when_some_substitution_wins(case: tuple[list[int], Tile, int]) -> None:
    vector, wild, n = case
    rules = ShapeRules(seven_pairs=True, thirteen_orphans=True)
    natural = list(vector)
    natural[wild.index] = 0
    brute = False
    for subst in product(range(34), repeat=n):
        trial = list(natural)
        for i in subst:
            trial[i] += 1
        if max(trial) <= 4 and decompose(trial, 0, (), rules):
            brute = True
            break
    found = decompose(vector, 0, (wild,), rules)
    assert bool(found) == brute
    for d in found:
        assert len(d.wild_tiles) == n
        assert len(d.fills) + 3 * d.free_sets + 2 * d.free_pairs == n
        values = Counter(d.values)
        naturals = Counter({Tile.from_index(i): c for i, c in enumerate(natural) if c})
        assert values == naturals + Counter(d.fills)


@st.composite
def special_hands_with_a_wild(draw: st.DrawFn) -> tuple[list[int], Tile]:
    """A misfits, all-unrelated, knitted-dragon or orphans hand (or a near miss) with one
    tile turned into a wild."""
    shape = draw(st.sampled_from(["misfits", "knitted", "orphans"]))
    picked: list[Tile] = []
    if shape == "orphans":
        picked = list(tiles("19m19p19s1234567z"))
        picked.append(draw(st.sampled_from(picked)))
    else:
        perm = draw(st.permutations([0, 1, 2]))
        for suit, letter in enumerate("mps"):
            ranks = [(1, 4, 7), (2, 5, 8), (3, 6, 9)][perm[suit]]
            picked.extend(Tile.parse(f"{r}{letter}") for r in ranks)
        if shape == "knitted":
            extra = draw(st.sampled_from(all_sets()))
            pair = pair_of(str(draw(st.sampled_from(HAND_TILES[:27]))))
            picked.extend([*extra.tiles, *pair.tiles])
        else:
            honors = draw(st.permutations(list(tiles("1234567z"))))
            picked.extend(honors[:5])
    vector = [0] * 34
    for t in picked:
        vector[t.index] += 1
    from hypothesis import assume

    assume(max(vector) <= 4 and sum(vector) == 14)
    if draw(st.booleans()):  # a near miss
        src = draw(st.sampled_from([i for i in range(34) if vector[i]]))
        vector[src] -= 1
        vector[draw(st.integers(0, 33))] += 1
    wild = draw(st.sampled_from([t for t in HAND_TILES if not vector[t.index]]))
    src = draw(st.sampled_from([i for i in range(34) if vector[i]]))
    vector[src] -= 1
    vector[wild.index] += 1
    return vector, wild


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(special_hands_with_a_wild())
def test_special_shapes_with_wilds_match_substitution(case: tuple[list[int], Tile]) -> None:
    vector, wild = case
    for rules in (
        ShapeRules(standard=False, seven_pairs=False, thirteen_misfits=True),
        ShapeRules(standard=False, seven_pairs=False, all_unrelated=True),
        ShapeRules(standard=False, seven_pairs=False, knitted_dragon=True),
        ShapeRules(standard=False, seven_pairs=False, thirteen_orphans=True),
    ):
        natural = list(vector)
        n = natural[wild.index]
        natural[wild.index] = 0
        brute = False
        for subst in product(range(34), repeat=n):
            trial = list(natural)
            for i in subst:
                trial[i] += 1
            if max(trial) <= 4 and decompose(trial, 0, (), rules):
                brute = True
                break
        assert bool(decompose(vector, 0, (wild,), rules)) == brute, rules


@settings(
    max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(
    wild_free_hands(),
    st.sampled_from([ShapeRules(), ShapeRules(quad_pairs=True), ShapeRules(seven_pairs=False)]),
)
def test_the_fast_yes_no_check_agrees_with_the_readings(
    vector: list[int], rules: ShapeRules
) -> None:
    assert is_winning(vector, 0, (), rules) == bool(decompose(vector, 0, (), rules))
