"""``tablehost journal salvage``: a damaged journal's intact part, and what follows it from the
floor's copy, written as a new journal that ``journal verify`` accepts and ``run`` resumes
(docs/recovery.md, "Salvage").

1. The live file is read row by row from its first record until SQLite cannot read on, then
   every later seq on its own (a damaged page costs its own records only). The rows read from
   the first on are written to a new file beside it and verified there with the table's key:
   those up to the last intact one are kept **as they were** (same hashes, same MACs).
2. The new file is opened and recovered as ``tablehost run`` would recover it. A step whose
   decisions were not all kept (the damage cut it) cannot be replayed: the kept part then ends
   before that step, and its intact records are restored below, so nothing intact is dropped.
3. Every other record the damaged file still gives is restored when it proves itself: its own
   hash, and with a keyed journal its MAC under the table's key (:func:`_proven`).
4. The floor's copy (:mod:`~firmware_host.floor.recovered`) is checked message by message
   against the table's feed key and the hashes of the records the journal gave.
5. Appended, under the journal's key: one ``salvage`` record saying what was kept, restored and
   lost, then one ``salvaged`` record per restored record (a ``meta``: replay skips it), holding
   the record as the damaged file had it or the floor's message as the table signed it.
6. The feed's cursor is set where the floor's copy ends, so the table's next messages follow it.
7. The damaged file keeps its content under ``<name>.damaged`` (a hard link, its ``-wal`` too), and
   the new file, fsynced, is renamed into its place, then the directory fsynced.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from firmware_host import __version__, durable
from firmware_host.config.profiles import TableProfile, load_table
from firmware_host.errors import JournalError, TablehostError
from firmware_host.feed.cursor import FeedCursor
from firmware_host.feed.schema import FeedState
from firmware_host.floor.model import FloorError, Unreadable
from firmware_host.floor.recovered import FloorCopy, check_copy, ranges
from firmware_host.floor.store_sql import SqlStore
from firmware_host.host import checkpoint
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import Record, mac_of, steps_of
from firmware_host.host.journal_file import APPLICATION_ID, COLUMNS, INSERT, SCHEMA
from firmware_host.host.journal_lock import lock_for_writing
from firmware_host.host.journal_verify import Finding, Problem, check_row, verify
from firmware_host.host.service import Service, Step
from firmware_host.tables.base import TableController
from firmware_host.tables.events import RoundsLost
from firmware_host.wiring import game_wiring, recorded_table_meta

__all__ = ["SalvageReport", "salvage", "SALVAGE_META", "SALVAGED_META", "DAMAGED_SUFFIX"]

#: The meta record saying what a salvage kept, restored and lost; then one per restored record.
SALVAGE_META, SALVAGED_META = "salvage", "salvaged"
#: The damaged journal's name once salvaged: ``<name>.damaged``.
DAMAGED_SUFFIX = ".damaged"
#: The new journal's name while it is written.
TEMPORARY_SUFFIX = ".salvage"
#: Restored records appended per transaction.
CHUNK = 500
#: The floor's messages read per query.
FLOOR_PAGE = 1000
#: Ranges and refusals named in a printed line (all of them are in the ``salvage`` record).
SHOWN = 12
#: The feed cursors a journal file holds (:mod:`~firmware_host.feed.cursor`), read without writing.
_CURSORS = "SELECT table_id, seq, journal_seq, hash FROM feed_cursor"
#: A key problem is not damage: the salvage needs the journal's own key.
_KEY_PROBLEMS = (Problem.KEY_NEEDED, Problem.WRONG_KEY, Problem.NOT_KEYED)


@dataclasses.dataclass
class SalvageReport:
    """What :func:`salvage` did, for the salvage record and the lines it prints."""

    path: Path
    damaged: Path
    finding: str
    first_seq: int
    kept_last: int
    from_journal: list[Record]
    refused_journal: list[tuple[int, str]]
    copy: FloorCopy | None
    floor: str | None
    lost: list[tuple[int, int]]
    cursor: FeedState | None
    keyed: bool = False
    #: The damaged journal held a feed cursor (the table had a floor feed).
    had_feed: bool = False
    #: The last record known to have existed: the damaged file names none later, nor the floor.
    known_end: int = 0
    last_seq: int = 0
    last_hash: str = ""

    def summary(self) -> dict[str, Any]:
        """The ``salvage`` record's data: everything the lines say, the ranges in full."""
        copy = self.copy or FloorCopy()
        return {
            "damaged": self.damaged.name,
            "finding": self.finding,
            "kept": [self.first_seq, self.kept_last],
            "restored_from_journal": ranges(r.seq for r in self.from_journal),
            "refused_from_journal": [[seq, why] for seq, why in self.refused_journal],
            "floor": self.floor,
            "restored": len(copy.restored),
            "restored_journal_seqs": ranges(r.message["journal_seq"] for r in copy.restored),
            "restored_feed_seqs": ranges(r.message["seq"] for r in copy.restored),
            "record_hashes_checked": sum(r.record_checked for r in copy.restored),
            "refused": [[seq, why] for seq, why in copy.refused],
            "unlinked_feed_seqs": copy.unlinked,
            "missing_feed_seqs": copy.missing,
            "lost_journal_seqs": self.lost,
            "known_end": self.known_end,
            "feed_cursor": dataclasses.asdict(self.cursor) if self.cursor is not None else None,
            "version": __version__,
        }

    def lines(self) -> list[str]:
        """One line for each thing kept, restored, refused and lost."""
        said = [f"{self.path}: {self.finding or 'intact'}"]
        said.append(
            f"kept as it was: records {self.first_seq}..{self.kept_last} ({self.kept_last - self.first_seq + 1})"
        )
        proof = "its MAC under the table's key" if self.keyed else "its own hash"
        said.append(
            f"restored from the damaged journal: {len(self.from_journal)} records, seq "
            f"{_shown(ranges(r.seq for r in self.from_journal))}; each proven by {proof}"
        )
        said.extend(
            f"refused from the damaged journal: record {seq}: {why}" for seq, why in self.refused_journal[:SHOWN]
        )
        if len(self.refused_journal) > SHOWN:
            said.append(
                f"refused from the damaged journal: {len(self.refused_journal) - SHOWN} more (all in the salvage record)"
            )
        copy = self.copy
        if copy is None:
            said.append("restored from the floor: nothing (no floor copy given)")
        else:
            restored = copy.restored
            checked = sum(r.record_checked for r in restored)
            said.append(
                f"restored from the floor {self.floor}: {len(restored)} records, journal seq "
                f"{_shown(ranges(r.message['journal_seq'] for r in restored))}, feed seq "
                f"{_shown(ranges(r.message['seq'] for r in restored))}; each signed by the table's feed key with "
                f"its hash checked, {checked} also proven by their journal record's hash; "
                f"{copy.anchored} floor messages matched the kept records"
            )
            said.extend(f"refused from the floor: feed seq {seq}: {why}" for seq, why in copy.refused[:SHOWN])
            if len(copy.refused) > SHOWN:
                said.append(f"refused from the floor: {len(copy.refused) - SHOWN} more (all in the salvage record)")
            if copy.missing:
                said.append(f"not on the floor: feed seq {_shown(copy.missing)}")
            if copy.unlinked:
                said.append(
                    f"restored without a checked link to the message before: feed seq {_shown(ranges(copy.unlinked))}"
                )
        lost = sum(b - a + 1 for a, b in self.lost)
        said.append(
            f"lost: {lost} records, journal seq {_shown(self.lost) if self.lost else 'none'}"
            + (" (what the feed never carries: inputs, prompts, lamps, checkpoints; and any refused)" if lost else "")
        )
        said.append(
            f"unknown: whatever followed record {self.known_end} (neither the damaged file nor the floor names a later one)"
        )
        if self.cursor is not None:
            said.append(f"feed: goes on after feed seq {self.cursor.seq} (hash {self.cursor.hash})")
        elif self.had_feed:
            said.append(
                "feed: its cursor pointed past the kept part and no floor copy says where the floor's chain "
                "ends: the feed publishes again from message 1, and the floor will find breaks where it "
                "holds other messages (give --floor-db to go on after the floor's copy instead)"
            )
        else:
            said.append("feed: none (the journal held no feed cursor)")
        said.append(
            f"wrote {self.path}: last record {self.last_seq} hash {self.last_hash}; the damaged journal is {self.damaged}"
        )
        return said


