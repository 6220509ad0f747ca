"""Journal commands that need the table's controller: ``journal verify --deep`` and ``journal rotate``.

Both build the controller from the table's profile (the one the journal's ``table`` meta
names, unless another is given), as ``tablehost run`` does.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from pathlib import Path
from typing import Any

from firmware_host import __version__
from firmware_host.config.profiles import TableProfile, load_table
from firmware_host.errors import JournalError, TablehostError
from firmware_host.host import checkpoint, segments
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import CHECKPOINT_TYPE, Record, steps_of
from firmware_host.host.journal_keys import load_key
from firmware_host.host.service import Service
from firmware_host.wiring import TABLE_META, game_wiring, recorded_table_meta
from firmware_host.wiring.resume import device_points

__all__ = ["DeepReport", "verify_deep", "rotate_journal", "table_profile"]

log = logging.getLogger("tablehost.journal")


@dataclasses.dataclass
class DeepReport:
    """What ``journal verify --deep`` found: every checkpoint compared with the replay up to it.

    :param steps: steps replayed from the journal's first record.
    :param checkpoints: checkpoints compared.
    :param problems: one line per checkpoint that is not what the replay gives (empty: faithful).
    """

    steps: int = 0
    checkpoints: int = 0
    problems: list[str] = dataclasses.field(default_factory=list)


def _table_meta(path: Path) -> dict[str, Any]:
    """The journal's ``table`` meta, from its first segment's records (read-only)."""
    for record in segments.records(path):
        if record.kind == "meta" and record.type == TABLE_META:
            return record.data
        if record.seq > 16:  # the table meta follows the genesis at once
            break
    raise JournalError(f"journal {path}: no table record near its start: not written by tablehost run")


def table_profile(path: Path, profile: str | os.PathLike[str] | None) -> TableProfile:
    """The profile to rebuild the journal's table with: ``profile``, or the one its ``table`` meta names.

    :raises TablehostError: no such profile, or the profile is another table's.
    """
    meta = _table_meta(path)
    loaded = load_table(Path(profile) if profile is not None else str(meta.get("profile", "")))
    if loaded.table_id != meta.get("table_id"):
        raise TablehostError(
            f"journal {path} belongs to table {meta.get('table_id')!r}, "
            f"the profile {loaded.path} to {loaded.table_id!r}"
        )
    return loaded


def verify_deep(path: Path, profile: TableProfile) -> DeepReport:
    """Replay the journal from its first record, across its segments, and compare every checkpoint
    with the state the replay reached at it (run :func:`~firmware_host.host.journal_verify.verify` first).

    :raises JournalError: a replayed decision differs (as in recovery), a segment is missing.
    """
    controller = game_wiring(profile.game).controller(profile)
    service = Service(controller, None, version=__version__)  # replays only
    service.journal_version = _table_meta(path).get("version") or __version__
    report = DeepReport()
    previous: list[int] = [0]

    def compare(record: Record) -> None:
        if record.kind != "meta":
            return
        if record.type == CHECKPOINT_TYPE:
            report.checkpoints += 1
            why = checkpoint.mismatch(service, record.data)
            if record.data.get("after_seq") != previous[0]:
                why = f"it says it follows record {record.data.get('after_seq')}, not {previous[0]}"
            if why is not None:
                report.problems.append(f"checkpoint at record {record.seq}: {why}")
        previous[0] = record.seq

    def tracked(records: Any) -> Any:
        for record in records:
            yield record
            if record.kind != "meta":
                previous[0] = record.seq

    report.steps = service.replay(steps_of(tracked(segments.records(path)), on_meta=compare))
    return report


def rotate_journal(path: Path, profile: TableProfile) -> Path:
    """Rotate the journal of a stopped table: rebuild its state (from the last checkpoint), then
    start a new segment opened by a checkpoint of it. Return where the old segment went.

    :raises JournalError: the service is running (it holds the journal's writer lock), I/O fails.
    """
    key = load_key(profile.hmac_key_file) if profile.hmac_key_file else None
    with Journal.open(path, hmac_key=key) as journal:
        meta = recorded_table_meta(journal)
        if meta is None or journal.last_seq == journal.first_record.seq:
            raise JournalError(f"journal {path}: nothing to rotate (no table has played in this segment yet)")
        service = Service(
            game_wiring(profile.game).controller(profile),
            journal,
            version=__version__,
            device_points=device_points(profile),
            table_meta=meta,
        )
        service.recover(started_by=meta.get("version"))
        before = journal.segment_number
        service.rotate()
    return segments.archive_path(path, before)
