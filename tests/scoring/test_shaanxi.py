"""Shaanxi (seed 004): golden vectors (seed checks first), input errors, and invariants."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from golden_vectors import golden
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hupai.cli import main as hupai_main
from hupai.scoring import ScoringInputError, describe_cities, result_to_dict, score
from hupai.scoring.hand import previous_seat
from hupai.scoring.shaanxi import KONG_PAYOUTS, SPECIAL_HANDS, WIN_TYPES, KongKind

GOLDEN = golden("shaanxi")
SEED_IDS = ("seed_dealer_wins_on_a_discard", "seed_paozi_loser_3_winner_2_discard")


def _plain(**overrides: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "city": "shaanxi",
        "hand": "123m456p789s11z555z",
        "win_tile": "5z",
        "win": "discard",
        "winner": 1,
        "discarder": 0,
    }
    request.update(overrides)
    return {k: v for k, v in request.items() if v is not None}


# -- golden vectors (the harness: test_golden.py) ----------------------------------------------
def test_golden_file_opens_with_the_seed_checks() -> None:
    assert tuple(v["id"] for v in GOLDEN[: len(SEED_IDS)]) == SEED_IDS


def test_golden_vectors_cover_every_table_row() -> None:
    codes = {c for v in GOLDEN for c in v["expected"].get("patterns", ())}
    reasons = {i["reason"] for v in GOLDEN for i in v["expected"].get("items", ())}
    assert {s.code for s in SPECIAL_HANDS.values()} <= codes
    assert {w.code for w in WIN_TYPES.values()} | {"dealer_win"} <= codes
    assert {k.reason for k in KONG_PAYOUTS.values()} | {"paozi"} <= reasons
    assert any("base_score" in v["request"].get("options", {}) for v in GOLDEN)


def test_cli_input_error_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(_plain(paozi=[0, 5, 0, 0])), encoding="utf-8")
    assert hupai_main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "paozi[1]: 5 is outside 0-4" in err


# -- what the result reports -------------------------------------------------------------------
def test_reports_the_reading_that_pays_most() -> None:
    result = score(_plain(hand="11223344556677m", win_tile="7m"))
    assert result.decomposition is not None
    assert result.decomposition.shape.value == "seven_pairs"
    assert result.details["readings"] == 4


def test_pao_zi_items_are_separate_from_the_hand_item() -> None:
    result = score(_plain(paozi=[3, 2, 0, 0]))
    hand = [i for i in result.items if i.reason == "hand"]
    paozi = [i for i in result.items if i.reason == "paozi"]
    assert [(i.payer, i.amount) for i in hand] == [(0, 3)]
    assert [(i.payer, i.amount) for i in paozi] == [(0, 15)]
    assert "(ante 3 + winner's 2)" in paozi[0].text


def test_kong_payouts_are_instant_items() -> None:
    result = score(
        _plain(hand="123m456p11z555z", melds=[{"kind": "concealed_kong", "tiles": "7777s"}])
    )
    groups = {i.reason: i.group.value for i in result.items}
    assert groups == {"hand": "hand", "concealed_kong": "instant"}


def test_first_turn_and_last_tile_are_ignored_with_a_warning() -> None:
    result = score(_plain(first_turn=True, last_tile=True))
    assert result.deltas == (-3, 3, 0, 0)
    assert len(result.warnings) == 2


def test_city_describes_its_options_and_fields() -> None:
    (city,) = [c for c in describe_cities() if c["name"] == "shaanxi"]
    options = {o["name"]: o for o in city["options"]}
    assert list(options) == [
        "cap",
        "dealer_double",
        "base_score",
        "pure_suit_double",
        "discarder_pays_all",
    ]
    assert options["base_score"] == {
        "name": "base_score",
        "type": "integer",
        "min": 1,
        "max": 1000,
        "default": 3,
        "doc": options["base_score"]["doc"],
    }
    assert options["pure_suit_double"]["default"] is False
    fields = {f["name"]: f for f in city["fields"]}
    assert fields["paozi"]["default"] == [0, 0, 0, 0]
    assert all(item["max"] == 4 for item in fields["paozi"]["items"])
    assert fields["kongs"]["items"]["type"] == "object"
    assert city["tiles"] == 136 and city["seed"] == "004"


# -- malformed or city-illegal input -----------------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"paozi": [0, 5, 0, 0]}, r"^paozi\[1\]: 5 is outside 0-4$"),
        ({"paozi": [0, -1, 0, 0]}, r"^paozi\[1\]: -1 is outside 0-4$"),
        ({"paozi": [1, 2, 3]}, r"^paozi: expected a list of 4, got \[1, 2, 3\]$"),
        ({"paozi": [0, "2", 0, 0]}, r"^paozi\[1\]: '2' is not a whole number$"),
        ({"paozi": [0, 1.5, 0, 0]}, r"^paozi\[1\]: 1\.5 is not a whole number$"),
        ({"options": {"base_score": 0}}, r"^options\.base_score: 0 is outside 1-1000$"),
        ({"flowers": "1f"}, r"^flowers: shaanxi is played without flowers$"),
        (
            {"hand": "123m456p11z555z", "melds": [{"kind": "kong", "tiles": "7777s"}]},
            r"^melds\[0\]\.from: required for the exposed kong '7s'",
        ),
        (
            {"kongs": [{"seat": 1, "kind": "concealed_kong"}]},
            r"^kongs\[0\]\.seat: 1 is the winner; list the winner's kongs under 'melds'$",
        ),
        (
            {"kongs": [{"seat": 2, "kind": "kong"}]},
            r"^kongs\[0\]\.discarder: required for an exposed kong",
        ),
        (
            {"kongs": [{"seat": 2, "kind": "kong", "discarder": 2}]},
            r"^kongs\[0\]\.discarder: 2 is the kong's own seat",
        ),
        (
            {"kongs": [{"seat": 2, "kind": "added_kong", "discarder": 3}]},
            r"^kongs\[0\]\.discarder: 3 given, but only an exposed kong",
        ),
        (
            {"kongs": [{"seat": 2, "kind": "pung"}]},
            r"^kongs\[0\]\.kind: 'pung' is not one of: concealed_kong, kong, added_kong$",
        ),
        ({"kongs": [{"kind": "kong"}]}, r"^kongs\[0\]\.seat: required$"),
        (
            {"kongs": [{"seat": 2, "kind": "concealed_kong", "tile": "5z"}]},
            r"^kongs\[0\]\.tile: '5z': a kong takes all four copies",
        ),
        (
            {"kongs": [{"seat": 2, "kind": "concealed_kong"}] * 5},
            r"^kongs\[4\]\.seat: seat 2 has more than 4 kongs",
        ),
        (
            {"win": "robbed_kong", "win_tile": "1z"},
            r"^win_tile: '1z' was robbed from an added kong, .* the hand holds 2$",
        ),
        (
            {
                "win": "robbed_kong",
                "win_tile": "3m",
                "kongs": [{"seat": 2, "kind": "concealed_kong", "tile": "3m"}],
            },
            r"^kongs\[0\]\.tile: '3m': a kong takes all four copies",
        ),
        ({"hand": "123m456p789s11z123z"}, r"^win_tile: '5z' is not in the hand"),
        (
            {
                "hand": "456p789s11z555z",
                "melds": [{"kind": "chow", "tiles": "123z", "from": 0}],
            },
            r"^melds\[0\]\.tiles: '123z' is not a chow",
        ),
    ],
)
def test_input_error_names_the_field(overrides: dict[str, Any], match: str) -> None:
    with pytest.raises(ScoringInputError, match=match):
        score(_plain(**overrides))


# -- invariants --------------------------------------------------------------------------------
SUITED = [f"{r}{s}" for s in "mps" for r in range(1, 10)]
HONORS = [f"{r}z" for r in range(1, 8)]
KINDS = SUITED + HONORS
METHODS = ["discard", "self_draw", "robbed_kong", "kong_replacement"]


def _fits(counts: Counter[str], tiles: list[str]) -> bool:
    return all(counts[t] + n <= 4 for t, n in Counter(tiles).items())


@st.composite
def winning_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A valid Shaanxi win: four sets and a pair (some sets as melds), or seven different
    pairs; random winner, method, discarder, antes and kongs of the other seats."""
    winner = draw(st.integers(0, 3))
    counts: Counter[str] = Counter()
    concealed: list[str] = []
    melds: list[dict[str, Any]] = []
    if draw(st.integers(0, 4)) == 0:
        kinds = draw(st.lists(st.sampled_from(KINDS), min_size=7, max_size=7, unique=True))
        concealed = [t for t in kinds for _ in range(2)]
    else:
        n_melds = draw(st.integers(0, 4))
        for n in range(4):
            if draw(st.booleans()):
                suit = draw(st.sampled_from("mps"))
                low = draw(st.integers(1, 7))
                tiles = [f"{low + k}{suit}" for k in range(3)]
                kind = "chow"
            else:
                tile = draw(st.sampled_from(KINDS))
                kind = draw(st.sampled_from(["pung", "kong", "added_kong", "concealed_kong"]))
                tiles = [tile] * (4 if "kong" in kind else 3)
                if n >= n_melds:
                    kind, tiles = "pung", [tile] * 3
            if not _fits(counts, tiles):
                assume(False)
            counts.update(tiles)
            if n < n_melds:
                meld: dict[str, Any] = {"kind": kind, "tiles": "".join(tiles)}
                if kind == "chow":
                    meld["from"] = previous_seat(winner)
                elif kind != "concealed_kong":
                    meld["from"] = draw(st.sampled_from([s for s in range(4) if s != winner]))
                melds.append(meld)
            else:
                concealed.extend(tiles)
        pair = draw(st.sampled_from(KINDS))
        if not _fits(counts, [pair, pair]):
            assume(False)
        concealed += [pair, pair]
    win_tile = draw(st.sampled_from(concealed))
    method = draw(st.sampled_from(METHODS))
    all_tiles = concealed + [t for m in melds for t in _split(m["tiles"])]
    if method == "robbed_kong" and all_tiles.count(win_tile) != 1:
        method = "discard"
    if method == "kong_replacement" and not any("kong" in m["kind"] for m in melds):
        method = "self_draw"
    losers = [s for s in range(4) if s != winner]
    kongs = []
    for seat in draw(st.lists(st.sampled_from(losers), max_size=3)):
        kind = draw(st.sampled_from([k.value for k in KongKind]))
        kong: dict[str, Any] = {"seat": seat, "kind": kind}
        if kind == "kong":
            kong["discarder"] = draw(st.sampled_from([s for s in range(4) if s != seat]))
        kongs.append(kong)
    request: dict[str, Any] = {
        "city": "shaanxi",
        "hand": draw(st.permutations(concealed)),
        "melds": melds,
        "win_tile": win_tile,
        "win": method,
        "winner": winner,
        "paozi": draw(st.lists(st.integers(0, 4), min_size=4, max_size=4)),
        "kongs": kongs,
    }
    if method in ("discard", "robbed_kong"):
        request["discarder"] = draw(st.sampled_from(losers))
    return request


def _split(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(0, len(text), 2)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(winning_requests())
def test_settlement_is_zero_sum_and_the_winner_gains(request: dict[str, Any]) -> None:
    result = score(request)
    assert result.valid, result.message
    assert sum(result.deltas) == 0
    winner = request["winner"]
    hand_gain = sum(i.amount for i in result.items if i.reason in ("hand", "paozi"))
    assert hand_gain >= 3
    assert all(i.payee == winner for i in result.items if i.reason in ("hand", "paozi"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(winning_requests(), st.randoms(use_true_random=False))
def test_tile_order_does_not_matter(request: dict[str, Any], rng: Any) -> None:
    shuffled = dict(request, hand=rng.sample(request["hand"], len(request["hand"])))
    assert result_to_dict(score(shuffled)) == result_to_dict(score(request))