def _shown(runs: list[tuple[int, int]]) -> str:
    text = ", ".join(str(a) if a == b else f"{a}..{b}" for a, b in runs[:SHOWN])
    return text + (f" and {len(runs) - SHOWN} more ranges" if len(runs) > SHOWN else "") if runs else "none"


def salvage(
    path: Path,
    *,
    key: bytes | None,
    profile: str | os.PathLike[str] | None = None,
    floor: SqlStore | None = None,
    feed_keys: Mapping[str, Ed25519PublicKey] | None = None,
    table: str | None = None,
) -> SalvageReport:
    """Salvage the journal at ``path`` (the table stopped): see the module's steps.

    :param key: the journal's HMAC key (None: an unkeyed journal).
    :param profile: the table's profile (default: the one the journal's ``table`` record names).
    :param floor: the floor's store, read-only; ``feed_keys``: the table's feed public keys.
    :param table: the table's id on the floor (default: the journal's).
    :raises JournalError: the journal is running, nothing of it can be read, the key is not its
        own, the kept part does not replay, a ``.damaged`` file is there already, or I/O fails.
    """
    path = Path(path)
    damaged, temporary = path.with_name(path.name + DAMAGED_SUFFIX), path.with_name(path.name + TEMPORARY_SUFFIX)
    # A salvage cut short after keeping the damaged file: the same file under both names; go on from it.
    resumed = damaged.exists() and path.exists() and os.path.samefile(path, damaged)
    if damaged.exists() and not resumed:
        raise JournalError(f"journal {path}: {damaged.name} is there already (an earlier salvage); move it away first")
    lock = lock_for_writing(path)
    try:
        _remove(temporary)
        read = _read_damaged(damaged if resumed else path)
        finding, intact = _keep_intact(temporary, read, key)
        with _whole_steps(temporary, key, profile) as (journal, meta, service):
            kept_last = journal.last_seq
            table = table or str(meta.get("table_id"))
            later = [row for row in intact if row[0] > kept_last] + [row for row in read.rows if row[0] > intact[-1][0]]
            proven, refused = _proven(later, key)
            known = {row[0]: row[7] for row in intact} | {r.seq: r.hash for r in proven}
            first = intact[0][0]  # a later segment's: the messages of the archived ones are not needed
            copy = check_copy(_messages(floor, table), feed_keys or {}, known, first) if floor is not None else None
            report = SalvageReport(
                path, damaged, finding or read.stopped, intact[0][0], kept_last, proven, refused, copy,
                floor.name if floor is not None else None, [], None, key is not None,
            )  # fmt: skip
            report.lost = _lost(report, read.highest)
            items = _items(report)
            report.cursor = _cursor(report, read.cursors, table, journal.last_seq + 1 + len(items))
            report.had_feed = table in read.cursors or copy is not None
            _append(journal, report, items)
            _go_on_past(service, _highest_round(intact, proven, copy))
            if report.cursor is not None:
                cursor = FeedCursor(temporary, table)
                try:
                    cursor.save(report.cursor)
                finally:
                    cursor.close()
            report.last_seq, report.last_hash = journal.last_seq, journal.last_hash
        _replace(path, temporary, damaged, kept=resumed)
        return report
    finally:
        os.close(lock)
        _remove(temporary)


