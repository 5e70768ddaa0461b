"""Settlement: zero-sum by construction, the helpers, and the registry's lazy loading."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hupai.scoring import ItemGroup, Result, Settlement, registry
from hupai.scoring.settlement import Item

payments = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 500)).filter(
        lambda p: p[0] != p[1]
    ),
    max_size=30,
)


@given(payments, st.integers(1, 8), st.sampled_from([None, 0, 1, 2, 3]))
def test_any_settlement_is_zero_sum(
    pays: list[tuple[int, int, int]], factor: int, payer: int | None
) -> None:
    s = Settlement()
    for a, b, amount in pays:
        s = s.pay(a, b, amount, "x", "x")
    assert sum(s.deltas) == 0
    assert sum(s.scaled(factor, payer=payer).deltas) == 0


@given(st.integers(0, 3), st.integers(1, 100))
def test_each_other_seat_pays(payee: int, amount: int) -> None:
    s = Settlement().each_pays(payee, amount, "hand", "self-draw")
    assert s.deltas[payee] == 3 * amount
    assert len(s.items) == 3


def test_per_payer_amounts_from_a_function() -> None:
    s = Settlement().each_pays(0, lambda seat: 10 * seat, "hand", "fished")
    assert s.deltas == (60, -10, -20, -30)


def test_one_seat_pays_each_other() -> None:
    s = Settlement().pays_each(2, 5, "spirits", "spirits", ItemGroup.INSTANT)
    assert s.deltas == (5, 5, -15, 5)
    assert s.total(group=ItemGroup.INSTANT) == 15 and s.total(group=ItemGroup.HAND) == 0


def test_zero_amounts_leave_no_item() -> None:
    assert Settlement().pay(0, 1, 0, "x", "x").items == ()


def test_scaling_filters_by_reason_and_group() -> None:
    s = (
        Settlement()
        .pay(1, 0, 2, "hand", "win")
        .pay(1, 0, 1, "kong", "kong", ItemGroup.INSTANT)
        .scaled(4, reason="hand")
    )
    assert [i.amount for i in s.items] == [8, 1]
    assert s.scaled(2, group=ItemGroup.INSTANT).deltas == (10, -10, 0, 0)


@pytest.mark.parametrize(
    ("payer", "payee", "amount", "message"),
    [(0, 0, 1, "payment from seat 0 to seat 0"), (0, 4, 1, "to seat 4"), (0, 1, -1, "positive")],
)
def test_bad_items_are_refused(payer: int, payee: int, amount: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Item("x", "x", payer, payee, amount)


def test_an_invalid_result_pays_nothing() -> None:
    r = Result.invalid("toy", "below_minimum", "2 points, 9 needed")
    assert (r.valid, r.reason, r.deltas, r.items) == (False, "below_minimum", (0, 0, 0, 0), ())


def test_a_missing_city_module_is_skipped_but_a_broken_one_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registry, "CITY_MODULES", ("no_such_city_yet",))
    monkeypatch.setattr(registry, "_loaded", None)
    assert registry.city_names() == ()
    with pytest.raises(registry.UnknownCityError, match="known: none yet"):
        registry.get_city("nanning")
    monkeypatch.setattr(registry, "CITY_MODULES", ("tiles",))  # exists, has no CITY
    monkeypatch.setattr(registry, "_loaded", None)
    assert registry.city_names() == ()


def test_every_registered_city_describes_itself_as_plain_data() -> None:
    import json

    for entry in registry.describe_cities():
        json.dumps(entry)
        assert {"name", "title", "tiles", "exposed_chows", "options", "fields"} <= set(entry)
