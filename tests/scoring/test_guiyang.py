"""Guiyang (seed 003): golden vectors through the scorer and the ``hupai score`` CLI, input
errors, the yellow-tile draw, and Hypothesis invariants (zero-sum, order independence)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from golden_vectors import golden
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hupai.cli import main as hupai_main
from hupai.scoring import ItemGroup, ScoringInputError, get_city, result_to_dict, score
from hupai.scoring.guiyang import (
    CHICKEN,
    BeanPayer,
    Chickens,
    Combine,
    GuiyangOptions,
    WildChickenMode,
)
from hupai.scoring.tiles import Tile, next_tile

GOLDEN = golden("guiyang")
SEED_EXAMPLE = next(v for v in GOLDEN if v["id"] == "seed_worked_example")
SUITED = [Tile.parse(f"{r}{s}") for s in "mps" for r in range(1, 10)]


def request(**overrides: Any) -> dict[str, Any]:
    """The seed's worked example, with changes."""
    out = dict(SEED_EXAMPLE["request"])
    out.update(overrides)
    return out


def error_of(data: dict[str, Any]) -> ScoringInputError:
    with pytest.raises(ScoringInputError) as info:
        score(data)
    return info.value


# -- golden vectors -----------------------------------------------------------------------------
def test_cli_reports_a_city_input_error_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request(hand="234m567m123s9p7z")), encoding="utf-8")
    assert hupai_main(["score", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'7z' is not used in guiyang" in err


# -- options and description --------------------------------------------------------------------
def test_every_option_the_spec_names_has_its_default() -> None:
    options = GuiyangOptions()
    assert options.combine is Combine.SUM
    assert options.exposed_bean_payer is BeanPayer.ALL
    assert options.chickens_require_ready is False
    described = {o["name"]: o for o in get_city("guiyang").describe()["options"]}
    for field in dataclasses.fields(GuiyangOptions):
        assert described[field.name]["doc"]


def test_city_description_says_it_settles_draws() -> None:
    described = get_city("guiyang").describe()
    assert described["draws"] is True
    assert described["tiles"] == 108
    assert described["exposed_chows"] is False


def test_golden_chicken_needs_a_flipped_9_bamboo() -> None:
    assert Chickens.flipped(Tile.parse("9s"), WildChickenMode.NEXT).golden
    assert not Chickens.flipped(Tile.parse("1s"), WildChickenMode.NEXT).golden
    assert Chickens.flipped(Tile.parse("1s"), WildChickenMode.FLIPPED_AND_NEXT).golden
    assert not Chickens.flipped(None, WildChickenMode.NEXT).golden


def test_missing_indicator_is_a_warning_not_a_silent_guess() -> None:
    data = request()
    del data["indicator"]
    result = score(data)
    assert result.valid
    assert any("no indicator" in w for w in result.warnings)


def test_result_details_show_the_formula_parts() -> None:
    details = score(request(dealer_streak=2)).details
    assert details["hand_points"] == 1
    assert details["chicken_points"] == [1, 0, 0, 0]
    assert details["bean_points"] == 1
    assert details["per_payer"] == 6
    assert details["wild_chickens"] == "8p"


def test_discard_win_is_paid_by_the_discarder_alone() -> None:
    result = score(request(win="discard", discarder=2))
    hand_payers = {i.payer for i in result.items if i.reason == "hand"}
    assert hand_payers == {2}


# -- input errors -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "path", "needle"),
    [
        ({"hand": "234m567m123s9p7z"}, "hand", "'7z' is not used in guiyang"),
        ({"indicator": "5z"}, "indicator", "'5z' is not used in guiyang"),
        ({"flowers": "1f"}, "flowers", "played without flowers"),
        (
            {"hand": "567m123s99p", "melds": [{"tiles": "234m"}, {"tiles": "5555p", "from": 2}]},
            "melds[0].kind",
            "does not allow claiming a chow",
        ),
        ({"winner": 1, "dealer_streak": 2}, "dealer_streak", "not the dealer"),
        ({"last_tile": True}, "indicator", "no tile is left to flip"),
        ({"chickens": ["1s", "", "", ""]}, "chickens[0]", "is the winner"),
        ({"chickens": ["", "5m", "", ""]}, "chickens[1]", "'5m' is not a chicken"),
        ({"options": {"chickens_require_ready": True}}, "ready", "required"),
        (
            {
                "melds": [{"kind": "kong", "tiles": "5555p"}],
                "options": {"exposed_bean_payer": "feeder"},
            },
            "melds[0].from",
            "required",
        ),
        ({"kongs": [{"seat": 0, "kind": "kong", "tile": "6s"}]}, "kongs[0].seat", "winner"),
        ({"kongs": [{"seat": 1, "kind": "kong", "tile": "5p"}]}, "kongs[0]", "8 copies of 5p"),
        (
            {"kongs": [{"seat": 1, "kind": "concealed_kong", "tile": "6s", "fed_by": 2}]},
            "kongs[0].fed_by",
            "not claimed",
        ),
        (
            {"kongs": [{"seat": 1, "kind": "kong", "tile": "1s"}], "chickens": ["", "1s", "", ""]},
            "chickens[1]",
            "list all four",
        ),
        ({"kongs": [{"seat": 1, "kind": "kong", "tile": "4z"}]}, "kongs[0].tile", "not used"),
        ({"responsibility": 0}, "responsibility", "is the winner"),
        ({"responsibility": 2, "chickens": ["", "", "1s", ""]}, "responsibility", "lists 1"),
        ({"chickens": ["", "1111s", "", ""]}, "hand", "5 copies of 1s"),
        ({"options": {"combine": "product"}}, "options.combine", "not one of: sum, max"),
    ],
)
def test_input_error_names_the_field(overrides: dict[str, Any], path: str, needle: str) -> None:
    exc = error_of(request(**overrides))
    assert exc.path == path
    assert needle in exc.message


def test_a_second_meld_of_1s_is_caught_as_too_few_chickens_listed() -> None:
    # the winner's pung holds three of the four 1s: seat 3 cannot also hold a kong of them
    data = request(
        hand="234m567m234s99p",
        melds=[{"kind": "pung", "tiles": "111s", "from": 1}],
        chickens=["", "", "", "1s"],
        kongs=[{"seat": 3, "kind": "added_kong", "tile": "1s", "fed_by": 2}],
    )
    exc = error_of(data)
    assert exc.path == "chickens[3]" and "list all four" in exc.message


def test_robbed_kong_cannot_also_be_paid_as_a_bean() -> None:
    data = request(
        hand="234m567m123s99p",
        win_tile="2s",
        win="robbed_kong",
        discarder=3,
        kongs=[{"seat": 3, "kind": "added_kong", "tile": "2s", "fed_by": 1}],
    )
    exc = error_of(data)
    assert exc.path == "kongs[0]" and "robbed" in exc.message


# -- the yellow-tile draw -----------------------------------------------------------------------
def draw(hands: list[Any], **extra: Any) -> dict[str, Any]:
    return {
        "city": "guiyang",
        "kind": "draw",
        "hands": [h if isinstance(h, dict) else {"hand": h} for h in hands],
        **extra,
    }


NOT_READY = ["1357m2468p1357s9m", "2468m1357p2468s9p", "1357p2468s2468p9s"]


def test_draw_reports_each_seat() -> None:
    result = score(draw(["2223334445556m", *NOT_READY]))
    seats = result.details["seats"]
    assert isinstance(seats, list) and isinstance(seats[0], dict)
    assert seats[0]["waits"] == "134567m" and seats[0]["best_wait"] == "6m"
    assert seats[0]["patterns"] == ["all_pungs", "pure_suit"]
    assert result.details["outcome"] == "some_ready"
    assert {i.reason for i in result.items} == {"yellow_tile"}


@pytest.mark.parametrize(
    ("data", "path", "needle"),
    [
        (draw(["1112345678999p"] * 3), "hands", "got 3"),
        (draw(["1112345678999p", *NOT_READY], winner=0), "winner", "not part of a draw"),
        (draw(["1112345671234z", *NOT_READY]), "hands[0].hand", "not used in guiyang"),
        (draw(["11123456789p", *NOT_READY]), "hands[0].hand", "holds 13"),
        (draw(["1112345678999p", *NOT_READY], indicator="3p"), "indicator", "not part"),
        (
            draw([{"hand": "1112345699p", "melds": [{"tiles": "789p"}]}, *NOT_READY]),
            "hands[0].melds[0].kind",
            "chow",
        ),
        (draw(["1111222233334m", *NOT_READY]), "hands", "copies of"),
        ({"city": "guiyang", "kind": "tie"}, "kind", "not one of: win, draw"),
    ],
)
def test_draw_input_errors(data: dict[str, Any], path: str, needle: str) -> None:
    exc = error_of(data)
    assert exc.path == path
    assert needle in exc.message


def test_draw_is_refused_by_a_city_that_does_not_settle_draws() -> None:
    other = next(n for n in ("nanning", "ningbo", "shaanxi", "nanchang") if _known(n))
    exc = error_of({**draw(["1112345678999p", *NOT_READY]), "city": other})
    assert exc.path == "kind"


def _known(name: str) -> bool:
    try:
        return not get_city(name).scores_draws
    except ScoringInputError:
        return False


# -- Hypothesis ---------------------------------------------------------------------------------
class Pool:
    """The 108 tiles not yet used by the generated request."""

    def __init__(self) -> None:
        self.left: Counter[Tile] = Counter({t: 4 for t in SUITED})

    def take(self, tile: Tile, n: int = 1) -> bool:
        if self.left[tile] < n:
            return False
        self.left[tile] -= n
        return True


@st.composite
def winning_tiles(
    draw_: st.DrawFn, pool: Pool, melds_allowed: bool
) -> tuple[list[Tile], list[tuple[str, Tile]]]:
    """Concealed tiles of a complete hand (sets + pair, or seven pairs) and melds."""
    tile = st.sampled_from(SUITED)
    if draw_(st.integers(0, 9)) == 0:
        tiles: list[Tile] = []
        while len(tiles) < 14:
            t = draw_(tile)
            if pool.take(t, 2):
                tiles += [t, t]
        return tiles, []
    n_melds = draw_(st.integers(0, 4)) if melds_allowed else 0
    melds: list[tuple[str, Tile]] = []
    while len(melds) < n_melds:
        kind = draw_(st.sampled_from(["pung", "kong", "added_kong", "concealed_kong"]))
        t = draw_(tile)
        if pool.take(t, 3 if kind == "pung" else 4):
            melds.append((kind, t))
    concealed: list[Tile] = []
    while len(concealed) < 3 * (4 - n_melds):
        t = draw_(tile)
        if draw_(st.booleans()) and t.rank <= 7:
            run = [t, Tile(t.suit, t.rank + 1), Tile(t.suit, t.rank + 2)]
            if all(pool.left[x] >= 1 for x in run):
                for x in run:
                    pool.take(x)
                concealed += run
        elif pool.take(t, 3):
            concealed += [t, t, t]
    while True:
        t = draw_(tile)
        if pool.take(t, 2):
            return [*concealed, t, t], melds


@st.composite
def win_requests(draw_: st.DrawFn) -> dict[str, Any]:
    pool = Pool()
    tiles, melds = draw_(winning_tiles(pool, melds_allowed=True))
    winner = draw_(st.integers(0, 3))
    others = [s for s in range(4) if s != winner]
    method = draw_(st.sampled_from(["self_draw", "discard", "robbed_kong", "kong_replacement"]))
    if method == "kong_replacement" and not any(k != "pung" for k, _ in melds):
        method = "self_draw"
    options = {
        "combine": draw_(st.sampled_from(["sum", "max"])),
        "exposed_bean_payer": draw_(st.sampled_from(["all", "feeder"])),
        "added_bean_payer": draw_(st.sampled_from(["all", "feeder"])),
        "chickens_require_ready": draw_(st.booleans()),
        "wild_chicken": draw_(st.sampled_from(["next", "flipped_and_next"])),
        "base_points": draw_(st.integers(1, 3)),
    }
    data: dict[str, Any] = {
        "city": "guiyang",
        "hand": "".join(str(t) for t in tiles),
        "win_tile": str(draw_(st.sampled_from(tiles))),
        "melds": [
            {"kind": k, "tiles": str(t) * (3 if k == "pung" else 4)}
            | ({} if k == "concealed_kong" else {"from": draw_(st.sampled_from(others))})
            for k, t in melds
        ],
        "win": method,
        "winner": winner,
        "options": options,
    }
    if method in ("discard", "robbed_kong"):
        data["discarder"] = draw_(st.sampled_from(others))
    if winner == 0:
        data["dealer_streak"] = draw_(st.integers(1, 4))
    indicator = draw_(st.sampled_from(SUITED))
    if draw_(st.integers(0, 5)) == 0 or not pool.take(indicator):
        data["last_tile"] = True
        wild: set[Tile] = set()
    else:
        data["indicator"] = str(indicator)
        wild = {next_tile(indicator)}
        if options["wild_chicken"] == "flipped_and_next":
            wild.add(indicator)
    chickens = ["", "", "", ""]
    for seat in others:
        for t in sorted({CHICKEN, *wild}):
            n = draw_(st.integers(0, min(2, pool.left[t])))
            pool.take(t, n)
            chickens[seat] += str(t) * n
    data["chickens"] = chickens
    data["rushing_chicken"] = draw_(st.sampled_from([None, 0, 1, 2, 3]))
    data["ready"] = draw_(st.lists(st.sampled_from(others), unique=True))
    kong_tile = draw_(st.sampled_from(SUITED))
    if draw_(st.booleans()) and kong_tile not in wild | {CHICKEN} and pool.take(kong_tile, 4):
        seat = draw_(st.sampled_from(others))
        kind = draw_(st.sampled_from(["kong", "added_kong", "concealed_kong"]))
        kong: dict[str, Any] = {"seat": seat, "kind": kind, "tile": str(kong_tile)}
        if kind != "concealed_kong":
            kong["fed_by"] = draw_(st.sampled_from([s for s in range(4) if s != seat]))
        data["kongs"] = [kong]
    return data


# a hand is 14 tiles drawn from a shared pool: the smallest example is large by nature
HEALTH = [HealthCheck.too_slow, HealthCheck.large_base_example]
FAST = settings(max_examples=120, deadline=None, suppress_health_check=HEALTH)


@FAST
@given(win_requests())
def test_every_win_settles_to_zero(data: dict[str, Any]) -> None:
    result = score(data)
    assert sum(result.deltas) == 0
    if result.valid:
        assert result.settlement.total(payee=data["winner"], group=ItemGroup.HAND) > 0
    else:
        assert result.reason in ("needs_kong_to_win_on_discard",)
        assert data["win"] in ("discard", "robbed_kong")


@FAST
@given(win_requests(), st.randoms(use_true_random=False))
def test_hand_tile_order_does_not_matter(data: dict[str, Any], rnd: Any) -> None:
    tiles = [f"{c}" for c in _split(data["hand"])]
    rnd.shuffle(tiles)
    shuffled = {**data, "hand": tiles}
    assert result_to_dict(score(shuffled)) == result_to_dict(score(data))


def _split(text: str) -> list[str]:
    out: list[str] = []
    digits = ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        else:
            out += [f"{d}{ch}" for d in digits]
            digits = ""
    return out


@st.composite
def draw_requests(draw_: st.DrawFn) -> dict[str, Any]:
    pool = Pool()
    hands: list[dict[str, Any]] = []
    for _ in range(4):
        if draw_(st.booleans()):
            tiles, melds = draw_(winning_tiles(pool, melds_allowed=True))
            dropped = draw_(st.sampled_from(tiles))
            tiles.remove(dropped)
            pool.left[dropped] += 1
            hands.append(
                {
                    "hand": "".join(str(t) for t in tiles),
                    "melds": [
                        {"kind": k, "tiles": str(t) * (3 if k == "pung" else 4)} for k, t in melds
                    ],
                }
            )
        else:
            tiles = []
            while len(tiles) < 13:
                t = draw_(st.sampled_from(SUITED))
                if pool.take(t):
                    tiles.append(t)
            hands.append({"hand": "".join(str(t) for t in tiles)})
    combine = draw_(st.sampled_from(["sum", "max"]))
    return {"city": "guiyang", "kind": "draw", "hands": hands, "options": {"combine": combine}}


@settings(max_examples=60, deadline=None, suppress_health_check=HEALTH)
@given(draw_requests())
def test_every_draw_settles_to_zero_from_not_ready_to_ready(data: dict[str, Any]) -> None:
    result = score(data)
    assert sum(result.deltas) == 0
    seats = result.details["seats"]
    assert isinstance(seats, list)
    ready = {s["seat"] for s in seats if isinstance(s, dict) and s["ready"]}
    for item in result.items:
        assert item.payer not in ready and item.payee in ready