@dataclasses.dataclass
class _Read:
    """What SQLite still gives of a damaged journal file."""

    rows: list[tuple[Any, ...]]  #: every row it could read, in seq order
    stopped: str  #: why reading in order stopped ('' at the end)
    highest: int  #: the highest seq the file names
    cursors: dict[str, FeedState]  #: the feed cursors it holds, by table


def _read_damaged(path: Path) -> _Read:
    """The file's rows as stored (so they are copied byte for byte): in order from the first
    until SQLite cannot read on, then each later seq up to the highest on its own."""
    try:  # read-only; writable_schema lets SQLite open a file shorter than its header says (cut short)
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, isolation_level=None)
        conn.execute("PRAGMA writable_schema=ON")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise JournalError(f"journal {path}: SQLite cannot open it at all: {exc}") from exc
    rows: list[tuple[Any, ...]] = []
    stopped = ""
    try:
        try:
            for row in conn.execute(f"SELECT {COLUMNS} FROM records ORDER BY seq"):
                rows.append(row)
        except sqlite3.Error as exc:
            stopped = f"SQLite cannot read on after record {rows[-1][0] if rows else 0}: {exc}"
        try:
            (highest,) = conn.execute("SELECT max(seq) FROM records").fetchone()
        except sqlite3.Error:
            highest = None
        highest = highest if isinstance(highest, int) else 0
        for seq in range(rows[-1][0] + 1 if rows else 1, highest + 1) if stopped else ():
            try:
                row = conn.execute(f"SELECT {COLUMNS} FROM records WHERE seq = ?", (seq,)).fetchone()
            except sqlite3.Error:
                continue
            if row is not None:
                rows.append(row)
        try:
            cursors = {str(t): FeedState(s, j, h) for t, s, j, h in conn.execute(_CURSORS).fetchall()}
        except sqlite3.Error:  # none (a table without a feed), or unreadable: the feed starts again
            cursors = {}
    finally:
        conn.close()
    return _Read(rows, stopped, max(highest, rows[-1][0] if rows else 0), cursors)


