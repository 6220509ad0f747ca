"""The dashboard's figures of a shoe or a gaming day: drop, win, theo, hold and pace, as
``journal report`` and ``journal export`` count them (:mod:`firmware_host.host.figures`, the one
definition), shown on screen: theo rounded to the cent, hold as a percentage.

What a table sent is read as the journal's figures read it; a round they cannot read (a keyed
table's settlement that is not one) counts as a round without drop, win or theo, and the caller
counts it among what it did not keep.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from firmware_host.host.figures import MALFORMED, Figures, RoundFigures, round_figures

__all__ = ["Figures", "lines_of", "played", "shown"]


def lines_of(settlement: Any) -> list[Mapping[str, Any]]:
    """A round's settled wagers: Baccarat's list of lines, or Pai Gow's ``results`` (under
    ``settlement`` when the tiles were entered)."""
    if isinstance(settlement, dict):
        inner = settlement.get("settlement", settlement)
        settlement = inner.get("results", []) if isinstance(inner, dict) else []
    if not isinstance(settlement, list):
        return []
    return [line for line in settlement if isinstance(line, dict) and isinstance(line.get("amount"), int)]


def played(
    data: Mapping[str, Any], settlement: Any, ev: Mapping[str, Any] | None, seconds: float
) -> RoundFigures | None:
    """One finished round's figures (:func:`~firmware_host.host.figures.round_figures`): its
    ``settlement`` as kept (bounded), the player's EV by wager kind of its last ``odds`` (None:
    not shown to this role, or none), ``seconds`` from its first message to its result; None when
    it cannot be read."""
    record = {"game": data.get("game"), "status": data.get("status"), "settlement": copy.deepcopy(settlement)}
    if record["settlement"] is None and record["game"] != "paigow":
        record["settlement"] = []
    try:
        figures, _ = round_figures(record, None if ev is None else {"ev": ev})
    except MALFORMED:
        return None
    figures.seconds = seconds
    return figures


def shown(figures: Figures) -> dict[str, Any]:
    """The figures on screen: cents, theo rounded to the cent (None when a round had none), hold a
    percentage (None before any drop), the pace in rounds per hour (None without time)."""
    exported = figures.to_json()
    return {
        "rounds": figures.rounds,
        "drop": figures.drop,
        "win": figures.win,
        "theo": None if figures.theo is None else round(figures.theo),
        "hold": None if not figures.drop else round(100 * figures.win / figures.drop, 2),
        "rounds_per_hour": exported["rounds_per_hour"],
    }
