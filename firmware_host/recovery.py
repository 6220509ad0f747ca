"""Where the physical table stands according to the journal, for devices that must resume.

After a restart the service rebuilds the controller by replaying the journal
(:meth:`firmware_host.service.Service.recover`). A simulated shoe must resume too, as a
physical shoe still holds its remaining cards: :func:`shoe_resume_point` tells it which
shoe of its seeded sequence is in play and how many draws it has given. A simulated shaker
still has its lid on or off: :func:`shaker_resume_point` tells it which.
"""

from __future__ import annotations

import dataclasses

from firmware_host.journal import Journal

__all__ = ["ShoeResumePoint", "shoe_resume_point", "ShakerResumePoint", "shaker_resume_point"]

#: Input events that are one draw from the shoe (the cut card and unreadable cards included).
DRAW_EVENTS = ("CardRead", "CutCard", "CardUnreadable", "CardFaceUp")


@dataclasses.dataclass(frozen=True)
class ShoeResumePoint:
    """The shoe in play according to the journal.

    :param shoes_loaded: shoes the table accepted so far.
    :param draws: draws from the current shoe (the cover card is one).
    """

    shoes_loaded: int = 0
    draws: int = 0


def shoe_resume_point(journal: Journal) -> ShoeResumePoint:
    """The shoes loaded and the current shoe's draws, from the journal.

    A shoe counts as loaded when the controller accepted it (``announce`` ``shoe``; one
    refused, while the table was paused say, loads nothing). A card the shoe could not read
    is still a draw: the table names it by its number when it asks the dealer to key it in.
    """
    shoes, draws = 0, 0
    for _, event, decisions in journal.steps():
        if any(d.type == "announce" and d.data.get("announce") == "shoe" for d in decisions):
            shoes, draws = shoes + 1, 0
        elif type(event).__name__ in DRAW_EVENTS:
            draws += 1
    return ShoeResumePoint(shoes, draws)


@dataclasses.dataclass(frozen=True)
class ShakerResumePoint:
    """The shaker according to the journal.

    :param lid_open: whether the lid was off when the run stopped, as the table last accepted
        it (a lid change ignored while the table was paused does not count).
    """

    lid_open: bool = False


def shaker_resume_point(journal: Journal) -> ShakerResumePoint:
    """The lid as the last lid change the table accepted left it (from the shaker or a reed switch)."""
    lid_open = False
    for _, event, decisions in journal.steps():
        if type(event).__name__ == "LidChanged" and not any(
            d.type == "alert" and d.data.get("code") == "table-paused" for d in decisions
        ):
            lid_open = bool(getattr(event, "open"))
    return ShakerResumePoint(lid_open)
