"""SQLite's own SQL for the floor's store: its schema's steps, and the fragments of the shared SQL
(:mod:`~firmware_host.floor.store_sql`, :mod:`~firmware_host.floor.store_reads`) that only SQLite
writes so. Used by :class:`~firmware_host.floor.store_sqlite.SqliteStore`.

SQLite's columns are not typed: its reader checks each value (:data:`UNREADABLE`,
:class:`~firmware_host.floor.model.Unreadable`). The shared SQL's placeholders are ``$1``, ``$2``...,
which SQLite reads as named parameters (bound by number, :class:`~firmware_host.floor.store_sqlite.SqliteStore`).
"""

from __future__ import annotations

__all__ = ["VERSION_TABLE", "STEPS", "INTEGER_SEQ", "UNREADABLE", "TEXTS", "PAIRS"]

#: The table of applied steps, one row per version (SQLite's REAL is a double).
VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL, description TEXT NOT NULL)"

#: Each step of :data:`~firmware_host.floor.migrations.MIGRATIONS`, by version: its statements.
STEPS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE IF NOT EXISTS messages (
                table_id TEXT NOT NULL, seq INTEGER NOT NULL, journal_seq INTEGER NOT NULL,
                journal_hash TEXT NOT NULL, at REAL, round INTEGER, type TEXT NOT NULL, data TEXT NOT NULL,
                prev_hash TEXT NOT NULL, hash TEXT NOT NULL, received_at REAL NOT NULL,
                PRIMARY KEY (table_id, seq)) WITHOUT ROWID""",
        """CREATE TABLE IF NOT EXISTS tables (
                table_id TEXT PRIMARY KEY, status TEXT, last_seen REAL, duplicates INTEGER NOT NULL DEFAULT 0)""",
        """CREATE TABLE IF NOT EXISTS problems (
                id INTEGER PRIMARY KEY, table_id TEXT, seq INTEGER, kind TEXT NOT NULL, detail TEXT NOT NULL,
                topic TEXT, at REAL NOT NULL)""",
    ),
    2: (
        """CREATE TABLE IF NOT EXISTS refused (
                id INTEGER PRIMARY KEY, table_id TEXT NOT NULL, topic TEXT NOT NULL, seq INTEGER,
                reason TEXT NOT NULL, excerpt TEXT NOT NULL, size INTEGER NOT NULL, at REAL NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS refused_counts (
                table_id TEXT PRIMARY KEY, count INTEGER NOT NULL, last_reason TEXT, last_at REAL)""",
        "ALTER TABLE messages ADD COLUMN key_id TEXT",
        "ALTER TABLE messages ADD COLUMN sig TEXT",
    ),
    3: (
        "ALTER TABLE refused_counts ADD COLUMN kept INTEGER NOT NULL DEFAULT 0",
        "UPDATE refused_counts SET kept = (SELECT count(*) FROM refused WHERE refused.table_id = refused_counts.table_id)",
        "CREATE INDEX IF NOT EXISTS refused_table ON refused (table_id, id)",
    ),
    4: (
        """CREATE TABLE IF NOT EXISTS settled (
                table_id TEXT NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL, reason TEXT NOT NULL,
                at REAL NOT NULL, PRIMARY KEY (table_id, seq)) WITHOUT ROWID""",
        "ALTER TABLE tables ADD COLUMN ack_hint INTEGER NOT NULL DEFAULT 0",
    ),
    5: (
        "CREATE INDEX IF NOT EXISTS messages_round ON messages (table_id, round)",
        """CREATE TABLE IF NOT EXISTS views (
                minute INTEGER NOT NULL, user_name TEXT NOT NULL, role TEXT NOT NULL, what TEXT NOT NULL,
                count INTEGER NOT NULL, PRIMARY KEY (minute, user_name, what))""",
        "CREATE INDEX IF NOT EXISTS views_user ON views (user_name, minute)",
    ),
    6: ("UPDATE tables SET ack_hint = 0",),
    7: (
        "CREATE TABLE IF NOT EXISTS epochs (epoch INTEGER PRIMARY KEY, made_at REAL NOT NULL, why TEXT NOT NULL)",
        "INSERT INTO epochs (epoch, made_at, why) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), "
        "(julianday('now') - 2440587.5) * 86400, 'the store made, or given epochs')",
    ),
}

#: SQL that keeps only rows whose seq is an integer.
INTEGER_SEQ = "AND typeof(seq) = 'integer'"
#: SQL true of a message row that cannot be read back as published.
UNREADABLE = (
    "typeof(seq) != 'integer' OR typeof(journal_seq) != 'integer' OR typeof(at) NOT IN ('real', "
    "'integer', 'null') OR typeof(round) NOT IN ('integer', 'null') OR typeof(type) != 'text' "
    "OR (CASE WHEN json_valid(data) THEN json_type(data) END) IS NOT 'object'"
)
#: Rows ``value`` from parameter ``$2``: a JSON array of text.
TEXTS = "SELECT value FROM json_each($2)"
#: Rows ``(table_id, seq)`` from parameter ``$1``: a JSON array of ``[table, seq]`` pairs.
PAIRS = "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each($1)"
