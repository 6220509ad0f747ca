"""The web face's reading of the table: it follows the face file, read-only, into the display's hub.

The web face holds no controller, writes nothing and cannot read the journal: the service writes
it the face file beside the journal (:mod:`.face_file`), which holds of each journal record only
what the display may show (:func:`~firmware_host.display.face.shown`), under the record's journal
seq. :class:`FaceFollower` rebuilds the hub's view from every row of it (a page at a time), then
polls it for rows after the last one it has (every :data:`POLL_S` seconds), each poll one short
read transaction of a read-only connection, so the writer is never held up (SQLite's WAL lets
readers beside the one writer). The event id of every update holds the journal seq (and the
file's build: :mod:`.hub`), so a page reconnecting after a restart of the web face catches up
by Last-Event-ID, and so does one after a restart of the service (which builds the file anew)
while this web face lives through it; a web face started after it sends a snapshot. A face file made anew (a new inode: it had failed) is opened again, and read only once built
(:func:`~firmware_host.display.face_file.read_build`: until its rebuild commits it holds no row,
which is no new journal). One built again that no longer holds the last row read as it was read
holds a new journal (its seqs start again lower, or a salvage wrote other records above those it
kept): the view is read anew from it (:meth:`DisplayHub.start_again`, its epoch the file's new
build, so pages with an id of the journal before get a snapshot) and the pages' streams end, so
that they catch up. One built again that holds it is the same journal: followed on.

The service's ``halted`` record (it stops on a journal it cannot write) becomes the display's
banner, as the service's own ``halted`` decision was when the display was its output.
"""

from __future__ import annotations

import collections
import itertools
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from firmware_host.display.face_file import (
    COMPLAIN_EVERY_S,
    PAGE,
    FaceRow,
    connect_reader,
    read_after,
    read_at,
    read_build,
)
from firmware_host.display.hub import BACKLOG, DisplayHub
from firmware_host.tables.decisions import Decision

__all__ = ["FaceFollower", "Background", "POLL_S", "PAGE"]

log = logging.getLogger("tablehost.display")

#: Seconds between polls of the face file for new rows.
POLL_S = 0.05
#: Seconds between attempts to open a face file that cannot be opened yet, and between log lines about it.
RETRY_S = 1.0


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


