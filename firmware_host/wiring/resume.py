"""Where a restarted table's simulated devices resume: from the last checkpoint and the steps after it.

A simulated device resumes where the journal left it (:mod:`sim.resume`: the shoe's draws, the
shaker's lid and covering, the shuffler's batches). The points are folds over the journal's
steps, so a checkpoint holds them (its ``devices``, :data:`DEVICE_KINDS` as JSON) and a restart
folds only the steps after it; the service's checkpoints get them through
:func:`device_points`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable

from firmware_host.config.profiles import TableProfile
from firmware_host.host.service import DevicePoints, Step
from sim.resume import (
    ShakerResumePoint,
    ShoeResumePoint,
    ShufflerFact,
    ShufflerResumePoint,
    shaker_resume_point,
    shoe_resume_point,
    shuffler_resume_point,
)

__all__ = ["ResumePoints", "DEVICE_KINDS", "resume_points", "device_points"]

#: The simulated device kinds that resume from the journal.
DEVICE_KINDS = ("shoe", "shaker", "shuffler")


@dataclasses.dataclass(frozen=True)
class ResumePoints:
    """Where each simulated device of the table resumes (the defaults: a fresh table)."""

    shoe: ShoeResumePoint = ShoeResumePoint()
    shaker: ShakerResumePoint = ShakerResumePoint()
    shuffler: ShufflerResumePoint = ShufflerResumePoint()

    def to_json(self, kinds: Iterable[str]) -> dict[str, Any]:
        """The points of ``kinds`` as a checkpoint's ``devices``."""
        return {kind: dataclasses.asdict(getattr(self, kind)) for kind in kinds}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ResumePoints:
        """The points a checkpoint's ``devices`` holds (the defaults for kinds it does not name)."""
        data = data or {}
        shuffler = data.get("shuffler")
        return cls(ShoeResumePoint(**data.get("shoe", {})), ShakerResumePoint(**data.get("shaker", {})),
                   ShufflerResumePoint(tuple(ShufflerFact(**fact) for fact in shuffler["facts"]))
                   if shuffler else ShufflerResumePoint())


def simulated_kinds(profile: TableProfile) -> list[str]:
    """The kinds of the table's simulated devices that resume (in :data:`DEVICE_KINDS` order)."""
    kinds = {slot.model.kind for slot in profile.devices.values() if slot.simulated}
    return [kind for kind in DEVICE_KINDS if kind in kinds]


def _shuffler_name(profile: TableProfile) -> str:
    return next((name for name, slot in profile.devices.items() if slot.model.kind == "shuffler"), "shuffler")


def resume_points(profile: TableProfile, start: dict[str, Any] | None, steps: Iterable[Step]) -> ResumePoints:
    """The simulated devices' points after ``steps``, from ``start`` (a checkpoint's ``devices``; None:
    the journal's first step). Reads the steps once, for the kinds the table simulates."""
    kinds = simulated_kinds(profile)
    points = ResumePoints.from_json(start)
    if not kinds:
        return points
    steps = list(steps) if len(kinds) > 1 else steps
    return ResumePoints(
        shoe_resume_point(steps, points.shoe) if "shoe" in kinds else points.shoe,
        shaker_resume_point(steps, points.shaker) if "shaker" in kinds else points.shaker,
        shuffler_resume_point(steps, _shuffler_name(profile), points.shuffler) if "shuffler" in kinds
        else points.shuffler)


def device_points(profile: TableProfile) -> DevicePoints | None:
    """What the service's checkpoints call for the devices' points (None: nothing simulated)."""
    kinds = simulated_kinds(profile)
    if not kinds:
        return None

    def points(start: dict[str, Any] | None, steps: Iterable[Step]) -> dict[str, Any]:
        return resume_points(profile, start, steps).to_json(kinds)

    return points