def _keep_intact(temporary: Path, read: _Read, key: bytes | None) -> tuple[str, list[tuple[Any, ...]]]:
    """Write the rows read in order to the new file and verify them there: the file keeps the
    intact ones; return what was wrong ('' when nothing) and those rows."""
    in_order: list[tuple[Any, ...]] = []
    for row in read.rows:
        if in_order and row[0] != in_order[-1][0] + 1:
            break
        in_order.append(row)
    if not in_order:
        raise JournalError(f"journal {temporary.with_suffix('')}: SQLite reads no record of it: nothing to keep")
    _write_rows(temporary, in_order)
    found = verify(temporary, hmac_key=key)
    if found.problem in _KEY_PROBLEMS:
        raise JournalError(f"journal {temporary.with_suffix('')}: {found.finding()}")
    intact = [row for row in in_order if row[0] <= found.last_seq]
    if not intact:
        raise JournalError(f"journal {temporary.with_suffix('')}: {found.finding()}: nothing to keep")
    if not found.ok:
        _cut_from(temporary, found.last_seq + 1)
    return found.finding(), intact


def _write_rows(temporary: Path, rows: list[tuple[Any, ...]]) -> None:
    """A journal file holding exactly ``rows`` as stored (committed, ``synchronous=FULL``)."""
    with contextlib.closing(sqlite3.connect(temporary, isolation_level=None)) as conn:
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute("BEGIN")
        conn.execute(SCHEMA)
        conn.executemany(INSERT, rows)
        conn.execute("COMMIT")


def _proven(rows: Iterable[tuple[Any, ...]], key: bytes | None) -> tuple[list[Record], list[tuple[int, str]]]:
    """The rows after the kept part that prove themselves (their own hash; with a key, their MAC),
    as records; and why each other one does not."""
    proven: list[Record] = []
    refused: list[tuple[int, str]] = []
    mac = None if key is None else mac_of(key)
    for row in rows:
        found = check_row(row, expected_seq=row[0], prev_hash=row[6], key=mac, keyed=key is not None)
        if found is None:
            try:
                proven.append(Record.from_row(row))
                continue
            except JournalError as exc:
                found = Finding(Problem.MALFORMED, str(exc), row[0])
        refused.append((row[0], f"{found.problem}: {found.detail}"))
    return proven, refused


