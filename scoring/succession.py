"""Who deals the next hand: each city's rule as a small table of values.

A city sets ``succession`` (a :class:`SuccessionRule`) as a class attribute; the game
(:mod:`hupai.scoring.game`) applies it. The seeds' sentences are in
../shared/rules/INTERPRETATION.md, "Across hands".

>>> rule = SuccessionRule(Succession.KEEPS, Succession.PASSES, Succession.KEEPS)
>>> rule.after_win(winner_is_dealer=False).value
'passes'
>>> rule.with_other_win(Succession.WINNER).after_win(winner_is_dealer=False).value
'winner'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum


class Succession(StrEnum):
    """What happens to the deal after a hand."""

    KEEPS = "keeps"  # the dealer deals again
    PASSES = "passes"  # the player in seat 1 (after the dealer) deals
    WINNER = "winner"  # the winner deals
    LAST_DRAWER = "last_drawer"  # who drew the last tile deals (a draw: the table says who)
    PASSES_IF_KONG = "passes_if_kong"  # a draw: keeps, unless a kong was declared in the hand


#: The choices a table may make where a seed is silent on a non-dealer's win (``next`` is
#: the seeds' word for "passes").
OTHER_WIN_CHOICES = {"next": Succession.PASSES, "winner": Succession.WINNER}


@dataclass(frozen=True)
class SuccessionRule:
    """A city's deal succession: after the dealer wins, another player wins, a draw.

    ``other_win_option``: the seed does not say who deals after a non-dealer wins, so a table
    may choose (``succession=next|winner``). ``streak_field``: the city's request field that
    takes the dealer's streak (Guiyang's ``dealer_streak``), filled in by the table.
    """

    dealer_wins: Succession
    other_wins: Succession
    draw: Succession
    other_win_option: bool = False
    streak_field: str | None = None

    def after_win(self, winner_is_dealer: bool) -> Succession:
        return self.dealer_wins if winner_is_dealer else self.other_wins

    def with_other_win(self, choice: Succession) -> SuccessionRule:
        """The rule with a table's choice for a non-dealer's win."""
        return dataclasses.replace(self, other_wins=choice)

    @property
    def draw_needs_drawer(self) -> bool:
        return self.draw is Succession.LAST_DRAWER

    @property
    def draw_needs_kongs(self) -> bool:
        return self.draw is Succession.PASSES_IF_KONG


#: The common rule where a seed says nothing else: the dealer keeps the deal on a win or a
#: draw, and it passes when another player wins.
KEEP_UNLESS_BEATEN = SuccessionRule(Succession.KEEPS, Succession.PASSES, Succession.KEEPS)