class FaceFollower(Background):
    """Feeds ``hub`` the face file at ``path``: first everything (:meth:`rebuild`), then each new
    row as it is committed (:meth:`start`: a thread that polls)."""

    name = "face-follower"

    def __init__(self, path: Path, hub: DisplayHub, poll_s: float = POLL_S) -> None:
        super().__init__()
        self.path = path
        self.hub = hub
        self.poll_s = poll_s
        #: The journal seq of the last row read.
        self.position = 0
        #: The last row read, as read: a poll that finds it changed or gone reads a new journal.
        self._last: FaceRow | None = None
        #: The build of the face file read (None: none read yet).
        self.build: str | None = None
        #: Held by each read and to close the connection (:meth:`stop` may come while the hub's
        #: thread reads, in :meth:`rebuild`).
        self._reading = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._inode: int | None = None
        self._moved = threading.Condition()
        self._complained_at = float("-inf")

    def rebuild(self) -> int:
        """Apply the face file's rows so far to the hub's view (a file not there or not built yet
        is none), the last :data:`~firmware_host.display.hub.BACKLOG` steps as updates in its
        backlog (a page reconnecting to a restarted web face catches up by Last-Event-ID), under
        the file's build as the hub's epoch; return how many decisions. Read a page of
        :data:`PAGE` rows at a time: only the last steps are held, however long the file.

        Called before :meth:`start`, or by :meth:`poll` through
        :meth:`~firmware_host.display.hub.DisplayHub.start_again`: then on the hub's thread, while
        the follower's waits for it. A :meth:`stop` meanwhile waits for the page being read, and
        the rebuild ends there (the view holds the rows read so far)."""
        recent: collections.deque[tuple[list[int], float, list[Decision]]] = collections.deque(maxlen=BACKLOG)
        rows = self._rows()
        first = list(itertools.islice(rows, 1))  # the first page read: the file's build is known
        older = self._older(itertools.chain(first, rows), recent)
        return self.hub.rebuild(older, recent, self.build)  # recent is read once the older are applied

    @staticmethod
    def _older(
        rows: Iterable[FaceRow], recent: collections.deque[tuple[list[int], float, list[Decision]]]
    ) -> Iterator[tuple[int, float, Decision]]:
        """The decisions of the steps of ``rows``, ``(seq, at, decision)``, all but the last
        ``recent.maxlen``, which are left in ``recent``."""
        for step in _steps(rows):
            if len(recent) == recent.maxlen:
                seqs, at, decisions = recent[0]
                yield from ((seq, at, decision) for seq, decision in zip(seqs, decisions))
            recent.append(step)

    def _rows(self) -> Iterator[FaceRow]:
        """Every row of the face file, a page at a time (:attr:`position` moving on); when it cannot
        be read (not there yet, as the service starts it, or going), those read so far."""
        self.position, self._last, self.build = 0, None, None
        try:
            while page := self._read()[1]:
                yield from page
                self.position, self._last = page[-1].seq, page[-1]
        except (sqlite3.Error, OSError) as exc:
            self._close()
            self._complain(exc)

    def stop(self) -> None:
        """Stop following and close the connection (after the read in progress, if any: a
        :meth:`rebuild` on the hub's thread reads no more)."""
        super().stop()
        self._close()

    def sync(self, timeout: float = 5.0) -> bool:
        """Wait until every row committed before this call has been read (True), or ``timeout``
        seconds (False)."""
        try:
            conn = connect_reader(self.path)
        except sqlite3.Error:
            return False
        try:
            (last,) = conn.execute("SELECT max(seq) FROM shown").fetchone()
        finally:
            conn.close()
        with self._moved:
            return self._moved.wait_for(lambda: self.position >= (last or 0), timeout)

    # -- the thread ------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                read = self.poll()
            except (sqlite3.Error, OSError) as exc:
                self._close()
                self._complain(exc)
                self._stopping.wait(RETRY_S)
                continue
            if read < PAGE:
                self._stopping.wait(self.poll_s)

    def poll(self) -> int:
        """Read the rows committed since the last poll (a page at most) into the hub; return how
        many. When the file, built again, no longer holds the last row read as it was read (the
        journal was replaced by a new one), the hub starts again from it
        (:meth:`~firmware_host.display.hub.DisplayHub.start_again`); when it holds it, the
        hub's epoch moves to the new build (:meth:`~firmware_host.display.hub.DisplayHub.same_journal`)."""
        build = self.build
        same, rows = self._read()
        if not same:
            log.warning("display: the face file %s holds a new journal: its view is read anew", self.path)
            done = self.hub.start_again(self.rebuild)
            while not done.wait(RETRY_S) and not self._stopping.is_set():
                pass
            with self._moved:
                self._moved.notify_all()
            return 0
        if self.build != build and self.build is not None:
            self.hub.same_journal(self.build)
        if not rows:
            return 0
        for seqs, at, decisions in _steps(rows):
            self.hub.feed(seqs, decisions, at)
        with self._moved:
            self.position, self._last = rows[-1].seq, rows[-1]
            self._moved.notify_all()
        return len(rows)

    def _read(self) -> tuple[bool, list[FaceRow]]:
        """Whether the file still holds the last row read as it was read, and up to :data:`PAGE`
        rows after :attr:`position` (none when it does not), in one read transaction, from the
        face file as it is now (opened again when it was made anew); :attr:`build` its build.
        A file not built yet holds nothing yet (the same journal, no rows); once stopping, nothing
        is read."""
        with self._reading:
            if self._stopping.is_set():
                return True, []
            if self._conn is not None and os.stat(self.path).st_ino != self._inode:
                self._close()
            if self._conn is None:
                self._conn = connect_reader(self.path)
                self._inode = os.stat(self.path).st_ino
            conn = self._conn
            conn.execute("BEGIN")
            try:
                build = read_build(conn)
                if build is None:  # made anew, its rebuild not committed yet: no new journal
                    return True, []
                same = self._last is None or read_at(conn, self._last.seq) == self._last
                if same:
                    self.build = build
                return same, read_after(conn, self.position) if same else []
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    def _close(self) -> None:
        with self._reading:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _complain(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._complained_at >= COMPLAIN_EVERY_S:
            self._complained_at = now
            log.warning("display: cannot read the face file %s (trying again every %gs): %s", self.path, RETRY_S, exc)


def _steps(rows: Iterable[FaceRow]) -> Iterator[tuple[list[int], float, list[Decision]]]:
    """The rows as steps: ``(seqs, at, decisions)``, one for each run of rows of one step (the
    shown decisions of a step, in order), as the service handed them to its outputs; one update of
    the pages each. A step's seqs need not follow on: a decision left out of the face file (an
    ``odds``) leaves its seq out."""
    run: list[FaceRow] = []
    for row in rows:
        if run and row.step != run[0].step:
            yield _step(run)
            run = []
        run.append(row)
    if run:
        yield _step(run)


def _step(run: list[FaceRow]) -> tuple[list[int], float, list[Decision]]:
    at = run[0].at
    return [row.seq for row in run], time.time() if at is None else at, [row.decision for row in run]