@contextlib.contextmanager
def _whole_steps(temporary: Path, key: bytes | None, profile: str | os.PathLike[str] | None) -> Iterator[Any]:
    """The new journal, open, with its service, once it recovers as ``run`` would and stands
    between rounds: if its last step cannot be replayed (the damage cut it), that step's records are
    taken out of it and it is tried again; so are the steps after the last moment between rounds
    (their intact records are restored), whose round the records after the kept part may number."""
    for attempt in range(3):
        journal = Journal.open(temporary, hmac_key=key)
        failure: JournalError | None = None
        cut: int | None = None
        try:
            meta = recorded_table_meta(journal)
            if meta is None:
                raise JournalError(f"journal {temporary}: no table record in its intact part: it cannot be resumed")
            loaded = _profile(meta, profile)
            controller, service = _replaying(loaded, journal, meta)
            try:
                service.recover(started_by=meta.get("version"))
            except JournalError as exc:
                failure = exc
            if failure is None and not controller.quiet:
                cut = _last_quiet(journal, loaded, meta, service.recovered_from)
        except BaseException:
            journal.close()
            raise
        if failure is None and cut is None:
            try:
                yield journal, meta, service
            finally:
                journal.close()
            return
        journal.close()
        if failure is not None:
            cut = _last_step(temporary)
        if attempt == 2 or cut is None:
            why = failure or "it comes to no moment between rounds"
            raise JournalError(f"journal {temporary}: its intact part does not replay: {why}") from failure
        _cut_from(temporary, cut)


def _last_quiet(journal: Journal, loaded: TableProfile, meta: dict[str, Any], start: Record | None) -> int | None:
    """The seq of the input after which the file's steps leave the table between rounds no more:
    its steps replayed again from ``start`` (the checkpoint :meth:`Service.recover` began at, else
    the first record); None when it cannot tell (a later segment without a checkpoint it loaded)."""
    if start is None and journal.first_record.seq != 1:
        return None
    controller, service = _replaying(loaded, journal, meta)
    service.journal_version = meta.get("version") or __version__
    after = 0 if start is None else start.seq
    if start is not None:
        checkpoint.load(service, start.data, start.seq)
    inputs = [r.seq for r in journal.records(after + 1) if r.kind == "input"]
    quiet_before: int | None = None

    def watched() -> Iterator[Step]:
        nonlocal quiet_before
        for index, step in enumerate(steps_of(journal.records(after + 1))):
            if controller.quiet:  # as the steps before it left the table
                quiet_before = inputs[index]
            yield step

    service.replay(watched())
    return quiet_before


def _replaying(loaded: TableProfile, journal: Journal, meta: dict[str, Any]) -> tuple[TableController, Service]:
    """A fresh controller of the table and a service to replay ``journal`` into it."""
    controller = game_wiring(loaded.game).controller(loaded)
    return controller, Service(controller, journal, version=__version__, table_meta=meta)


def _highest_round(intact: list[tuple[Any, ...]], proven: list[Record], copy: FloorCopy | None) -> int:
    """The highest round number a record the salvage has names: kept or intact (``intact``'s rows),
    restored from the damaged file (``proven``) or from the floor (``copy``); 0 if none."""
    named = [row[4] for row in intact] + [r.round for r in proven]
    named += [r.message.get("round") for r in (copy or FloorCopy()).restored]
    return max((n for n in named if isinstance(n, int) and not isinstance(n, bool)), default=0)


def _go_on_past(service: Service, highest: int) -> None:
    """Journal a :class:`~firmware_host.tables.events.RoundsLost` step when rounds up to ``highest``
    were issued after the kept part: the table numbers its next round after them."""
    if highest >= getattr(service.controller, "current_round", highest + 1):
        service.step(RoundsLost(device="salvage", highest=highest))


def _profile(meta: dict[str, Any], given: str | os.PathLike[str] | None) -> TableProfile:
    """The profile to replay with: ``given``, or the one the journal's ``table`` record names; of this table."""
    loaded = load_table(Path(given) if given is not None else str(meta.get("profile", "")))
    if loaded.table_id != meta.get("table_id"):
        raise TablehostError(
            f"the journal belongs to table {meta.get('table_id')!r}, the profile to {loaded.table_id!r}"
        )
    return loaded


