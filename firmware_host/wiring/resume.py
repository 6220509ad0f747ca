"""Where a restarted table's simulated devices resume: from the last checkpoint and the steps after it.

The points are folds over the journal's steps (:mod:`sim.devices.resume`), so a checkpoint
keeps them (its ``devices``) and a restart folds only the steps after it; the service's
checkpoints get them through :func:`device_points`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from firmware_host.config.profiles import TableProfile
from firmware_host.host.service import DevicePoints, Step
from sim.devices.resume import ResumePoints, resume_points

__all__ = ["DEVICE_KINDS", "simulated_kinds", "points_after", "device_points"]

#: The simulated device kinds that resume from the journal.
DEVICE_KINDS = ("shoe", "shaker", "shuffler")


def simulated_kinds(profile: TableProfile) -> list[str]:
    """The kinds of the table's simulated devices that resume (in :data:`DEVICE_KINDS` order)."""
    kinds = {slot.model.kind for slot in profile.devices.values() if slot.simulated}
    return [kind for kind in DEVICE_KINDS if kind in kinds]


def points_after(profile: TableProfile, since: dict[str, Any] | None, steps: Iterable[Step]) -> ResumePoints:
    """The simulated devices' points after ``steps``, from ``since`` (a checkpoint's ``devices``;
    None: the journal's first step), in one pass over the steps."""
    shuffler = next((name for name, slot in profile.devices.items() if slot.model.kind == "shuffler"), "shuffler")
    return resume_points(steps, simulated_kinds(profile), shuffler, ResumePoints.from_json(since))


def device_points(profile: TableProfile) -> DevicePoints | None:
    """What the service's checkpoints call for the devices' points (None: nothing simulated)."""
    kinds = simulated_kinds(profile)
    if not kinds:
        return None

    def points(since: dict[str, Any] | None, steps: Iterable[Step]) -> dict[str, Any]:
        return points_after(profile, since, steps).to_json(kinds)

    return points
