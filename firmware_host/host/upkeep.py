"""The journal's upkeep at a running service (:class:`Upkeep`): checkpoints and rotations at
quiet moments, as the table's :class:`~firmware_host.host.checkpoint.CheckpointPolicy` says.

A checkpoint or a rotation that fails is logged and tried again later, never fatal: the
journal still holds every step, and a restart only replays more of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from firmware_host.errors import JournalError
from firmware_host.host import checkpoint
from firmware_host.host.journal_codec import CHECKPOINT_TYPE

if TYPE_CHECKING:
    from firmware_host.host.journal import Journal
    from firmware_host.host.service import DevicePoints

__all__ = ["ROTATION_RETRY_STEPS", "Kept", "Upkeep"]

log = logging.getLogger("tablehost.service")

#: Steps before a rotation that failed (I/O, or its archive name taken) is tried again.
ROTATION_RETRY_STEPS = 100


class Kept(checkpoint.Stateful, Protocol):
    """What the upkeep needs of the service (:class:`~firmware_host.host.service.Service`)."""

    clock: Callable[[], float]

    def corrected_at(self) -> float:
        """The latest step's time as rounds are dated."""
        ...


class Upkeep:
    """When and how ``service`` checkpoints its table and rotates its journal.

    :param service: the service whose state a checkpoint holds.
    :param journal: the service's journal (a :class:`JournalError` for one that only replays).
    :param policy: when to checkpoint and rotate.
    :param device_points: the simulated devices' resume points for checkpoints (None: no sims).
    :param table_meta: the journal's ``table`` meta, carried by every checkpoint.
    """

    def __init__(
        self,
        service: Kept,
        journal: Callable[[], Journal],
        policy: checkpoint.CheckpointPolicy,
        device_points: DevicePoints | None,
        table_meta: dict[str, Any] | None,
    ) -> None:
        self.service, self.journal = service, journal
        self.policy, self.device_points, self.table_meta = policy, device_points, table_meta
        #: Steps since the last checkpoint (or the last one replayed).
        self.since_checkpoint = 0
        self._rotation_retry_at = 0

    def checkpoint(self) -> int:
        """Journal a checkpoint of the table now; return its seq.

        :raises JournalError: the controller's state cannot be captured, or I/O fails.
        """
        seq = self.journal().append_meta(CHECKPOINT_TYPE, self._data(), at=self._at())
        self.since_checkpoint = 0
        return seq

    def rotate(self) -> None:
        """Close the journal's segment and continue in a new one opened by a checkpoint."""
        self.journal().rotate(self._data(), at=self._at())
        self.since_checkpoint = 0

    def after_step(self, quiet: bool) -> None:
        """One more step (``quiet``: between rounds): rotate or checkpoint as the policy says."""
        self.since_checkpoint += 1
        policy = self.policy
        if not quiet or not (policy.every_steps or policy.rotate_bytes or policy.gaming_day_starts):
            return
        try:
            if self._rotation_due():
                self.rotate()
            elif policy.every_steps and self.since_checkpoint >= policy.every_steps:
                self.checkpoint()
        except JournalError as exc:
            self._rotation_retry_at = self.service.steps + ROTATION_RETRY_STEPS
            log.warning("%s; trying again in %d steps", exc, ROTATION_RETRY_STEPS)

    def _rotation_due(self) -> bool:
        policy, journal = self.policy, self.journal()
        if self.service.steps < self._rotation_retry_at:
            return False
        if policy.rotate_bytes is not None and journal.size() >= policy.rotate_bytes:
            return True
        opened_at = journal.first_record.at
        return (
            policy.gaming_day_starts is not None
            and opened_at is not None
            and checkpoint.gaming_day(self.service.corrected_at(), policy.gaming_day_starts)
            != checkpoint.gaming_day(opened_at, policy.gaming_day_starts)
        )

    def _at(self) -> float:
        """A checkpoint's time: the latest step's, corrected, else now."""
        service = self.service
        return service.corrected_at() if service.latest_at != float("-inf") else service.clock()

    def _data(self) -> dict[str, Any]:
        """What a checkpoint of the table after the journal's last record holds."""
        journal, devices = self.journal(), None
        if self.device_points is not None:
            previous = journal.last_checkpoint()
            start = previous.data.get("devices") if previous is not None else None
            devices = self.device_points(start, journal.steps(after_seq=previous.seq if previous else 0))
        return checkpoint.capture(self.service, journal.last_seq, devices, self.table_meta)
