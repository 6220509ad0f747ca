"""The Baccarat scoreboard roads: bead plate, big road, the three derived roads, ask the road.

Pure: a shoe's outcomes in, immutable values out. Written from the rule as issue 14 states it
(open-source road implementations disagree with each other and with it; see
docs/rules-interpretations/roads.md):

- **bead plate**: every round, ties too, in columns of six;
- **big road**: a side's consecutive wins form one logical column (drawn with a dragon tail
  when it is longer than the grid, still one column); a tie adds to the current cell's tie
  count, ties before the first win count on the first cell, pair marks go on the cell;
- **derived roads**, ``k`` = 1 (big eye boy), 2 (small road), 3 (cockroach pig): a new
  big-road cell at column ``c``, row ``r`` (both from 0) makes a mark once ``(c == k and r >= 1)``
  or ``c > k``. With ``r == 0`` it is red when columns ``c-1`` and ``c-1-k`` have the same length,
  else blue. With ``r >= 1`` and ``p`` the length of column ``c-k``: red if ``r < p``, blue if
  ``r == p``, red if ``r > p``. Marks of one colour stack in a column; a change starts a new one;
- **ask the road**: the mark each derived road would get if the next round were banker, or player.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from firmware_host.errors import RulesError

__all__ = [
    "BEAD_ROWS",
    "DERIVED",
    "GRID_ROWS",
    "RED",
    "BLUE",
    "Outcome",
    "Cell",
    "Roads",
    "RoadBuilder",
    "roads",
    "derived_mark",
    "big_road_grid",
    "outcome_from_json",
]

#: Rows of the bead plate: it fills columns of six.
BEAD_ROWS = 6
#: Rows of the big road's grid; a longer column turns right along the bottom (the dragon tail).
GRID_ROWS = 6
#: The derived roads and their ``k``: which earlier column each compares with.
DERIVED: dict[str, int] = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}
RED = "red"
BLUE = "blue"
#: The winners a big-road cell can have, and the bead plate's letter for every winner.
_SIDES = ("banker", "player")
_BEAD_LETTERS = {"banker": "B", "player": "P", "tie": "T"}


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """One finished round as the roads see it.

    :param winner: ``'banker'``, ``'player'`` or ``'tie'`` (§ 541.12(a)).
    :param player_pair, banker_pair: the hand's first two cards are of one rank (§ 631c.5(c)).
    :param natural: either hand was a natural (§ 541.11(a)).
    """

    winner: str
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False

    def __post_init__(self) -> None:
        if self.winner not in _BEAD_LETTERS:
            raise RulesError(f"winner {self.winner!r} is not one of banker, player, tie")


@dataclasses.dataclass(frozen=True, slots=True)
class Cell:
    """One big-road cell: a win of ``winner``, the ties that followed it (or came before the
    shoe's first win), and the pairs of those rounds."""

    winner: str
    ties: int = 0
    player_pair: bool = False
    banker_pair: bool = False

    def to_json_dict(self) -> dict[str, Any]:
        """``{"winner", "ties", "player_pair", "banker_pair"}``."""
        return {
            "winner": self.winner,
            "ties": self.ties,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class Roads:
    """Every road of one shoe.

    :param bead_plate: columns of six letters ``B``/``P``/``T``, one per round.
    :param big_road: logical columns of cells (a dragon tail is still one column).
    :param derived: by road name (:data:`DERIVED`): columns of ``red``/``blue``.
    :param next: ``{"banker": {road: mark | None}, "player": {...}}``: ask the road.
    :param counts: banker, player, tie, player_pair, banker_pair, natural.
    """

    rounds: int
    bead_plate: tuple[tuple[str, ...], ...]
    big_road: tuple[tuple[Cell, ...], ...]
    derived: Mapping[str, tuple[tuple[str, ...], ...]]
    next: Mapping[str, Mapping[str, str | None]]
    counts: Mapping[str, int]

    def to_json_dict(self) -> dict[str, Any]:
        """The object of ``tablehost baccarat roads --json`` and ``/api/roads``."""
        return {
            "rounds": self.rounds,
            "bead_plate": [list(column) for column in self.bead_plate],
            "big_road": [[cell.to_json_dict() for cell in column] for column in self.big_road],
            **{name: [list(column) for column in columns] for name, columns in self.derived.items()},
            "next": {side: dict(marks) for side, marks in self.next.items()},
            "counts": dict(self.counts),
        }


def derived_mark(lengths: Sequence[int], k: int) -> str | None:
    """The mark the newest big-road cell makes on the derived road ``k``, or None.

    :param lengths: the big road's column lengths, the newest cell's column last (so the
        cell is at column ``len(lengths) - 1``, row ``lengths[-1] - 1``).
    """
    c, r = len(lengths) - 1, lengths[-1] - 1
    if not ((c == k and r >= 1) or c > k):
        return None
    if r == 0:
        return RED if lengths[c - 1] == lengths[c - 1 - k] else BLUE
    return BLUE if r == lengths[c - k] else RED


class RoadBuilder:
    """The roads of one shoe, built a round at a time (:meth:`add`), read with :meth:`roads`."""

    def __init__(self) -> None:
        self._bead: list[str] = []
        self._columns: list[list[Cell]] = []
        self._lengths: list[int] = []
        self._derived: dict[str, list[list[str]]] = {name: [] for name in DERIVED}
        self._leading: Cell | None = None  # ties (and their pairs) before the first win
        self._counts = dict.fromkeys(("banker", "player", "tie", "player_pair", "banker_pair", "natural"), 0)

    def add(self, outcome: Outcome) -> None:
        """One more finished round."""
        self._bead.append(_BEAD_LETTERS[outcome.winner])
        counts = self._counts
        counts[outcome.winner] += 1
        counts["player_pair"] += outcome.player_pair
        counts["banker_pair"] += outcome.banker_pair
        counts["natural"] += outcome.natural
        if outcome.winner == "tie":
            self._add_tie(outcome)
        else:
            self._add_win(outcome)

    def _add_tie(self, outcome: Outcome) -> None:
        if not self._columns:
            base = self._leading or Cell("tie")
            self._leading = _with_round(base, outcome, ties=1)
            return
        column = self._columns[-1]
        column[-1] = _with_round(column[-1], outcome, ties=1)

    def _add_win(self, outcome: Outcome) -> None:
        cell = _with_round(Cell(outcome.winner), outcome, ties=0)
        if self._leading is not None:
            lead, self._leading = self._leading, None
            cell = dataclasses.replace(
                cell,
                ties=lead.ties,
                player_pair=cell.player_pair or lead.player_pair,
                banker_pair=cell.banker_pair or lead.banker_pair,
            )
        if self._columns and self._columns[-1][0].winner == outcome.winner:
            self._columns[-1].append(cell)
            self._lengths[-1] += 1
        else:
            self._columns.append([cell])
            self._lengths.append(1)
        for name, k in DERIVED.items():
            mark = derived_mark(self._lengths, k)
            if mark is not None:
                _stack(self._derived[name], mark)

    def ask(self, side: str) -> dict[str, str | None]:
        """The mark each derived road would get if the next round were won by ``side``."""
        lengths = list(self._lengths)
        if lengths and self._columns[-1][0].winner == side:
            lengths[-1] += 1
        else:
            lengths.append(1)
        return {name: derived_mark(lengths, k) for name, k in DERIVED.items()}

    def roads(self) -> Roads:
        """The roads as they stand."""
        return Roads(
            rounds=len(self._bead),
            bead_plate=tuple(tuple(self._bead[i : i + BEAD_ROWS]) for i in range(0, len(self._bead), BEAD_ROWS)),
            big_road=tuple(tuple(column) for column in self._columns),
            derived={name: tuple(tuple(column) for column in columns) for name, columns in self._derived.items()},
            next={side: self.ask(side) for side in _SIDES},
            counts=dict(self._counts),
        )


def _with_round(cell: Cell, outcome: Outcome, ties: int) -> Cell:
    """``cell`` with one more round on it: its ties and its pair marks."""
    return dataclasses.replace(
        cell,
        ties=cell.ties + ties,
        player_pair=cell.player_pair or outcome.player_pair,
        banker_pair=cell.banker_pair or outcome.banker_pair,
    )


def _stack(columns: list[list[str]], mark: str) -> None:
    """Marks of one colour stack in a column; a change of colour starts a new column."""
    if columns and columns[-1][-1] == mark:
        columns[-1].append(mark)
    else:
        columns.append([mark])


def roads(outcomes: Iterable[Outcome]) -> Roads:
    """The roads of one shoe's outcomes, in order."""
    builder = RoadBuilder()
    for outcome in outcomes:
        builder.add(outcome)
    return builder.roads()


def big_road_grid(columns: Sequence[Sequence[Any]], rows: int = GRID_ROWS) -> list[list[tuple[int, int]]]:
    """Where each cell of the big road is drawn on a grid ``rows`` high: ``(x, y)`` per cell.

    A column goes down until the bottom row or a cell already drawn, then turns right along
    its row (the dragon tail). Each column starts at the top, one to the right of the last
    column's start (further right while that top cell is taken by a tail).
    """
    taken: set[tuple[int, int]] = set()
    placed: list[list[tuple[int, int]]] = []
    start = -1
    for column in columns:
        start += 1
        while (start, 0) in taken:
            start += 1
        x, y, turned, cells = start, 0, False, []
        for index in range(len(column)):
            if index:
                if not turned and y + 1 < rows and (x, y + 1) not in taken:
                    y += 1
                else:
                    turned, x = True, x + 1
            taken.add((x, y))
            cells.append((x, y))
        placed.append(cells)
    return placed


def outcome_from_json(data: Mapping[str, Any]) -> Outcome | None:
    """The outcome of one ``baccarat resolve`` or ``journal export --rounds`` object; None for a
    void round (which the roads skip).

    :raises RulesError: the object has no winner the roads know.
    """
    if data.get("status") == "void":
        return None
    winner = data.get("winner")
    if winner not in _BEAD_LETTERS:
        raise RulesError(f"winner {winner!r} is not one of banker, player, tie")
    return Outcome(str(winner), bool(data.get("player_pair")), bool(data.get("banker_pair")), bool(data.get("natural")))
