"""A table's game across hands (hupai.scoring.game): succession per city — the seed sentences are
the test names — round wind, the dealer's streak, players ↔ seats, totals."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hupai.scoring import ScoringInputError
from hupai.scoring.game import GameState, Seating, TableSetup, play, to_seats
from hupai.scoring.shaanxi import ShaanxiTable

#: A self-drawn win each city scores (the winner is added by the test), in players' terms.
SELF_DRAWN = {
    "nanning": {"hand": "123m456p789s111z55z", "win_tile": "5z", "win": "self_draw"},
    "nanchang": {
        "hand": "123m456p789s111z55z",
        "win_tile": "5z",
        "win": "self_draw",
        "indicator": "2z",
    },
    "ningbo": {"indicator": "3s", "hand": "123m456m789p555z1z4s", "win_tile": "4s"}
    | {"win": "self_draw"},
    "guiyang": {
        "hand": "123p123p456m789m55s",
        "win_tile": "5s",
        "win": "self_draw",
        "indicator": "9p",
    },
    "shaanxi": {"hand": "123m456m789m123p55s", "win_tile": "5s", "win": "self_draw"},
}


def win(city: str, winner: int, **extra: Any) -> dict[str, Any]:
    return {"kind": "win", "winner": winner, **SELF_DRAWN[city], **extra}


def run(setup: TableSetup, entries: list[dict[str, Any]]) -> GameState:
    state = GameState.start(setup)
    for entry in entries:
        state = play(setup, state, entry).after
    return state


def next_dealer(city: str, entry: dict[str, Any], dealer: int = 0, **setup: Any) -> int:
    table = TableSetup(city, first_dealer=dealer, **setup)
    return run(table, [entry]).seating.dealer


# -- succession, city by city (seed 000–004) --------------------------------------------------
def test_nanning_if_another_player_wins_that_player_becomes_the_new_dealer() -> None:
    assert next_dealer("nanning", win("nanning", 2)) == 2


def test_nanning_the_dealer_who_wins_keeps_the_deal() -> None:
    assert next_dealer("nanning", win("nanning", 1), dealer=1) == 1


def test_nanning_the_player_who_draws_the_last_tile_becomes_the_dealer() -> None:
    assert next_dealer("nanning", {"kind": "draw", "last_drawer": 3}) == 3


def test_nanning_a_draw_without_the_last_drawer_is_refused() -> None:
    with pytest.raises(ScoringInputError, match="last_drawer: required in nanning"):
        next_dealer("nanning", {"kind": "draw"})


def test_nanchang_on_a_draw_the_dealer_remains_the_dealer() -> None:
    assert next_dealer("nanchang", {"kind": "draw"}) == 0


def test_nanchang_if_any_kongs_were_declared_the_dealer_will_shift_to_the_next_player() -> None:
    assert next_dealer("nanchang", {"kind": "draw", "kong_declared": True}, dealer=3) == 0


def test_nanchang_a_non_dealer_win_passes_the_deal_by_default() -> None:
    assert next_dealer("nanchang", win("nanchang", 2)) == 1


def test_nanchang_option_succession_winner_gives_the_deal_to_the_winner() -> None:
    assert next_dealer("nanchang", win("nanchang", 2), succession="winner") == 2


def test_ningbo_after_each_hand_the_dealer_changes() -> None:
    assert next_dealer("ningbo", win("ningbo", 0)) == 1
    assert next_dealer("ningbo", {"kind": "draw"}) == 1


def test_ningbo_after_4_hands_the_round_wind_changes() -> None:
    setup = TableSetup("ningbo", first_dealer=2)
    winds = []
    state = GameState.start(setup)
    for _ in range(9):
        winds.append(state.seating.round_wind_tile)
        state = play(setup, state, {"kind": "draw"}).after
    assert winds == ["1z"] * 4 + ["2z"] * 4 + ["3z"]


def test_guiyang_yellow_tile_the_dealer_remains_the_same() -> None:
    assert next_dealer("guiyang", {"kind": "draw"}, dealer=2) == 2


def test_guiyang_dealer_continuous_win_keeps_the_deal() -> None:
    assert next_dealer("guiyang", win("guiyang", 1), dealer=1) == 1


def test_guiyang_a_non_dealer_win_passes_the_deal_by_default() -> None:
    assert next_dealer("guiyang", win("guiyang", 3)) == 1


def test_shaanxi_if_the_dealer_wins_the_same_player_remains_the_dealer() -> None:
    assert next_dealer("shaanxi", win("shaanxi", 0)) == 0


def test_shaanxi_if_the_game_results_in_a_draw_the_same_player_remains_the_dealer() -> None:
    assert next_dealer("shaanxi", {"kind": "draw"}) == 0


def test_shaanxi_otherwise_the_deal_passes_to_the_next_player() -> None:
    assert next_dealer("shaanxi", win("shaanxi", 2), dealer=3) == 0


def test_a_succession_choice_is_refused_where_the_seed_decides() -> None:
    with pytest.raises(ScoringInputError, match="shaanxi's seed says who deals next"):
        TableSetup("shaanxi", succession="winner").check()


@pytest.mark.parametrize("choice", [{"a": 1}, ["next"], 1, "sometimes"])
def test_a_succession_that_is_not_next_or_winner_is_refused_by_name(choice: Any) -> None:
    """Found by the service's OpenAPI fuzzing: an object here was a 500 (unhashable)."""
    with pytest.raises(ScoringInputError, match=r"^succession: .* is not one of: next, winner"):
        TableSetup("guiyang", succession=choice).check()


