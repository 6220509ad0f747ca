"""The web face's reading of the table: it follows the journal, read-only, into the display's hub.

The web face holds no controller and writes nothing: the journal is what the table decided, and
it is all the display shows. :class:`JournalFollower` rebuilds the hub's view from every record
(across the archived segments), then polls the live file for records after the last one it has
(every :data:`POLL_S` seconds), each poll one short read transaction of a read-only connection,
so the writer's checkpoints are never held up (SQLite's WAL lets readers beside the one writer;
the journal checkpoints itself, passively: docs/journal.md). A rotation cuts the live file
under the reader; records it had not read yet are read from the archived segment
(:class:`~firmware_host.host.segments.ArchivedPages`). The event id of every update stays the
journal seq.

The service's ``halted`` record (it stops on a journal it cannot write) becomes the display's
banner, as the service's own ``halted`` decision was when the display was its output.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from firmware_host.display.hub import BACKLOG, DisplayHub
from firmware_host.errors import JournalError
from firmware_host.host import journal_file, segments
from firmware_host.host.journal_codec import Record
from firmware_host.host.service import HALTED_META
from firmware_host.tables.decisions import HALTED, Decision

__all__ = ["JournalFollower", "Background", "POLL_S", "PAGE", "halted_text"]

log = logging.getLogger("tablehost.display")

#: Seconds between polls of the journal for new records.
POLL_S = 0.05
#: Records read per poll (a reader far behind catches up a page at a time).
PAGE = 512
#: Seconds between attempts to open a journal that cannot be opened yet, and between log lines about it.
RETRY_S = 1.0


def halted_text(reason: str) -> str:
    """The banner of a table stopped on its journal (the words of the service's ``halted`` decision)."""
    return f"TABLE STOPPED: the journal cannot be written; call a supervisor ({reason})"


class Background:
    """A daemon thread running :meth:`_run` until :meth:`stop`, which sets :attr:`_stopping` (what
    :meth:`_run` waits on between its rounds)."""

    #: The thread's name.
    name = "background"

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread."""
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (after its round in progress)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        raise NotImplementedError


class JournalFollower(Background):
    """Feeds ``hub`` the journal at ``path``: first everything (:meth:`rebuild`), then each new
    record as it is committed (:meth:`start`: a thread that polls)."""

    name = "journal-follower"

    def __init__(self, path: Path, hub: DisplayHub, poll_s: float = POLL_S) -> None:
        super().__init__()
        self.path = path
        self.hub = hub
        self.poll_s = poll_s
        #: The seq of the last record read (and handed to the hub when it was a decision).
        self.position = 0
        self._conn: sqlite3.Connection | None = None
        self._archived: segments.ArchivedPages | None = None
        self._moved = threading.Condition()
        self._complained_at = float("-inf")

    def rebuild(self) -> int:
        """Apply the journal's decisions so far to the hub's view (before :meth:`start`): those of the
        live file and of the segment before it (a shoe in play at a rotation; a journal of a year's
        segments is not read whole at every start of the web face), the
        last :data:`~firmware_host.display.hub.BACKLOG` steps as updates in its backlog (a page
        reconnecting to a restarted web face catches up by Last-Event-ID); return how many."""
        records = _recent_records(self.path)
        steps = list(_steps(records))
        older, recent = steps[:-BACKLOG], steps[-BACKLOG:]
        applied = self.hub.rebuild(
            ((first + i, at, d) for first, at, step in older for i, d in enumerate(step)), recent
        )
        if records:
            self.position = records[-1].seq
        return applied

    def stop(self) -> None:
        """Stop following and close the connections."""
        super().stop()
        self._close()

    def sync(self, timeout: float = 5.0) -> bool:
        """Wait until every record committed before this call has been read (True), or ``timeout``
        seconds (False)."""
        try:
            with segments.opened(segments.segments_of(self.path)[-1]) as conn:
                (last,) = conn.execute("SELECT max(seq) FROM records").fetchone()
        except (JournalError, sqlite3.Error, IndexError):
            return False
        deadline = time.monotonic() + timeout
        with self._moved:
            return self._moved.wait_for(lambda: self.position >= (last or 0), max(0.0, deadline - time.monotonic()))

    # -- the thread ------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                read = self.poll()
            except (JournalError, sqlite3.Error) as exc:
                self._close()
                self._complain(exc)
                self._stopping.wait(RETRY_S)
                continue
            if read < PAGE:
                self._stopping.wait(self.poll_s)

    def poll(self) -> int:
        """Read the records committed since the last poll (a page at most) into the hub; return how many."""
        records = self._after(self.position)
        if not records:
            return 0
        for first_seq, at, decisions in _steps(records):
            self.hub.feed(first_seq, decisions, at)
        with self._moved:
            self.position = records[-1].seq
            self._moved.notify_all()
        return len(records)

    def _after(self, seq: int) -> list[Record]:
        """Up to :data:`PAGE` records after ``seq``: from the live file, or from the archived
        segment that holds them when a rotation has cut them out of it."""
        if self._conn is None:
            self._conn = _open(self.path)
        rows = self._conn.execute(
            f"SELECT {journal_file.COLUMNS} FROM records WHERE seq > ? ORDER BY seq LIMIT ?", (seq, PAGE)
        ).fetchall()  # autocommit: the read transaction ends with the statement
        if rows and rows[0][0] == seq + 1:
            return [Record.from_row(row) for row in rows]
        if not rows and seq > 0:
            return []
        if self._archived is None:
            self._archived = segments.ArchivedPages(self.path)
        page = self._archived.page(seq, PAGE)
        if not page and rows:
            raise JournalError(f"journal {self.path}: record {seq + 1} is in no segment beside it")
        return page

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._archived is not None:
            self._archived.close()
            self._archived = None

    def _complain(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._complained_at >= 60.0:
            self._complained_at = now
            log.warning("display: cannot read the journal %s (trying again every %gs): %s", self.path, RETRY_S, exc)


def _recent_records(path: Path) -> list[Record]:
    """The records of the live file and of the segment before it, in order (read only; older
    segments, perhaps compressed, are not opened)."""
    records: list[Record] = []
    for segment in segments.segments_of(path)[-2:]:
        with segments.opened(segment) as conn:
            records += [
                Record.from_row(row) for row in journal_file.read_rows(conn, records[-1].seq + 1 if records else 1)
            ]
    return records


def _open(path: Path) -> sqlite3.Connection:
    """A read-only connection to the live file that sees later commits (never an immutable one)."""
    conn = sqlite3.connect(
        path.absolute().as_uri() + "?mode=ro", uri=True, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute("SELECT count(*) FROM records").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _decisions(records: Iterable[Record]) -> Iterator[tuple[int, float, Decision]]:
    """The display's decisions among ``records``: every decision, and the service's ``halted`` record."""
    for record in records:
        at = time.time() if record.at is None else record.at
        if record.kind == "decision":
            yield record.seq, at, Decision(record.type, record.data, record.round)
        elif record.kind == "meta" and record.type == HALTED_META:
            reason = str(record.data.get("reason", ""))
            yield record.seq, at, Decision(HALTED, {"reason": reason, "text": halted_text(reason)})


def _steps(records: list[Record]) -> Iterator[tuple[int, float, list[Decision]]]:
    """The display's decisions among ``records`` as steps: ``(first seq, at, decisions)``, one for
    each run of consecutive decisions (a step's, after its input record), as the service handed
    them to its outputs; one update of the pages each."""
    run: list[Decision] = []
    first, run_at, expected = 0, 0.0, -1
    for seq, at, decision in _decisions(records):
        if run and (seq != expected or decision.type == HALTED):
            yield first, run_at, run
            run = []
        if not run:
            first, run_at = seq, at
        run.append(decision)
        expected = seq + 1
    if run:
        yield first, run_at, run
