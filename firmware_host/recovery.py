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
    :param draws: draws from the current shoe.
    :param unread: the draw (index in the current shoe) the shoe could not read and the dealer
        has still to key in, if any: the card in the dealer's hand.
    """

    shoes_loaded: int = 0
    draws: int = 0
    unread: int | None = None


#: Alerts by which the table refuses a dealer command.
_REFUSALS = ("refused-input", "wrong-state")


def shoe_resume_point(journal: Journal) -> ShoeResumePoint:
    """The shoes loaded, the current shoe's draws and the unread card awaiting entry, from the journal.

    A shoe counts as loaded when the controller accepted it (``announce`` ``shoe``). A draw
    the shoe could not read awaits the dealer when its step alerts ``card-unreadable``; cards
    drawn after it wait behind it, and when it is keyed in the next unread one among them
    may come up for entry in turn.
    """
    shoes, draws, awaiting, behind = 0, 0, None, []
    for _, event, decisions in journal.steps():
        name = type(event).__name__
        codes = {d.data.get("code") for d in decisions if d.type == "alert"}
        if any(d.type == "announce" and d.data.get("announce") == "shoe" for d in decisions):
            shoes, draws, awaiting, behind = shoes + 1, 0, None, []
        elif name in DRAW_EVENTS:
            unread = name != "CutCard" and getattr(event, "rank", None) is None
            if unread and "card-unreadable" in codes:
                awaiting = draws
            elif unread and awaiting is not None:
                behind.append(draws)
            draws += 1
        elif name == "DealerCommand" and getattr(event, "command") == "card_entered" and not codes & set(_REFUSALS):
            awaiting = behind.pop(0) if behind and "card-unreadable" in codes else None
            behind = behind if awaiting is not None else []
    return ShoeResumePoint(shoes, draws, awaiting)


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