# -- round wind, streak --------------------------------------------------------------------------
def test_the_round_wind_moves_on_when_the_deal_passes_back_to_the_first_dealer() -> None:
    setup = TableSetup("shaanxi", first_dealer=1)
    # dealers 1, 2, 3, 0 (non-dealers win: the deal passes), then back to 1: South round
    state = run(setup, [win("shaanxi", (d + 2) % 4) for d in (1, 2, 3, 0)])
    assert (state.seating.dealer, state.seating.round_wind_tile, state.seating.deal) == (1, "2z", 1)


def test_the_deal_number_counts_dealers_not_hands() -> None:
    setup = TableSetup("shaanxi")
    state = run(setup, [win("shaanxi", 0), {"kind": "draw"}, win("shaanxi", 2)])
    assert (state.seating.dealer, state.seating.deal) == (1, 2)


def test_nanning_winner_deals_wind_moves_on_when_the_first_dealer_deals_again() -> None:
    setup = TableSetup("nanning", first_dealer=0)
    state = run(setup, [win("nanning", 2), win("nanning", 0)])
    assert (state.seating.dealer, state.seating.round_wind_tile) == (0, "2z")


def test_guiyang_streak_counts_the_dealers_wins_in_a_row() -> None:
    setup = TableSetup("guiyang", first_dealer=0)
    state = GameState.start(setup)
    streaks = []
    for _ in range(3):
        hand = play(setup, state, win("guiyang", 0))
        streaks.append(hand.request["dealer_streak"] if hand.request else None)
        state = hand.after
    assert streaks == [1, 2, 3]


def test_guiyang_streak_multiplies_the_dealers_second_win() -> None:
    setup = TableSetup("guiyang")
    first = play(setup, GameState.start(setup), win("guiyang", 0))
    second = play(setup, first.after, win("guiyang", 0))
    assert second.deltas[0] > first.deltas[0]


def test_a_draw_neither_adds_to_nor_breaks_the_streak() -> None:
    setup = TableSetup("guiyang")
    state = run(setup, [win("guiyang", 0), {"kind": "draw"}])
    assert state.seating.dealer_streak == 2


def test_a_pass_resets_the_streak() -> None:
    setup = TableSetup("guiyang", first_dealer=0)
    state = run(setup, [win("guiyang", 0), win("guiyang", 2)])
    assert (state.seating.dealer, state.seating.dealer_streak) == (1, 1)


def test_the_streak_is_not_sent_when_a_non_dealer_wins() -> None:
    setup = TableSetup("guiyang")
    state = run(setup, [win("guiyang", 0)])
    hand = play(setup, state, win("guiyang", 3))
    assert hand.request is not None and "dealer_streak" not in hand.request


def test_the_table_fills_the_round_wind_and_refuses_it_from_the_hand() -> None:
    setup = TableSetup("shaanxi")
    with pytest.raises(ScoringInputError, match="round_wind: filled in by the table"):
        play(setup, GameState.start(setup), win("shaanxi", 1, round_wind="2z"))


# -- players and seats ---------------------------------------------------------------------------
def test_deltas_by_seat_are_mapped_to_players() -> None:
    setup = TableSetup("shaanxi", first_dealer=2)
    hand = play(setup, GameState.start(setup), win("shaanxi", 2))  # the dealer self-draws: ×2
    assert hand.deltas == (-12, -12, 36, -12)


def test_a_discarder_is_a_player_turned_into_a_seat() -> None:
    setup = TableSetup("shaanxi", first_dealer=3)
    entry = {**win("shaanxi", 1), "win": "discard", "discarder": 2}
    hand = play(setup, GameState.start(setup), entry)
    assert hand.request is not None
    assert (hand.request["winner"], hand.request["discarder"]) == (2, 3)
    assert hand.deltas == (0, 3, -3, 0)


