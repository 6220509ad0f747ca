"""Drop, win, theo and hold of a run of rounds, from their settlements (exact integers and rationals).

- **drop**: the chips wagered (cents), every settled wager's ``amount``;
- **win**: what the house kept: a lost wager's amount, less what was paid on a won one on top
  of its returned stake, plus commission (Baccarat's lines: ``amount``, ``outcome``, ``payout``,
  ``commission``); a Pai Gow round's ``nets`` of the house and the vigorish, else each line's
  ``net`` (the wagerer's: the house's is ``-net``);
- only completed rounds add drop, win and theo, as in ``journal report``;
- **theo**: the theoretical win: a line's own ``theo`` when the settlement carries one, else the
  wager's amount times the house's edge by the round's last ``odds`` decision (the player's
  expected value per unit, ``"n/d"``: the house's edge is its negation); rounds with neither add
  nothing, and theo is shown only when some round had it;
- **hold**: win over drop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

__all__ = ["Figures", "lines_of", "house_win"]


def _fraction(text: Any) -> Fraction | None:
    """An exact ``"n/d"`` (or an integer) as a Fraction; None for anything else."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return Fraction(text)
    if not isinstance(text, str) or len(text) > 64:
        return None
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def lines_of(settlement: Any) -> list[Mapping[str, Any]]:
    """A round's settled wagers: Baccarat's list of lines, or Pai Gow's ``results`` (under
    ``settlement`` when the tiles were entered)."""
    if isinstance(settlement, dict):
        inner = settlement.get("settlement", settlement)
        settlement = inner.get("results", []) if isinstance(inner, dict) else []
    if not isinstance(settlement, list):
        return []
    return [line for line in settlement if isinstance(line, dict) and isinstance(line.get("amount"), int)]


def house_win(line: Mapping[str, Any]) -> int:
    """What the house kept of one settled wager, cents."""
    if isinstance(line.get("net"), int):
        return -int(line["net"])
    amount, payout, commission = (
        int(line[k]) if isinstance(line.get(k), int) else 0 for k in ("amount", "payout", "commission")
    )
    kept = amount if line.get("outcome") == "lose" else 0
    paid = payout if line.get("outcome") == "win" else 0
    return kept - paid + commission


def _house_nets(settlement: Any) -> int | None:
    """A Pai Gow settlement's house and vigorish nets, cents (None when it gives no ``nets``)."""
    inner = settlement.get("settlement", settlement) if isinstance(settlement, dict) else None
    nets = inner.get("nets") if isinstance(inner, dict) else None
    if not isinstance(nets, dict):
        return None
    parts = [nets.get(name, 0) for name in ("house", "vigorish")]
    return sum(parts) if all(isinstance(p, int) and not isinstance(p, bool) for p in parts) else None


@dataclasses.dataclass
class Figures:
    """Running totals of a shoe or a gaming day."""

    rounds: int = 0
    drop: int = 0
    win: int = 0
    theo: Fraction = Fraction(0)
    theo_rounds: int = 0  #: rounds that had a theo (of their settlement, or by their odds)

    def add(self, settlement: Any, ev: Mapping[str, Any] | None = None, status: Any = "completed") -> None:
        """One finished round: its settlement, the player's EV by wager kind of its last ``odds``,
        and its ``status``. As ``journal report`` counts them (:mod:`firmware_host.host.figures`),
        only a completed round adds drop, win and theo (a void one returned every unsettled
        wager), and a Pai Gow round's win is the house's and the vigorish nets when it gives them
        (with a player banking, the other wagers' nets are the banker's, not the house's)."""
        self.rounds += 1
        if status != "completed":
            return
        had_theo = False
        nets = _house_nets(settlement)
        for line in lines_of(settlement):
            self.drop += int(line["amount"])
            self.win += house_win(line) if nets is None else 0
            theo = _fraction(line.get("theo"))
            if theo is None and ev is not None:
                player = _fraction(ev.get(str(line.get("kind"))))
                theo = None if player is None else -player * int(line["amount"])
            if theo is not None:
                self.theo += theo
                had_theo = True
        self.theo_rounds += had_theo
        self.win += nets or 0

    def to_json(self) -> dict[str, Any]:
        """Cents (theo rounded to the cent), and hold as a percentage (None before any drop)."""
        return {
            "rounds": self.rounds,
            "drop": self.drop,
            "win": self.win,
            "theo": round(self.theo) if self.theo_rounds else None,
            "hold": None if not self.drop else round(100 * self.win / self.drop, 2),
        }
