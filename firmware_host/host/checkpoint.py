"""Checkpoints: the table's whole state in the journal, so a restart replays only what follows.

A checkpoint is a ``meta`` record of type ``checkpoint`` in the hash chain (under the HMAC
like every record), written by the service at a quiet moment (between rounds), at most
every :attr:`CheckpointPolicy.every_steps` steps, and as the first record of every new
segment (:meth:`~firmware_host.host.journal.Journal.rotate`). Its ``data``, format
:data:`FORMAT` (docs/checkpoints.md):

``format``
    this format's version;
``version``
    the tablehost version that wrote it;
``after_seq``
    the last record whose step it includes (the record before it);
``controller``
    the controller's state document (:mod:`firmware_host.tables.state_tree`);
``service``
    the service's counters: ``steps``, ``rounds_finished``, ``latest_at`` (the latest
    receive time, so time never goes back), ``journal_version`` (whose decisions the last
    steps are);
``devices``
    the simulated devices' resume points, by kind (a table with simulated devices only);
``table``
    the journal's ``table`` meta (table id, game, profile, seed, first version), so a
    segment names its table by itself.

A checkpoint is faithful: replaying the journal from its first record up to ``after_seq``
gives exactly its ``controller`` and ``service`` (:func:`matches`, run by ``tablehost journal
verify --deep`` and by the tests for every state of the machines).
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from typing import Any, Protocol

from firmware_host.errors import JournalError
from firmware_host.rules.gaming_day import GamingDay
from firmware_host.tables import state_tree

__all__ = ["FORMAT", "CheckpointPolicy", "CheckpointError", "Stateful", "capture", "load", "mismatch", "gaming_day"]

#: Version of a checkpoint's ``data`` (above).
FORMAT = 1


class CheckpointError(JournalError):
    """A checkpoint this version cannot load (another format, or a controller with other state)."""


@dataclasses.dataclass(frozen=True)
class CheckpointPolicy:
    """When the service checkpoints and rotates (the profile's ``[journal]`` keys).

    :param every_steps: a checkpoint at the first quiet moment after this many steps (0: none).
    :param rotate_bytes: rotate at a quiet moment once the file is this large (None: never).
    :param gaming_day_starts: rotate at the first quiet moment of each gaming day: the
        profile's (``[gaming_day]``), or one starting at this time UTC (None: never).
    """

    every_steps: int = 0
    rotate_bytes: int | None = None
    gaming_day_starts: datetime.time | GamingDay | None = None


class Stateful(Protocol):
    """What a checkpoint needs of the service (:class:`~firmware_host.host.service.Service`)."""

    controller: Any
    version: str | None
    journal_version: str | None
    steps: int
    rounds_finished: int
    latest_at: float


def capture(
    service: Stateful, after_seq: int, devices: dict[str, Any] | None, table: dict[str, Any] | None
) -> dict[str, Any]:
    """The ``data`` of a checkpoint of ``service`` after record ``after_seq``.

    :raises CheckpointError: the controller holds a value a state tree does not allow.
    """
    try:
        controller = state_tree.capture(service.controller, "controller")
    except state_tree.StateTreeError as exc:
        raise CheckpointError(f"cannot checkpoint: {exc}") from exc
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": service.version,
        "after_seq": after_seq,
        "controller": controller,
        "service": service_state(service),
    }
    if devices:
        data["devices"] = devices
    if table is not None:
        data["table"] = table
    return data


def service_state(service: Stateful) -> dict[str, Any]:
    """The service's counters as a checkpoint holds them."""
    return {
        "steps": service.steps,
        "rounds_finished": service.rounds_finished,
        "latest_at": service.latest_at if math.isfinite(service.latest_at) else None,
        "journal_version": service.journal_version,
    }


def load(service: Stateful, data: dict[str, Any], seq: int) -> None:
    """Put the checkpoint ``data`` (record ``seq``) into ``service`` and its freshly built controller.

    :raises CheckpointError: another format, or state this version's controller does not have;
        the caller then replays from an earlier point. The controller may be half restored:
        build a fresh one before replaying.
    """
    if data.get("format") != FORMAT:
        raise CheckpointError(
            f"checkpoint at record {seq} has format {data.get('format')!r}; this version reads format {FORMAT}"
        )
    counters = data.get("service")
    if not isinstance(counters, dict):
        raise CheckpointError(f"checkpoint at record {seq} has no service counters")
    controller = data.get("controller")
    if not isinstance(controller, dict):
        raise CheckpointError(f"checkpoint at record {seq} has no controller state")
    try:
        state_tree.restore_into(service.controller, controller, "controller")
        latest = counters["latest_at"]
        service.latest_at = float("-inf") if latest is None else float(latest)
        service.steps, service.rounds_finished = int(counters["steps"]), int(counters["rounds_finished"])
        service.journal_version = counters["journal_version"]
    except (state_tree.StateTreeError, KeyError, TypeError, ValueError) as exc:
        written = data.get("version")
        raise CheckpointError(
            f"checkpoint at record {seq} (written by tablehost {written}) does not fit this version: {exc}"
        ) from exc


def mismatch(service: Stateful, data: dict[str, Any]) -> str | None:
    """How a checkpoint differs from the state of ``service`` replayed to its ``after_seq`` (None: it is faithful)."""
    if state_tree.capture(service.controller, "controller") != data.get("controller"):
        return "the controller's state differs"
    if service_state(service) != data.get("service"):
        return f"the service's counters differ: {service_state(service)} != {data.get('service')}"
    return None


def gaming_day(at: float, starts: datetime.time | GamingDay) -> datetime.date:
    """The gaming day that ``at`` (seconds since the epoch) falls in: the profile's
    (:class:`~firmware_host.rules.gaming_day.GamingDay`), or one starting at ``starts`` UTC."""
    day = starts if isinstance(starts, GamingDay) else GamingDay(starts)
    return day.of(at)