def test_a_by_seat_field_is_rotated_from_players() -> None:
    seated = to_seats({"paozi": [4, 0, 0, 1]}, ShaanxiTable, Seating(dealer=3))
    assert seated["paozi"] == [1, 4, 0, 0]


def test_a_nested_seat_field_is_turned_into_a_seat() -> None:
    entry = {"kongs": [{"seat": 0, "kind": "kong", "discarder": 1}]}
    seated = to_seats(entry, ShaanxiTable, Seating(dealer=1))
    assert seated["kongs"] == [{"seat": 3, "kind": "kong", "discarder": 0}]


def test_a_meld_source_is_turned_into_a_seat() -> None:
    entry = {"melds": [{"tiles": "555z", "from": 0}]}
    assert to_seats(entry, ShaanxiTable, Seating(dealer=2))["melds"] == [
        {"tiles": "555z", "from": 2}
    ]


def test_a_player_out_of_range_is_named() -> None:
    with pytest.raises(ScoringInputError, match="winner: 4 is not a player"):
        to_seats({"winner": 4}, ShaanxiTable, Seating(dealer=0))


def test_a_hand_that_does_not_win_is_played_with_no_deltas_and_its_reason() -> None:
    setup = TableSetup("shaanxi")
    entry = {**win("shaanxi", 1), "hand": "123m456m789m124p55s"}
    hand = play(setup, GameState.start(setup), entry)
    assert (hand.problem, hand.deltas) == ("not_a_winning_hand", (0, 0, 0, 0))


def test_guiyang_yellow_tile_draw_with_four_hands_is_settled() -> None:
    setup = TableSetup("guiyang", first_dealer=1)
    # player 1 waits on 6s; the others are not ready
    hands = [
        {"hand": "5m114779p134679s"},
        {"hand": "123456789m123p6s"},
        {"hand": "6m224588p235889s"},
        {"hand": "447m33669p14577s"},
    ]
    played = play(setup, GameState.start(setup), {"kind": "draw", "hands": hands})
    assert played.result is not None and sum(played.deltas) == 0
    assert played.deltas[1] > 0 and played.after.seating.dealer == 1


def test_a_drawn_hand_in_a_city_that_does_not_settle_draws_refuses_hands() -> None:
    setup = TableSetup("shaanxi")
    with pytest.raises(ScoringInputError, match="shaanxi does not settle a drawn hand"):
        play(setup, GameState.start(setup), {"kind": "draw", "hands": [{}, {}, {}, {}]})


# -- invariants ----------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    city=st.sampled_from(["shaanxi", "guiyang", "nanning"]),
    first=st.integers(0, 3),
    start=st.integers(-100, 100),
    outcomes=st.lists(st.one_of(st.integers(0, 3), st.none()), max_size=12),
)
def test_totals_always_sum_to_four_times_the_start(
    city: str, first: int, start: int, outcomes: list[int | None]
) -> None:
    setup = TableSetup(city, first_dealer=first, starting_points=start)
    state = GameState.start(setup)
    for winner in outcomes:
        entry = (
            win(city, winner)
            if winner is not None
            else {"kind": "draw", "last_drawer": (first + 1) % 4}
        )
        state = play(setup, state, entry).after
    assert sum(state.totals) == 4 * start
    assert state.hands == len(outcomes)


@settings(max_examples=30, deadline=None)
@given(dealer=st.integers(0, 3), wind=st.integers(0, 3), deal=st.integers(1, 4))
def test_a_stored_state_round_trips(dealer: int, wind: int, deal: int) -> None:
    state = GameState(Seating(dealer, wind, deal, 2), (1, -2, 3, -2), 7)
    assert GameState.from_dict(state.to_dict()) == state


def test_a_discarder_who_is_the_winner_is_named_as_a_player() -> None:
    setup = TableSetup("shaanxi", first_dealer=2)
    entry = {**win("shaanxi", 1), "win": "discard", "discarder": 1}
    with pytest.raises(ScoringInputError, match="discarder: player 1 is the winner"):
        play(setup, GameState.start(setup), entry)


def test_a_chow_from_the_wrong_player_names_players_not_seats() -> None:
    setup = TableSetup("shaanxi", first_dealer=3)
    entry = {
        **win("shaanxi", 1),
        "hand": "456m789m123p55s",
        "melds": [{"kind": "chow", "tiles": "123m", "from": 2}],
    }
    with pytest.raises(ScoringInputError, match=r"player before the winner \(0\), not 2"):
        play(setup, GameState.start(setup), entry)
