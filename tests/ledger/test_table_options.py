"""A table's house rules and variants, set once in its options: every hand is scored with
them, and changing them later re-scores the table like an edit (both backends)."""

from __future__ import annotations

from typing import Any

import pytest

from hupai.ledger.errors import Invalid, ReadOnly, Stale
from hupai.ledger.store import Ledger

PLAYERS = ["Ann", "Bo", "Chen", "Dee"]
#: Chen (player 2, never the dealer here) self-draws a plain hand: 3 × 2 = 6 from each.
CHEN_SELF_DRAWS = {
    "winner": 2,
    "win": "self_draw",
    "hand": "123m456m789m123p55s",
    "win_tile": "5s",
}


def new_table(ledger: Ledger, **options: Any) -> dict[str, Any]:
    return ledger.create_table({"city": "shaanxi", "players": PLAYERS, "options": options})


def test_a_new_table_shows_its_house_rules_with_the_defaults(ledger: Ledger) -> None:
    plain = new_table(ledger)
    assert (plain["options"], plain["house_rules"]) == ({}, {"cap": 0, "dealer_double": False})
    capped = new_table(ledger, cap=10)
    assert capped["house_rules"] == {"cap": 10, "dealer_double": False}


def test_every_hand_of_the_table_is_scored_with_its_house_rules(ledger: Ledger) -> None:
    """Hand 1: Ann deals and pays double, 12; hand 2: the deal passed to Bo, who pays 12.
    Totals: Ann −12 − 6, Bo −6 − 12, Chen 24 + 24, Dee −6 − 6."""
    table = new_table(ledger, dealer_double=True)
    token = table["write_token"]
    assert ledger.add_hand(token, CHEN_SELF_DRAWS)["totals"] == [-12, -6, 24, -6]
    assert ledger.add_hand(token, CHEN_SELF_DRAWS)["totals"] == [-18, -18, 48, -12]


def test_changing_the_options_rescores_every_hand_and_keeps_the_old_ones(
    ledger: Ledger,
) -> None:
    """Two hands without house rules: 6 from each, totals (−12, −12, 36, −12). With the dealer
    double and a cap of 10 the dealer of each hand pays 10 (12 capped): (−16, −16, 44, −12)."""
    table = new_table(ledger)
    token = table["write_token"]
    ledger.add_hand(token, CHEN_SELF_DRAWS)
    ledger.add_hand(token, CHEN_SELF_DRAWS)
    before = ledger.view(token)
    assert before["totals"] == [-12, -12, 36, -12]

    after = ledger.set_options(token, {"dealer_double": True, "cap": 10}, before["revision"])
    assert after["totals"] == [-16, -16, 44, -12]
    assert after["house_rules"] == {"cap": 10, "dealer_double": True}
    assert after["revision"] > before["revision"]
    reasons = [i["reason"] for i in ledger.hand(token, 1)["result"]["items"]]
    assert reasons.count("dealer_double") == 1 and reasons.count("cap") == 1
    history = ledger.options_history(table["read_token"])
    assert [h["options"] for h in history] == [{}, {"dealer_double": True, "cap": 10}]
    assert history[0]["until_revision"] == before["revision"]


def test_a_variant_changes_the_score_of_the_hands_it_applies_to(ledger: Ledger) -> None:
    """Chen's hand is pure characters (123m456m789m234m55m): 6 from each, 12 with
    ``pure_suit_double``."""
    table = new_table(ledger)
    token = table["write_token"]
    pure = {**CHEN_SELF_DRAWS, "hand": "123m456m789m234m55m", "win_tile": "5m"}
    ledger.add_hand(token, pure)
    view = ledger.set_options(token, {"pure_suit_double": True}, ledger.view(token)["revision"])
    assert view["totals"] == [-12, -12, 36, -12]


def test_a_stale_change_of_options_is_refused_and_changes_nothing(ledger: Ledger) -> None:
    table = new_table(ledger)
    token = table["write_token"]
    ledger.add_hand(token, CHEN_SELF_DRAWS)
    with pytest.raises(Stale):
        ledger.set_options(token, {"dealer_double": True}, table["revision"])
    assert ledger.view(token)["options"] == {}


def test_the_read_link_cannot_change_the_options(ledger: Ledger) -> None:
    table = new_table(ledger)
    with pytest.raises(ReadOnly):
        ledger.set_options(table["read_token"], {"cap": 5}, table["revision"])


@pytest.mark.parametrize(
    ("options", "field"),
    [({"cap": -1}, "options.cap"), ({"spirit_groups": False}, "options.spirit_groups")],
)
def test_bad_options_are_refused_naming_the_field(
    ledger: Ledger, options: dict[str, Any], field: str
) -> None:
    table = new_table(ledger)
    with pytest.raises(Invalid) as info:
        ledger.set_options(table["write_token"], options, table["revision"])
    assert info.value.field == field
