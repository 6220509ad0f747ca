"""A journal's first start: the file made whole before it takes its name, and a start cut short made anew.

A new journal is built under a temporary name beside it (``<name>.new``): the records table,
the ``application_id`` and the genesis record in one transaction, WAL mode set, closed, then
made durable and renamed into place (:func:`firmware_host.durable.publish`). So no later
start can find a journal half made, whatever moment a kill or a power cut chose.

Journals made by earlier versions were made in place, and a first start cut short left a
file SQLite had begun (0 bytes; or a header with no tables, perhaps beside a ``-journal``
or ``-wal``), which every later start refused: the table did not start until a person came
(issue 27 item 1). :func:`prepare` recognises such a file, when it *provably* holds no
record, names it in one line of the log and makes the journal anew. A file holding any
record, or one beside archived segments (a rotated journal's live file), is never
discarded: :meth:`~firmware_host.host.journal.Journal.open` refuses what it cannot append to.
"""

from __future__ import annotations

import logging
import pathlib
import sqlite3
import time

from firmware_host import durable
from firmware_host.errors import JournalError
from firmware_host.host.journal_codec import FORMAT, GENESIS_PREV_HASH, GENESIS_TYPE, canonical_json, seal
from firmware_host.host.journal_file import APPLICATION_ID, INSERT, SCHEMA
from firmware_host.host.journal_keys import key_id

__all__ = ["prepare", "create", "unfinished", "temporary_path"]

log = logging.getLogger("tablehost.journal")

#: The largest file a first start can leave: two pages (the schema's and the records table's
#: root) of SQLite's largest page size. A larger one is no unfinished first start.
UNFINISHED_MAX_BYTES = 2 * 65536
#: SQLite's files beside a database: its rollback journal, write-ahead log and WAL index.
SIDE_FILES = ("-journal", "-wal", "-shm")


def temporary_path(path: pathlib.Path) -> pathlib.Path:
    """Where a new journal for ``path`` is built before it takes its name."""
    return path.with_name(path.name + ".new")


def _side_files(path: pathlib.Path) -> list[pathlib.Path]:
    return [path.with_name(path.name + suffix) for suffix in SIDE_FILES]


def _remove_with_side_files(path: pathlib.Path) -> None:
    for file in (path, *_side_files(path)):
        file.unlink(missing_ok=True)


def prepare(path: pathlib.Path, key: bytes | None) -> None:
    """Make the journal at ``path`` if there is none, or if a first start was cut short there
    (:func:`unfinished`); leave any other file to the open. The caller holds the writer's lock.

    :raises JournalError: a write-ahead log is there without its journal, or I/O fails.
    """
    try:
        if not path.exists():
            wal = path.with_name(path.name + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise JournalError(
                    f"journal {path}: missing, but its write-ahead log {wal.name} is there (records may be "
                    "in it): put the journal back, or move the log away to start a new journal"
                )
            create(path, key)
            return
        reason = unfinished(path)
        if reason is not None:
            log.warning(
                "journal %s: %s, holding no record: a first start was cut short; making the journal anew", path, reason
            )
            create(path, key)
    except (OSError, sqlite3.Error) as exc:
        raise JournalError(f"journal {path}: cannot make it: {getattr(exc, 'strerror', None) or exc}") from exc


def unfinished(path: pathlib.Path) -> str | None:
    """What the file at ``path`` is, if a first start was cut short there and it provably holds
    no record: 0 bytes, a SQLite file with no table, or an empty records table of a journal
    (its ``-journal`` rolled back or ``-wal`` read first, as SQLite does). None for anything
    else: a journal with records, another file, or a live file beside archived segments."""
    from firmware_host.host import segments  # the companion module imports this one

    size = path.stat().st_size
    if size > UNFINISHED_MAX_BYTES:
        return None  # a journal at every start but the first: not opened twice
    if len(segments.segments_of(path)) > 1:
        return None  # a rotated journal's live file: its segments beside it hold records
    if size == 0 and not any(side.exists() for side in _side_files(path)):
        return "an empty file (0 bytes)"
    try:
        conn = sqlite3.connect(path.absolute().as_uri() + "?mode=rw", uri=True, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        (app_id,) = conn.execute("PRAGMA application_id").fetchone()
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app_id not in (0, APPLICATION_ID) or not tables <= {"records"}:
            return None
        if not tables:
            return "a SQLite file with no table"
        if conn.execute("SELECT 1 FROM records LIMIT 1").fetchone() is None:
            return "a journal's records table with no record"
        return None
    except sqlite3.Error:
        return None  # not a database SQLite can read: the open names it
    finally:
        conn.close()


def create(path: pathlib.Path, key: bytes | None) -> None:
    """Make a new journal at ``path``: built whole under :func:`temporary_path`, then renamed
    into place durably; a file at ``path`` and SQLite's files beside it are replaced.

    :raises OSError, sqlite3.Error: the new journal could not be made; ``path`` is as it was.
    """
    temporary = temporary_path(path)
    _remove_with_side_files(temporary)  # what an earlier creation cut short left
    try:
        _build(temporary, key)
        for side in _side_files(path):  # they belong to the file being replaced, and must not be read with the new one
            durable.remove(side)
        durable.publish(temporary, path)
    finally:
        _remove_with_side_files(temporary)  # nothing, once published


def _build(temporary: pathlib.Path, key: bytes | None) -> None:
    """The new journal's whole contents in the file ``temporary``: schema, id, genesis, WAL mode."""
    conn = sqlite3.connect(temporary, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(SCHEMA)
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        genesis = {
            "format": FORMAT,
            "keyed": key is not None,
            "key_id": key_id(key) if key is not None else None,
        }
        row = seal(
            1,
            "meta",
            GENESIS_TYPE,
            time.time(),
            None,
            canonical_json(genesis, "genesis"),
            GENESIS_PREV_HASH,
            key,
        )
        conn.execute(INSERT, row)
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode=WAL")  # in the header: the journal is opened as it will be used
    finally:
        conn.close()  # in WAL mode: checkpointed, and the -wal removed
