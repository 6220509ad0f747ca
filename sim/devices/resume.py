"""Where the physical table stands according to the journal, for simulated devices that must resume.

After a restart the host rebuilds its controller by replaying the journal. A simulated shoe
must resume too, as a physical shoe still holds its remaining cards: :func:`shoe_resume_point`
tells it which shoe of its seeded sequence is in play and how many draws it has given. A
simulated shaker still has its lid on or off: :func:`shaker_resume_point` tells it which. A
simulated shuffler still holds its batches, shuffled or not: :func:`shuffler_resume_point`
gives the facts from which it rebuilds them, and :func:`resume_shuffler` loads the simulated
shoe with the order the shoe in play was loaded with. :func:`resume_points` computes the
points of the device kinds a table simulates in one pass.

Nothing here knows the journal: every function reads its *steps*, an iterable of
``(at, event, decisions)`` as the journal replays them, where an event is known by its class
name and attributes, and a decision by its ``type`` and ``data`` (duck-typed, see
:class:`Decision`). Each fold also takes the point it starts from (``since``), so a point
saved with a checkpoint continues with the steps after it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sim.devices.shoe import SimShoe
    from sim.devices.shuffler import Resumed, SimulatedShuffler

__all__ = [
    "Decision", "Step", "ShoeResumePoint", "shoe_resume_point", "ShakerResumePoint", "shaker_resume_point",
    "ShufflerFact", "ShufflerResumePoint", "shuffler_resume_point", "resume_shuffler", "ResumePoints",
    "resume_points", "RESTARTED",
]  # fmt: skip


class Decision(Protocol):
    """What a resume point reads of a journaled decision (the host's ``Decision`` fits)."""

    @property
    def type(self) -> str:
        """The decision's type: ``announce``, ``alert``, ``prompt``, ``device_command``..."""

    @property
    def data(self) -> Mapping[str, Any]:
        """The decision's data."""


#: One journal step: when, the input event, and the decisions it led to.
Step = tuple[float, object, Sequence[Decision]]

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

    def sim_options(self) -> dict[str, Any]:
        """The :class:`~sim.devices.shoe.SimShoe` arguments of a shoe that stands here (its
        seeded sequence starts at shoe 1, also before the table accepted a shoe)."""
        return {"shoe_number": max(self.shoes_loaded, 1), "position": self.draws}


class _ShoeFold:
    """Counts shoes and draws, step by step (see :func:`shoe_resume_point`)."""

    def __init__(self, since: ShoeResumePoint) -> None:
        self.shoes, self.draws = since.shoes_loaded, since.draws

    def step(self, event: object, decisions: Sequence[Decision]) -> None:
        if any(d.type == "announce" and d.data.get("announce") == "shoe" for d in decisions):
            self.shoes, self.draws = self.shoes + 1, 0
        elif type(event).__name__ in DRAW_EVENTS:
            self.draws += 1

    def point(self) -> ShoeResumePoint:
        return ShoeResumePoint(self.shoes, self.draws)


def shoe_resume_point(steps: Iterable[Step], since: ShoeResumePoint = ShoeResumePoint()) -> ShoeResumePoint:
    """The shoes loaded and the current shoe's draws, from the journal's steps.

    A shoe counts as loaded when the controller accepted it (``announce`` ``shoe``; one
    refused, while the table was paused say, loads nothing). A card the shoe could not read
    is still a draw: the table names it by its number when it asks the dealer to key it in.

    :param since: where the shoe stood before the first of ``steps``.
    """
    fold = _ShoeFold(since)
    _fold(steps, [fold])
    return fold.point()


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

    def sim_options(self) -> dict[str, Any]:
        """The :class:`~sim.devices.shaker.SimShaker` arguments of a shaker that stands here."""
        return {"lid_open": self.lid_open, "covering": self.covering, "shakes": self.shakes}


class _ShakerFold:
    """Follows the lid, the coverings and the shakes, step by step (see :func:`shaker_resume_point`)."""

    def __init__(self, since: ShakerResumePoint) -> None:
        self.lid_open, self.covering, self.shakes = since.lid_open, since.covering, since.shakes

    def step(self, event: Any, decisions: Sequence[Decision]) -> None:  # matched by its type's name
        name = type(event).__name__
        if name == "LidChanged" and not event.open:
            self.covering, self.shakes = self.covering + 1, 0
        elif name == "ShakeDetected":
            self.shakes = int(event.count)
        if name == "LidChanged" and not any(
            d.type == "alert" and d.data.get("code") == "table-paused" for d in decisions
        ):
            self.lid_open = bool(event.open)

    def point(self) -> ShakerResumePoint:
        return ShakerResumePoint(self.lid_open, self.covering, self.shakes)


def shaker_resume_point(steps: Iterable[Step], since: ShakerResumePoint = ShakerResumePoint()) -> ShakerResumePoint:
    """The lid as the last lid change the table accepted left it (from the shaker or a reed
    switch), the coverings the lid changes tell, and the shakes reported since the last one.

    :param since: where the shaker stood before the first of ``steps``.
    """
    fold = _ShakerFold(since)
    _fold(steps, [fold])
    return fold.point()


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


class _ShufflerFold:
    """Gathers the shuffler's facts, step by step (see :func:`shuffler_resume_point`)."""

    def __init__(self, device: str, since: ShufflerResumePoint) -> None:
        self.device, self.facts = device, list(since.facts)

    def step(self, event: object, decisions: Sequence[Decision]) -> None:
        if getattr(event, "device", None) == self.device:
            self.facts.extend(_reported(type(event).__name__, event))
        for decision in decisions:
            data = decision.data
            if decision.type == "device_command" and data.get("device") == self.device:
                kind = "asked_shuffle" if data.get("command") == "start_shuffle" else "asked_release"
                self.facts.append(ShufflerFact(kind, data.get("batch"), cards=int(data.get("expected_cards") or 0)))
            elif decision.type == "prompt" and data.get("action") == "return_batch":
                self.facts.append(ShufflerFact("returned", data.get("batch"), replace=bool(data.get("replace"))))
            elif decision.type == "announce" and data.get("announce") == "shoe" and data.get("batch"):
                self.facts.append(ShufflerFact("shoe", data.get("batch")))

    def point(self) -> ShufflerResumePoint:
        return ShufflerResumePoint(tuple(self.facts))


def shuffler_resume_point(
    steps: Iterable[Step], device: str = "shuffler", since: ShufflerResumePoint = ShufflerResumePoint()
) -> ShufflerResumePoint:
    """What the journal's steps show of the shuffler named ``device``: what it reported, what
    the controller asked of it, what the dealer was asked to put into it, and each shoe's batch.

    :param since: the facts before the first of ``steps``.
    """
    fold = _ShufflerFold(device, since)
    _fold(steps, [fold])
    return fold.point()


def _reported(name: str, event: Any) -> list[ShufflerFact]:
    """The fact a shuffler's event (or its device's loss or handshake) makes, if any."""
    if name == "DeviceLost":
        return [ShufflerFact("restarted" if event.reason == RESTARTED else "lost")]
    if name == "DeviceIdentified":
        return [ShufflerFact("found")]
    kind, batch = _SHUFFLER_REPORTS.get(name), getattr(event, "batch", None)
    if kind is None or batch is None:  # progress, a cleared fault, a fault of the device as a whole
        return []
    detail = getattr(event, "state", None) or getattr(event, "code", None) or ""
    return [ShufflerFact(kind, batch, detail, digest=getattr(event, "order_digest", "") or "")]


def resume_shuffler(shoe: SimShoe, shuffler: SimulatedShuffler, point: ShufflerResumePoint, draws: int) -> Resumed:
    """A restarted simulated shuffler holds its batches as the journal shows them, and the
    simulated shoe the batch the shoe in play was loaded with, cut as it was cut, after
    ``draws`` draws: where a physical shuffler and shoe stand after a restart of the Pi.
    """
    resumed = shuffler.resume(point)
    if resumed.shoes:  # the shoe the simulator was built with is its first: batches load from the second
        shoe.load(resumed.shoes[-1], shoe_number=len(resumed.shoes) + 1, position=draws)
    return resumed


@dataclasses.dataclass(frozen=True)
class ResumePoints:
    """Where each simulated device of a table resumes (the defaults: a table that never ran)."""

    shoe: ShoeResumePoint = ShoeResumePoint()
    shaker: ShakerResumePoint = ShakerResumePoint()
    shuffler: ShufflerResumePoint = ShufflerResumePoint()

    def to_json(self, kinds: Iterable[str]) -> dict[str, Any]:
        """The points of ``kinds`` as plain JSON data (what a checkpoint keeps)."""
        return {kind: dataclasses.asdict(getattr(self, kind)) for kind in kinds}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> ResumePoints:
        """The points :meth:`to_json` wrote (the defaults for the kinds it does not name)."""
        data = data or {}
        shuffler = data.get("shuffler")
        return cls(
            ShoeResumePoint(**data.get("shoe", {})),
            ShakerResumePoint(**data.get("shaker", {})),
            ShufflerResumePoint(tuple(ShufflerFact(**fact) for fact in shuffler["facts"]))
            if shuffler
            else ShufflerResumePoint(),
        )


def resume_points(
    steps: Iterable[Step],
    kinds: Collection[str],
    shuffler_device: str = "shuffler",
    since: ResumePoints = ResumePoints(),
) -> ResumePoints:
    """The resume points of the device ``kinds`` (``shoe``, ``shaker``, ``shuffler``) in one pass
    over the journal's steps; the other kinds keep ``since``'s (by default, a table that never ran).

    :param shuffler_device: the name of the table's shuffler.
    :param since: where the devices stood before the first of ``steps``.
    """
    folds: dict[str, Any] = {}
    if "shoe" in kinds:
        folds["shoe"] = _ShoeFold(since.shoe)
    if "shaker" in kinds:
        folds["shaker"] = _ShakerFold(since.shaker)
    if "shuffler" in kinds:
        folds["shuffler"] = _ShufflerFold(shuffler_device, since.shuffler)
    if folds:
        _fold(steps, list(folds.values()))
    return dataclasses.replace(since, **{kind: fold.point() for kind, fold in folds.items()})


def _fold(steps: Iterable[Step], folds: Sequence[Any]) -> None:
    for _, event, decisions in steps:
        for fold in folds:
            fold.step(event, decisions)
