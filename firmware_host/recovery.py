"""Where the physical table stands according to the journal, for devices that must resume.

After a restart the service rebuilds the controller by replaying the journal
(:meth:`firmware_host.service.Service.recover`). A simulated shoe must resume too, as a
physical shoe still holds its remaining cards: :func:`shoe_resume_point` tells it which
shoe of its seeded sequence is in play and how many draws it has given.
"""

from __future__ import annotations

import dataclasses

from firmware_host.journal import Journal

__all__ = ["ShoeResumePoint", "shoe_resume_point"]

#: Input events that are one draw from the shoe (the cut card and unreadable cards included).
DRAW_EVENTS = ("CardRead", "CutCard", "CardUnreadable", "CardFaceUp")


@dataclasses.dataclass(frozen=True)
class ShoeResumePoint:
    """The shoe in play according to the journal.

    :param shoes_loaded: ``shoe_loaded`` commands journaled so far.
    :param draws: draws from the current shoe.
    """

    shoes_loaded: int = 0
    draws: int = 0


def shoe_resume_point(journal: Journal) -> ShoeResumePoint:
    """Count, from the journal, the shoes loaded and the current shoe's draws.

    A shoe counts as loaded when the controller accepted it, which it announces in the same
    step (``announce`` ``shoe``); a ``shoe_loaded`` refused (the table paused, say) does not.
    """
    shoes, draws = 0, 0
    for record in journal.records():
        if record.kind == "decision" and record.type == "announce" and record.data.get("announce") == "shoe":
            shoes, draws = shoes + 1, 0
        elif record.kind == "input" and record.type in DRAW_EVENTS:
            draws += 1
    return ShoeResumePoint(shoes, draws)
