"""Two-tile hands, their ranking (§ 535.4), and the ways to set four tiles (§ 535.10(a)).

Every hand has a :class:`HandRank` whose ``strength`` orders all hands: a higher strength
outranks a lower one, and equal strengths are a copy hand (§ 535.4(b), (g)), which the
dealer or the bank wins. :mod:`.compare` applies that and the zero-value rule.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.tiles import TILE_KINDS, Tile, check_drawable, parse_tiles, tiles_text


@dataclasses.dataclass(frozen=True)
class PairRow:
    """One row of the permissible pairs of § 535.4(a).

    :param rank: 1 (the Supreme Pair) to 20 (the Gong of Two).
    :param name: what the dealer announces.
    :param group: ``supreme``, ``matched``, ``mixed``, ``wong`` or ``gong`` (the table's headings).
    :param tiles: the tile pairs that form it (one, or several for Wongs and Gongs).
    """

    rank: int
    name: str
    group: str
    tiles: tuple[tuple[str, str], ...]


#: § 535.4(a), row by row, highest first.
PAIR_TABLE: tuple[PairRow, ...] = (
    PairRow(1, "Supreme Pair", "supreme", (("2-4", "1-2"),)),
    PairRow(2, "Pair of Twelves (6-6)", "matched", (("6-6", "6-6"),)),
    PairRow(3, "Pair of Twos (1-1)", "matched", (("1-1", "1-1"),)),
    PairRow(4, "Pair of Eights (4-4)", "matched", (("4-4", "4-4"),)),
    PairRow(5, "Pair of Fours (1-3)", "matched", (("1-3", "1-3"),)),
    PairRow(6, "Pair of Tens (5-5)", "matched", (("5-5", "5-5"),)),
    PairRow(7, "Pair of Sixes (3-3)", "matched", (("3-3", "3-3"),)),
    PairRow(8, "Pair of Fours (2-2)", "matched", (("2-2", "2-2"),)),
    PairRow(9, "Pair of Elevens (5-6)", "matched", (("5-6", "5-6"),)),
    PairRow(10, "Pair of Tens (4-6)", "matched", (("4-6", "4-6"),)),
    PairRow(11, "Pair of Sevens (1-6)", "matched", (("1-6", "1-6"),)),
    PairRow(12, "Pair of Sixes (1-5)", "matched", (("1-5", "1-5"),)),
    PairRow(13, "Mixed Nines", "mixed", (("3-6", "4-5"),)),
    PairRow(14, "Mixed Eights", "mixed", (("3-5", "2-6"),)),
    PairRow(15, "Mixed Sevens", "mixed", (("3-4", "2-5"),)),
    PairRow(16, "Mixed Fives", "mixed", (("1-4", "2-3"),)),
    PairRow(17, "Wong (Twelve and Nine)", "wong", (("6-6", "4-5"), ("6-6", "3-6"))),
    PairRow(18, "Wong (Two and Nine)", "wong", (("1-1", "4-5"), ("1-1", "3-6"))),
    PairRow(19, "Gong (Twelve and Eight)", "gong", (("6-6", "2-6"), ("6-6", "3-5"), ("6-6", "4-4"))),
    PairRow(20, "Gong (Two and Eight)", "gong", (("1-1", "2-6"), ("1-1", "3-5"), ("1-1", "4-4"))),
)

#: Any permissible pair outranks every hand without one (§ 535.4(a)): pair strengths start here.
PAIR_STRENGTH_BASE = 1000
#: Value hands: strength = value * 100 + (18 - rank of the highest tile), so value decides
#: first (§ 535.4(c)) and the highest-ranking tile second (§ 535.4(e)); always < 1000.
_VALUE_STEP = 100
_LOWEST_TILE_RANK_PLUS_ONE = 18


@dataclasses.dataclass(frozen=True)
class HandRank:
    """How a two-tile hand ranks.

    :param strength: total order over hands; equal strength is a copy hand.
    :param pair: the § 535.4(a) row, or ``None`` for a hand ranked by value.
    :param value: 0-9 (§ 535.4(c)) for a hand without a pair, else ``None``.
    :param high_tile: the hand's highest-ranking tile (§ 535.4(e)).
    :param high_tile_rank: its individual rank (§ 535.4(f), as changed by § 535.4(d)).
    :param supreme_count: 3 or 6, what a Supreme Pair tile used apart counts as here (§ 535.4(d)).
    """

    strength: int
    pair: PairRow | None
    value: int | None
    high_tile: Tile
    high_tile_rank: int
    supreme_count: int | None = None

    def describe(self) -> str:
        """One line for the dealer: ``"Wong (Twelve and Nine), pair rank 17"`` or ``"value 8, ..."``."""
        if self.pair is not None:
            return f"{self.pair.name}, pair rank {self.pair.rank}"
        counted = f" (Supreme Pair tile counted as {self.supreme_count})" if self.supreme_count else ""
        return (
            f"value {self.value}{counted}, highest tile {self.high_tile.name} ({self.high_tile.text}),"
            f" tile rank {self.high_tile_rank}"
        )


@dataclasses.dataclass(frozen=True)
class Hand:
    """Two tiles played together; stored highest-ranking kind first, so equal hands compare equal."""

    first: Tile
    second: Tile

    def __post_init__(self) -> None:
        if self.second.index < self.first.index:
            first, second = self.second, self.first
            object.__setattr__(self, "first", first)
            object.__setattr__(self, "second", second)

    @classmethod
    def parse(cls, text: str) -> Hand:
        """The hand written ``"6-6,4-5"``.

        :raises RulesError: not two tiles, or tiles one set cannot hold together.
        """
        first, second = parse_tiles(text, count=2)
        return cls(first, second)

    @property
    def tiles(self) -> tuple[Tile, Tile]:
        return (self.first, self.second)

    @property
    def text(self) -> str:
        """``"6-6,4-5"`` (inverse of :meth:`parse`)."""
        return tiles_text(self.tiles)

    @property
    def rank(self) -> HandRank:
        """The hand's ranking under § 535.4."""
        return _RANKS[self.first.index][self.second.index]

    def to_json(self) -> dict[str, Any]:
        """The JSON form used by the CLI and the journal."""
        rank = self.rank
        return {
            "tiles": [tile.text for tile in self.tiles],
            "pair": rank.pair.name if rank.pair else None,
            "pair_rank": rank.pair.rank if rank.pair else None,
            "value": rank.value,
            "highest_tile": rank.high_tile.text,
            "highest_tile_rank": rank.high_tile_rank,
            "supreme_tile_counted_as": rank.supreme_count,
            "rank": rank.describe(),
        }

    def __str__(self) -> str:
        return self.text


@dataclasses.dataclass(frozen=True)
class Setting:
    """A high hand and a low hand set from four tiles (§ 535.1 "Setting the hands").

    The high hand must not rank below the low hand. Two hands of identical rank may be
    named either way round (see ``docs/rules-interpretations/paigow-tiles.md``).

    :raises RulesError: the low hand outranks the high hand.
    """

    high: Hand
    low: Hand

    def __post_init__(self) -> None:
        check_drawable(self.tiles)
        if self.low.rank.strength > self.high.rank.strength:
            raise RulesError(
                f"setting {self.text}: the high hand ({self.high.rank.describe()}) ranks below the"
                f" low hand ({self.low.rank.describe()}); swap them (§ 535.1 'High hand')"
            )

    @classmethod
    def of(cls, one: Hand, other: Hand) -> Setting:
        """The setting of two hands, whichever ranks higher being the high hand."""
        if other.rank.strength > one.rank.strength:
            return cls(other, one)
        return cls(one, other)

    @classmethod
    def parse(cls, text: str) -> Setting:
        """The setting written ``"6-6,4-5/1-3,2-2"`` (high hand, ``/``, low hand).

        :raises RulesError: malformed, or the low hand outranks the high hand.
        """
        halves = text.split("/")
        if len(halves) != 2:
            raise RulesError(f"setting {text!r}: expected HIGH/LOW like 6-6,4-5/1-3,2-2")
        return cls(Hand.parse(halves[0]), Hand.parse(halves[1]))

    @property
    def tiles(self) -> tuple[Tile, Tile, Tile, Tile]:
        return (*self.high.tiles, *self.low.tiles)

    @property
    def text(self) -> str:
        """``"6-6,4-5/1-3,2-2"`` (inverse of :meth:`parse`)."""
        return f"{self.high.text}/{self.low.text}"

    @property
    def strengths(self) -> tuple[int, int]:
        """(high, low) strengths: two settings with equal strengths play identically."""
        return (self.high.rank.strength, self.low.rank.strength)

    def to_json(self) -> dict[str, Any]:
        return {"high": self.high.to_json(), "low": self.low.to_json()}

    def __str__(self) -> str:
        return self.text


def legal_settings(tiles: Iterable[Tile]) -> tuple[Setting, ...]:
    """Every distinct way to set four tiles (§ 535.10(a)), strongest high hand first.

    Any split of four tiles into two hands is legal once the higher-ranking hand is named
    the high hand, so there are at most three settings (fewer when tiles repeat).

    :raises RulesError: not four tiles, or tiles one set cannot hold together.
    """
    four = tuple(tiles)
    if len(four) != 4:
        raise RulesError(f"setting needs 4 tiles, got {len(four)}: {tiles_text(four)}")
    check_drawable(four)
    return _settings_of(tuple(sorted(four, key=lambda tile: tile.index)))


@functools.cache
def _settings_of(four: tuple[Tile, Tile, Tile, Tile]) -> tuple[Setting, ...]:
    a, b, c, d = four
    settings = {
        Setting.of(Hand(a, b), Hand(c, d)),
        Setting.of(Hand(a, c), Hand(b, d)),
        Setting.of(Hand(a, d), Hand(b, c)),
    }
    return tuple(sorted(settings, key=lambda setting: (setting.strengths, setting.text), reverse=True))


def _pair_rows_by_tiles() -> dict[tuple[int, int], PairRow]:
    rows: dict[tuple[int, int], PairRow] = {}
    for row in PAIR_TABLE:
        for texts in row.tiles:
            first, second = sorted(parse_tiles(",".join(texts)), key=lambda tile: tile.index)
            rows[(first.index, second.index)] = row
    return rows


def _rank_of(first: Tile, second: Tile, pairs: dict[tuple[int, int], PairRow]) -> HandRank:
    row = pairs.get((first.index, second.index))
    if row is not None:
        strength = PAIR_STRENGTH_BASE + len(PAIR_TABLE) + 1 - row.rank
        return HandRank(strength, row, None, first, first.rank)
    ranks = []
    # § 535.4(d): a Supreme Pair tile used apart counts 3 or 6; the hand takes the better.
    for count_a, rank_a in first.counts():
        for count_b, rank_b in second.counts():
            value = (count_a + count_b) % 10  # § 535.4(c): the right digit of the total
            high_tile, high_rank = (first, rank_a) if rank_a <= rank_b else (second, rank_b)
            supreme_count = count_a if first.is_supreme else count_b if second.is_supreme else None
            strength = value * _VALUE_STEP + _LOWEST_TILE_RANK_PLUS_ONE - high_rank
            ranks.append(HandRank(strength, None, value, high_tile, high_rank, supreme_count))
    return max(ranks, key=lambda rank: rank.strength)


def _rank_table() -> tuple[tuple[HandRank, ...], ...]:
    pairs = _pair_rows_by_tiles()
    return tuple(
        tuple(_rank_of(*((one, other) if one.index <= other.index else (other, one)), pairs) for other in TILE_KINDS)
        for one in TILE_KINDS
    )


#: Rank of every hand, indexed [one.index][other.index] (symmetric).
_RANKS = _rank_table()

#: § 535.6(a)(1), (b): the 16 pairs a set is sorted into for inspection, Supreme Pair first.
INSPECTION_PAIRS: tuple[Hand, ...] = tuple(
    Hand.parse(",".join(row.tiles[0])) for row in PAIR_TABLE if row.group in ("supreme", "matched", "mixed")
)
