"""The base class every city rule set subclasses, and the parsed request it scores.

A city is a small subclass (python-chess style): class attributes for the facts
(``name``, ``tile_set``, ``exposed_chows``…), a frozen ``Options`` dataclass and a frozen
``Table`` dataclass (the per-city request fields), and one method, :meth:`City.score`.
See docs/core-api.md for a worked example.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Generic, TypeVar

from hupai.scoring.decompose import Decomposition, ShapeRules, decompose
from hupai.scoring.fields import describe_fields
from hupai.scoring.hand import Hand, Meld, WinContext
from hupai.scoring.house import apply_house_rules
from hupai.scoring.settlement import Result
from hupai.scoring.succession import KEEP_UNLESS_BEATEN, SuccessionRule
from hupai.scoring.tiles import KINDS, Tile

O = TypeVar("O")  # noqa: E741 - the city's Options dataclass
T = TypeVar("T")  # the city's Table dataclass


class TileSet(StrEnum):
    """Which tiles a city plays with."""

    SUITS = "108"  # three suits only (Guiyang)
    STANDARD = "136"  # suits and honors
    FLOWERS = "144"  # suits, honors and the eight flowers

    @property
    def has_honors(self) -> bool:
        return self is not TileSet.SUITS

    @property
    def has_flowers(self) -> bool:
        return self is TileSet.FLOWERS

    def uses(self, tile: Tile) -> bool:
        if tile.is_flower:
            return self.has_flowers
        return not tile.is_honor or self.has_honors


@dataclass(frozen=True)
class NoOptions:
    """For a city without options."""


@dataclass(frozen=True)
class NoTable:
    """For a city without per-city request fields."""


@dataclass(frozen=True)
class Request(Generic[O, T]):
    """A checked request: the hand, how it was won, the city's table fields and options."""

    city: str
    hand: Hand
    win: WinContext
    table: T
    options: O


@dataclass(frozen=True)
class SeatHand:
    """One seat's tiles when a hand ends without a winner: ``concealed`` (sorted; 13, three
    fewer per meld) and the ``melds`` on the table."""

    seat: int
    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]

    def concealed_counts(self) -> list[int]:
        """The concealed tiles as a 34-vector of counts (index = ``Tile.index``)."""
        counts = [0] * KINDS
        for tile in self.concealed:
            counts[tile.index] += 1
        return counts

    @property
    def meld_tiles(self) -> tuple[Tile, ...]:
        return tuple(t for m in self.melds for t in m.tiles)

    @property
    def all_tiles(self) -> tuple[Tile, ...]:
        return self.concealed + self.meld_tiles


@dataclass(frozen=True)
class DrawRequest(Generic[O]):
    """A checked request of kind ``draw`` (the wall ran out, nobody won): all four hands by
    seat, and the city's options. Only cities with ``scores_draws`` take it."""

    city: str
    hands: tuple[SeatHand, ...]
    options: O


class City(ABC, Generic[O, T]):
    """One city's rules. Subclass, set the class attributes, implement :meth:`score`, and
    expose an instance as ``CITY`` in ``scoring/<name>.py`` (see ``hupai.scoring.registry``)."""

    #: registry key and the request's ``city`` value, e.g. "nanning"
    name: ClassVar[str]
    #: for people, e.g. "Nanning — Lucky Catch 南宁麻将"
    title: ClassVar[str] = ""
    #: the seed document it implements, e.g. "000"
    seed: ClassVar[str] = ""
    tile_set: ClassVar[TileSet] = TileSet.STANDARD
    #: whether a chow may be claimed (see also ``chows_allowed``)
    exposed_chows: ClassVar[bool] = True
    #: three different winds / the three dragons form a sequence (also as a claimed chow)
    honor_sequences: ClassVar[bool] = False
    #: the frozen dataclasses the request's ``options`` and table fields are parsed into
    options_type: type[O]
    table_type: type[T]
    #: whether the city settles a drawn hand (a request of kind ``draw``, see score_draw)
    scores_draws: ClassVar[bool] = False
    #: who deals the next hand (hupai.scoring.game applies it across a table's hands)
    succession: ClassVar[SuccessionRule] = KEEP_UNLESS_BEATEN
    #: the city doubles a dealer's win itself: the ``dealer_double`` house rule then only
    #: doubles what the dealer pays (hupai.scoring.house)
    dealer_win_doubled: ClassVar[bool] = False
    #: hand item reasons the ``dealer_double`` house rule leaves alone (Shaanxi's Pao Zi)
    dealer_double_skips: ClassVar[frozenset[str]] = frozenset()

    def flowers_in_hand(self, table: T, options: O) -> bool:
        """Whether flowers may sit among the concealed tiles, as part of ``hand`` (Ningbo:
        after a flipped flower the other seven are wild tiles kept in the hand). Default no:
        flowers are listed apart, under ``flowers``."""
        return False

    def chows_allowed(self, options: O) -> bool:
        """Whether exposed chows are legal under these options (override when an option
        switches it, e.g. Nanning's ``allow_chow_claim``)."""
        return self.exposed_chows

    def check(self, request: Request[O, T]) -> None:
        """Extra input checks after the core's (raise ``ScoringInputError``); optional."""

    @abstractmethod
    def score(self, request: Request[O, T]) -> Result:
        """Score a checked request by the city's own rules: a valid result with items, or
        ``Result.invalid``. The table's house rules are applied after (:meth:`settle`)."""

    def settle(self, request: Request[O, T] | DrawRequest[O]) -> Result:
        """Score a win or a drawn hand, then apply the house rules of its options (cap,
        dealer double: hupai.scoring.house). The registry's ``score`` calls this."""
        if isinstance(request, DrawRequest):
            result = self.score_draw(request)
        else:
            result = self.score(request)
        return apply_house_rules(
            result,
            request.options,
            win_already_doubled=self.dealer_win_doubled,
            skip=self.dealer_double_skips,
        )

    def score_draw(self, request: DrawRequest[O]) -> Result:
        """Settle a drawn hand (request kind ``draw``); override with ``scores_draws``."""
        raise NotImplementedError(f"{self.name} does not settle drawn hands")

    # -- helpers for subclasses ----------------------------------------------------------
    def decompositions(
        self,
        hand: Hand,
        rules: ShapeRules,
        wilds: frozenset[Tile] = frozenset(),
    ) -> tuple[Decomposition, ...]:
        """Every reading of the hand's concealed tiles beside its melds; wilds never stand
        for a fifth copy of a tile (copies in melds count)."""
        limits = [4] * KINDS
        for tile in hand.meld_tiles:
            limits[tile.index] -= 1
        return decompose(hand.concealed_counts(), len(hand.melds), wilds, rules, limits)

    def describe(self) -> dict[str, Any]:
        """This city as plain data (served by ``GET /v1/cities``)."""
        return {
            "name": self.name,
            "title": self.title,
            "seed": self.seed,
            "tiles": int(self.tile_set.value),
            "exposed_chows": self.exposed_chows,
            "honor_sequences": self.honor_sequences,
            "draws": self.scores_draws,
            "succession": {
                "dealer_wins": self.succession.dealer_wins.value,
                "other_wins": self.succession.other_wins.value,
                "draw": self.succession.draw.value,
                "other_win_option": self.succession.other_win_option,
            },
            "options": describe_fields(self.options_type),
            "fields": describe_fields(self.table_type),
        }

    def default_options(self) -> O:
        return self.options_type()

    def __repr__(self) -> str:
        return f"<City {self.name}>"


def option_names(city: City[Any, Any]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(city.options_type))
