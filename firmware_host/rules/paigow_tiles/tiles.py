"""The 32 Pai Gow tiles (§ 535.3(c), § 535.4(f)) and their text form.

A tile is written as its two ends' spots, lower end first: ``6-6``, ``1-2``, ``4-5``
(``5-4`` is accepted and means ``4-5``). Tiles of the same spots are interchangeable, so
each of the 21 kinds is one :class:`Tile` object; the set holds two of each of the 11
matched kinds and one of each of the 10 others.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable

from firmware_host.errors import RulesError


@dataclasses.dataclass(frozen=True, eq=False)
class Tile:
    """One kind of tile; the module holds exactly one object per kind (compare with ``is`` or ``==``).

    :param low: spots on the end with fewer spots (1-6).
    :param high: spots on the other end (``low``-6).
    :param name: the regulation's name for it (``Twelve`` for ``6-6``).
    :param rank: individual ranking of § 535.4(f), 1 (highest) to 17.
    :param copies: how many of it a set holds (§ 535.4(f), "Number of Tiles in Set").
    :param index: position in :data:`TILE_KINDS` (rank order), for table look-ups.
    """

    low: int
    high: int
    name: str
    rank: int
    copies: int
    index: int

    @property
    def text(self) -> str:
        """``"6-6"``: the form used on the command line, in profiles and in the journal."""
        return f"{self.low}-{self.high}"

    @property
    def spots(self) -> int:
        """Total spots (the Supreme Pair's tiles can count otherwise, see :meth:`counts`)."""
        return self.low + self.high

    @property
    def is_supreme(self) -> bool:
        """Whether this is one of the two tiles of the Supreme Pair, ``1-2`` and ``2-4``."""
        return self.text in SUPREME_TILE_TEXTS

    def counts(self) -> tuple[tuple[int, int], ...]:
        """The (count, individual rank) pairs this tile may take inside a hand.

        § 535.4(d): used apart, the Supreme Pair's ``1-2`` and ``2-4`` each count as 3 or 6,
        and rank fifteenth when counted as 6 and seventeenth when counted as 3. Every other
        tile counts its spots at its § 535.4(f) rank.
        """
        if self.is_supreme:
            return ((3, RANK_COUNTED_AS_3), (6, RANK_COUNTED_AS_6))
        return ((self.spots, self.rank),)

    def __repr__(self) -> str:
        return f"Tile({self.text})"

    def __str__(self) -> str:
        return self.text


#: § 535.4(f), row by row: (spots, name, individual rank, number of tiles in the set).
_RANK_TABLE: tuple[tuple[str, str, int, int], ...] = (
    ("6-6", "Twelve", 1, 2),
    ("1-1", "Two", 2, 2),
    ("4-4", "Eight", 3, 2),
    ("1-3", "Four", 4, 2),
    ("5-5", "Ten", 5, 2),
    ("3-3", "Six", 6, 2),
    ("2-2", "Four", 7, 2),
    ("5-6", "Eleven", 8, 2),
    ("4-6", "Ten", 9, 2),
    ("1-6", "Seven", 10, 2),
    ("1-5", "Six", 11, 2),
    ("3-6", "Nine", 12, 1),
    ("4-5", "Nine", 12, 1),
    ("2-6", "Eight", 13, 1),
    ("3-5", "Eight", 13, 1),
    ("2-5", "Seven", 14, 1),
    ("3-4", "Seven", 14, 1),
    ("2-4", "Six", 15, 1),
    ("1-4", "Five", 16, 1),
    ("2-3", "Five", 16, 1),
    ("1-2", "Three", 17, 1),
)

#: The Supreme Pair's tiles, Six (2-4) and Three (1-2) (§ 535.1 "Supreme Pair").
SUPREME_TILE_TEXTS = frozenset({"1-2", "2-4"})
#: § 535.4(d): a Supreme Pair tile counted as 6 ranks fifteenth (the 2-4's own rank) ...
RANK_COUNTED_AS_6 = 15
#: ... and counted as 3 ranks seventeenth (the 1-2's own rank).
RANK_COUNTED_AS_3 = 17

#: The 21 kinds of tile in § 535.4(f) order, highest first.
TILE_KINDS: tuple[Tile, ...] = tuple(
    Tile(int(text[0]), int(text[2]), name, rank, copies, index)
    for index, (text, name, rank, copies) in enumerate(_RANK_TABLE)
)
#: Kind by text, ``"6-6"`` -> the Twelve.
TILES_BY_TEXT: dict[str, Tile] = {tile.text: tile for tile in TILE_KINDS}
#: The full set of § 535.3(c): 32 tiles, each kind as many times as the set holds it.
TILE_SET: tuple[Tile, ...] = tuple(tile for tile in TILE_KINDS for _ in range(tile.copies))

_TILE_TEXT = re.compile(r"\s*([1-6])\s*-\s*([1-6])\s*")


def parse_tile(text: str) -> Tile:
    """The tile written ``text`` (``"6-6"``, ``"5-4"``).

    :raises RulesError: the text is not two spot counts 1-6 joined by ``-``.
    """
    match = _TILE_TEXT.fullmatch(text)
    if match is None:
        raise RulesError(f"tile {text!r}: expected two spot counts 1-6 joined by '-', like 6-6 or 4-5")
    low, high = sorted((int(match.group(1)), int(match.group(2))))
    return TILES_BY_TEXT[f"{low}-{high}"]


def parse_tiles(text: str, *, count: int | None = None) -> tuple[Tile, ...]:
    """Comma-separated tiles (``"6-6,4-5,1-3,2-2"``), checked to come from one set.

    :param count: the number of tiles required, if any.
    :raises RulesError: a tile is malformed, the count is wrong, or a kind appears more
        often than a set holds it.
    """
    tiles = tuple(parse_tile(part) for part in text.split(",")) if text.strip() else ()
    if count is not None and len(tiles) != count:
        raise RulesError(f"tiles {text!r}: expected {count} tiles, got {len(tiles)}")
    check_drawable(tiles)
    return tiles


def check_drawable(tiles: Iterable[Tile]) -> None:
    """Check that ``tiles`` could all come from one set (no kind more often than § 535.4(f) allows).

    :raises RulesError: naming the over-represented kind.
    """
    for tile, seen in Counter(tiles).items():
        if seen > tile.copies:
            raise RulesError(f"tile {tile.text} appears {seen} times; a set holds {tile.copies} (§ 535.4(f))")


def check_tile_set(tiles: Iterable[Tile]) -> None:
    """Check a set's composition at opening (§ 535.6(a)(1), § 535.3(c)): exactly the 32 tiles.

    :raises RulesError: listing every missing and every surplus tile.
    """
    have = Counter(tiles)
    want = Counter(TILE_SET)
    missing = want - have
    surplus = have - want
    if missing or surplus:
        problems = [f"missing {_multiset_text(missing)}"] if missing else []
        problems += [f"surplus {_multiset_text(surplus)}"] if surplus else []
        raise RulesError(f"tile set is not the 32 tiles of § 535.3(c): {'; '.join(problems)}")


def tiles_text(tiles: Iterable[Tile]) -> str:
    """The comma-separated text of ``tiles`` (inverse of :func:`parse_tiles`)."""
    return ",".join(tile.text for tile in tiles)


def _multiset_text(counts: Counter[Tile]) -> str:
    ordered = sorted(counts.items(), key=lambda item: item[0].index)
    return ", ".join(f"{count} x {tile.text}" if count > 1 else tile.text for tile, count in ordered)
