"""Where the physical table stands according to the journal, for devices that must resume.

After a restart the service rebuilds the controller by replaying the journal
(:meth:`firmware_host.host.service.Service.recover`). A simulated shoe must resume too, as a
physical shoe still holds its remaining cards: :func:`shoe_resume_point` tells it which
shoe of its seeded sequence is in play and how many draws it has given. A simulated shaker
still has its lid on or off: :func:`shaker_resume_point` tells it which. A simulated
shuffler still holds its batches, shuffled or not: :func:`shuffler_resume_point` gives the
facts from which it rebuilds them, and the order the shoe in play was loaded with.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable

#: Journaled steps ``(at, event, decisions)`` as ``Journal.steps`` yields them (decisions: ``.type``, ``.data``).
Steps = Iterable[tuple[float, Any, list[Any]]]

__all__ = [
    "ShoeResumePoint", "shoe_resume_point", "ShakerResumePoint", "shaker_resume_point", "ShufflerFact",
    "ShufflerResumePoint", "shuffler_resume_point", "RESTARTED",
]  # fmt: skip

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


def shoe_resume_point(steps: Steps, start: ShoeResumePoint = ShoeResumePoint()) -> ShoeResumePoint:
    """The shoes loaded and the current shoe's draws, from the journal's steps (after ``start``: a checkpoint's).

    A shoe counts as loaded when the controller accepted it (``announce`` ``shoe``; one
    refused, while the table was paused say, loads nothing). A card the shoe could not read
    is still a draw: the table names it by its number when it asks the dealer to key it in.
    """
    shoes, draws = start.shoes_loaded, start.draws
    for _, event, decisions in steps:
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
    :param covering: the covering under way: 1 for the first, one more for each time the lid
        went back on.
    :param shakes: shakes the shaker reported in it (its own count).
    """

    lid_open: bool = False
    covering: int = 1
    shakes: int = 0


def shaker_resume_point(steps: Steps, start: ShakerResumePoint = ShakerResumePoint()) -> ShakerResumePoint:
    """The lid as the last lid change the table accepted left it (from the shaker or a reed
    switch), the coverings the lid changes tell, and the shakes reported since the last one
    (from the journal's steps, after ``start``: a checkpoint's)."""
    lid_open, covering, shakes = start.lid_open, start.covering, start.shakes
    for _, event, decisions in steps:
        name = type(event).__name__
        if name == "LidChanged" and not getattr(event, "open"):
            covering, shakes = covering + 1, 0
        elif name == "ShakeDetected":
            shakes = int(getattr(event, "count"))
        if name == "LidChanged" and not any(d.type == "alert" and d.data.get("code") == "table-paused"
                                            for d in decisions):
            lid_open = bool(getattr(event, "open"))
    return ShakerResumePoint(lid_open, covering, shakes)


#: The reason a restarted service gives as it reports every device lost (``wiring.Table.start``).
RESTARTED = "service restarted"
#: Shuffler events a simulated shuffler is rebuilt from, by class name, and the fact each makes.
_SHUFFLER_REPORTS = {
    "BatchLoaded": "loaded", "ShuffleStarted": "started", "ShuffleCompleted": "completed",
    "BatchReleased": "released", "ShufflerFault": "fault", "BatchStatus": "status",
}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class ShufflerFact:
    """One thing the journal shows of the shuffler and its batches, in journal order.

    :param kind: ``asked_shuffle`` / ``asked_release``: the controller asked the device to
        shuffle ``batch`` (expecting ``cards``) or to release it, which reached the device only
        if what it reports later says so; ``returned``: the dealer was asked to put ``batch``
        back into the shuffler (``replace``: new decks instead of its own cards); ``loaded``,
        ``started``, ``completed``, ``released``: the device reported it of ``batch``
        (``digest``: the order's, hex); ``fault``: a fault ``detail`` (its code) naming
        ``batch``; ``status``: the state ``detail`` and ``digest`` of ``batch`` at a handshake;
        ``lost`` / ``found``: the device was lost (not by a restart) / handshaken again;
        ``restarted``: the service restarted, with a device rebuilt from the facts before;
        ``shoe``: the table accepted a shoe loaded from ``batch``.
    """

    kind: str
    batch: str | None = None
    detail: str = ""
    digest: str = ""
    cards: int = 0
    replace: bool = False


@dataclasses.dataclass(frozen=True)
class ShufflerResumePoint:
    """The shuffler according to the journal: the facts from which a simulated shuffler rebuilds
    its batches, their orders and its random stream from its seed
    (:meth:`sim.devices.shuffler.SimulatedShuffler.resume`)."""

    facts: tuple[ShufflerFact, ...] = ()


def shuffler_resume_point(steps: Steps, device: str = "shuffler",
                          start: ShufflerResumePoint = ShufflerResumePoint()) -> ShufflerResumePoint:
    """What the journal's steps (after ``start``: a checkpoint's) show of the shuffler named
    ``device``: what it reported, what the controller asked of it, what the dealer was asked
    to put into it, and each shoe's batch."""
    facts: list[ShufflerFact] = list(start.facts)
    for _, event, decisions in steps:
        name = type(event).__name__
        if getattr(event, "device", None) == device:
            facts.extend(_reported(name, event))
        for decision in decisions:
            data = decision.data
            if decision.type == "device_command" and data.get("device") == device:
                kind = "asked_shuffle" if data.get("command") == "start_shuffle" else "asked_release"
                facts.append(ShufflerFact(kind, data.get("batch"), cards=int(data.get("expected_cards") or 0)))
            elif decision.type == "prompt" and data.get("action") == "return_batch":
                facts.append(ShufflerFact("returned", data.get("batch"), replace=bool(data.get("replace"))))
            elif decision.type == "announce" and data.get("announce") == "shoe" and data.get("batch"):
                facts.append(ShufflerFact("shoe", data.get("batch")))
    return ShufflerResumePoint(tuple(facts))


def _reported(name: str, event: object) -> list[ShufflerFact]:
    """The fact a shuffler's event (or its device's loss or handshake) makes, if any."""
    if name == "DeviceLost":
        return [ShufflerFact("restarted" if getattr(event, "reason") == RESTARTED else "lost")]
    if name == "DeviceIdentified":
        return [ShufflerFact("found")]
    kind, batch = _SHUFFLER_REPORTS.get(name), getattr(event, "batch", None)
    if kind is None or batch is None:  # progress, a cleared fault, a fault of the device as a whole
        return []
    detail = getattr(event, "state", None) or getattr(event, "code", None) or ""
    return [ShufflerFact(kind, batch, detail, digest=getattr(event, "order_digest", "") or "")]