def _last_step(temporary: Path) -> int | None:
    """The seq of the input opening the file's last step, when the file ends inside a step (not after a meta)."""
    with contextlib.closing(sqlite3.connect(temporary)) as conn:
        last = conn.execute("SELECT kind FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        if last is None or last[0] == "meta":
            return None
        (seq,) = conn.execute("SELECT max(seq) FROM records WHERE kind = 'input'").fetchone()
    return seq if isinstance(seq, int) else None


def _cut_from(temporary: Path, seq: int) -> None:
    """Take records ``seq``.. out of the new file (their intact copies are restored as records)."""
    with contextlib.closing(sqlite3.connect(temporary, isolation_level=None)) as conn:
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("DELETE FROM records WHERE seq >= ?", (seq,))


def _messages(floor: SqlStore, table: str) -> Iterator[Any]:
    """The floor's messages of ``table``, a page of :data:`FLOOR_PAGE` per query (none when it never
    heard of it): memory stays bounded however long the table's history."""
    if table not in floor.tables():
        return
    after = 0
    while True:
        try:
            page = list(floor.read(table, after=after, limit=FLOOR_PAGE))
        except FloorError as exc:
            raise JournalError(f"floor {floor.name}: cannot read table {table}: {exc}") from exc
        yield from page
        seqs = [item.seq if isinstance(item, Unreadable) else item.get("seq") for item in page]
        last = max((s for s in seqs if isinstance(s, int) and not isinstance(s, bool)), default=after)
        if len(page) < FLOOR_PAGE or last <= after:
            return
        after = last


def _lost(report: SalvageReport, known_last: int) -> list[tuple[int, int]]:
    """The journal seqs after the kept part that are neither restored nor kept as intact records."""
    copy = report.copy or FloorCopy()
    have = {r.seq for r in report.from_journal} | {r.message["journal_seq"] for r in copy.restored}
    report.known_end = max([known_last, report.kept_last, copy.last.journal_seq, *have])
    return ranges(seq for seq in range(report.kept_last + 1, report.known_end + 1) if seq not in have)


def _items(report: SalvageReport) -> list[dict[str, Any]]:
    """The ``salvaged`` records' data, in journal order: the damaged file's records, then the floor's."""
    items: list[dict[str, Any]] = [{"source": "journal", "record": r.to_json()} for r in report.from_journal]
    copy = report.copy or FloorCopy()
    items += [{"source": "floor", "message": r.message, "record_checked": r.record_checked} for r in copy.restored]
    return items


def _append(journal: Journal, report: SalvageReport, items: list[dict[str, Any]]) -> None:
    """The ``salvage`` record, then a ``salvaged`` record per restored record."""
    at = time.time()
    journal.append_meta(SALVAGE_META, report.summary(), at=at)
    for start in range(0, len(items), CHUNK):
        journal.append_metas(SALVAGED_META, items[start : start + CHUNK], at=at)


def _cursor(report: SalvageReport, cursors: dict[str, FeedState], table: str, last_seq: int) -> FeedState | None:
    """Where the table's feed goes on: after the last message of the floor's copy (a message of
    a record not kept moves the cursor past the salvage records); without a copy, the damaged
    journal's own cursor if it does not point beyond the kept part."""
    if report.copy is not None:
        last = report.copy.last
        if last.seq == 0:
            return None
        return FeedState(last.seq, last.journal_seq if last.journal_seq <= report.kept_last else last_seq, last.hash)
    state = cursors.get(table)
    return state if state is not None and 0 < state.journal_seq <= report.kept_last else None


def _replace(path: Path, temporary: Path, damaged: Path, *, kept: bool) -> None:
    """Keep the damaged file (and its ``-wal``) as ``damaged`` (unless ``kept`` already), then put
    the new file in its place, durably. Cut short anywhere, the damaged content is still under
    one of its names, and the next salvage goes on from ``damaged``."""
    directory = path.parent
    if Path(f"{temporary}-wal").exists():
        raise JournalError(f"journal {temporary}: its write-ahead log was not folded in; nothing was replaced")
    try:
        for suffix in ("-wal", "") if not kept else ():  # the log first: the main file's link says "kept"
            source, target = Path(f"{path}{suffix}"), Path(f"{damaged}{suffix}")
            if source.exists() and not (target.exists() and os.path.samefile(source, target)):
                os.link(source, target)
        durable.fsync_directory(directory)
        for suffix in ("-wal", "-shm"):  # the new file must not be read with the old one's log
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        durable.publish(temporary, path)  # fsynced, renamed over the damaged name, directory fsynced
    except OSError as exc:
        raise JournalError(f"journal {path}: cannot put the salvaged journal in place: {exc}") from exc


def _remove(path: Path) -> None:
    """``path`` and what SQLite and the writer's lock keep beside it."""
    for suffix in ("", "-wal", "-shm", ".lock"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
