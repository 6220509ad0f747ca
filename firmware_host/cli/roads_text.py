"""What ``tablehost baccarat roads`` reads and draws: rounds from text lines, roads as text."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.roads import GRID_ROWS, Outcome, Roads, big_road_grid, outcome_from_json
from firmware_host.text import TAB, problem

__all__ = ["read_outcomes", "draw"]

#: The words a line may be instead of JSON.
WORDS = ("banker", "player", "tie")
#: How the drawing marks a big-road cell (a banker win, a player win) and the derived roads' colours.
_CELL = {"banker": "B", "player": "P"}
_MARK = {"red": "R", "blue": "b"}


#: The longest line read as a round (a round of ``journal export --rounds`` is about 2 KB).
LINE_LONGEST = 64 * 1024


def read_outcomes(lines: Iterable[str]) -> Iterator[tuple[int, Outcome | None | str]]:
    """``(line number, outcome)`` per non-blank line: an :class:`Outcome`, None for a void round,
    or the reason the line is not a round (a ``str``)."""
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text:
            continue
        if text.lower() in WORDS:
            yield number, Outcome(text.lower())
            continue
        if len(text) > LINE_LONGEST:
            yield number, f"{len(text)} characters: a round is at most {LINE_LONGEST}"
            continue
        if (why := problem(text, LINE_LONGEST, TAB)) is not None:  # the text policy: no control, no bidi
            yield number, f"the line {why}"
            continue
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError, ValueError):  # a number too long to read, nesting too deep
            yield number, f"not JSON and not one of {', '.join(WORDS)}: {text[:40]!r}"
            continue
        if not isinstance(data, dict):
            yield number, "a JSON round is an object"
            continue
        try:
            yield number, outcome_from_json(data)
        except RulesError as exc:
            yield number, str(exc)


def draw(roads: Roads) -> str:
    """A readable drawing: the counts, the bead plate, the big road on its 6-row grid (with
    the dragon tails; a digit is a cell's ties), the derived roads (R red, b blue), ask the road."""
    counts = roads.counts
    lines = [
        f"{roads.rounds} rounds: banker {counts['banker']}, player {counts['player']}, tie {counts['tie']}, "
        f"player pairs {counts['player_pair']}, banker pairs {counts['banker_pair']}, "
        f"naturals {counts['natural']}",
        "",
        "bead plate",
    ]
    lines += _rows([list(column) for column in roads.bead_plate], len(max(roads.bead_plate, key=len, default=())))
    lines += ["", "big road"]
    grid: dict[tuple[int, int], str] = {}
    for column, spots in zip(roads.big_road, big_road_grid(roads.big_road)):
        for cell, spot in zip(column, spots):
            grid[spot] = _CELL[cell.winner] + (str(min(cell.ties, 9)) if cell.ties else " ")
    width = 1 + max((x for x, _ in grid), default=-1)
    lines += ["".join(grid.get((x, y), ". ") for x in range(width)).rstrip() for y in range(GRID_ROWS)] if grid else []
    for name, columns in roads.derived.items():
        lines += ["", name.replace("_", " ")]
        lines += _rows(
            [[_MARK[mark] for mark in column] for column in columns],
            max((len(column) for column in columns), default=0),
        )
    lines.append("")
    for side, marks in roads.next.items():
        asked = ", ".join(f"{name.replace('_', ' ')} {mark or '-'}" for name, mark in marks.items())
        lines.append(f"if {side} next: {asked}")
    return "\n".join(lines)


def _rows(columns: list[list[str]], height: int) -> list[str]:
    """Columns drawn top to bottom, one text row per row."""
    return [
        "".join((column[y] if y < len(column) else ".").ljust(2) for column in columns).rstrip() for y in range(height)
    ]
