"""PostgreSQL's own SQL for the floor's store: its schema's steps, and the fragments of the shared
SQL (:mod:`~firmware_host.floor.store_sql`, :mod:`~firmware_host.floor.store_reads`) that only
PostgreSQL writes so. Used by :class:`~firmware_host.floor.store_postgres.PostgresStore`; its
placeholders are PostgreSQL's own, ``$1``, ``$2``... (psycopg's raw cursors send them as they are).

PostgreSQL's columns are typed (``BIGINT``, ``DOUBLE PRECISION``, ``json`` checked to be an
object), so a value of the wrong type cannot be stored there at all.
"""

from __future__ import annotations

__all__ = ["VERSION_TABLE", "STEPS", "UNREADABLE", "TEXTS", "PAIRS", "insert"]

#: The table of applied steps: one row per version.
VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at DOUBLE "
    "PRECISION NOT NULL, description TEXT NOT NULL)"
)

#: Each step of :data:`~firmware_host.floor.migrations.MIGRATIONS`, by version: its statements.
STEPS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE messages (
                table_id TEXT NOT NULL, seq BIGINT NOT NULL CHECK (seq > 0), journal_seq BIGINT NOT NULL,
                journal_hash TEXT NOT NULL, at DOUBLE PRECISION, round BIGINT, type TEXT NOT NULL,
                data JSON NOT NULL CHECK (json_typeof(data) = 'object'),
                prev_hash TEXT NOT NULL, hash TEXT NOT NULL, received_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (table_id, seq))""",
        """CREATE TABLE tables (
                table_id TEXT PRIMARY KEY, status TEXT, last_seen DOUBLE PRECISION,
                duplicates BIGINT NOT NULL DEFAULT 0)""",
        """CREATE TABLE problems (
                id BIGSERIAL PRIMARY KEY, table_id TEXT, seq BIGINT, kind TEXT NOT NULL, detail TEXT NOT NULL,
                topic TEXT, at DOUBLE PRECISION NOT NULL)""",
        "CREATE INDEX problems_table ON problems (table_id)",
    ),
    2: (
        """CREATE TABLE refused (
                id BIGSERIAL PRIMARY KEY, table_id TEXT NOT NULL, topic TEXT NOT NULL, seq BIGINT,
                reason TEXT NOT NULL, excerpt TEXT NOT NULL, size BIGINT NOT NULL, at DOUBLE PRECISION NOT NULL)""",
        """CREATE TABLE refused_counts (
                table_id TEXT PRIMARY KEY, count BIGINT NOT NULL, last_reason TEXT, last_at DOUBLE PRECISION)""",
        "ALTER TABLE messages ADD COLUMN key_id TEXT",
        "ALTER TABLE messages ADD COLUMN sig TEXT",
    ),
    3: (
        "ALTER TABLE refused_counts ADD COLUMN kept BIGINT NOT NULL DEFAULT 0",
        "CREATE INDEX refused_table ON refused (table_id, id)",
    ),
    4: (
        """CREATE TABLE settled (
                table_id TEXT NOT NULL, seq BIGINT NOT NULL, hash TEXT NOT NULL, reason TEXT NOT NULL,
                at DOUBLE PRECISION NOT NULL, PRIMARY KEY (table_id, seq))""",
        "ALTER TABLE tables ADD COLUMN ack_hint BIGINT NOT NULL DEFAULT 0",
    ),
    5: (
        "CREATE INDEX messages_round ON messages (table_id, round)",
        """CREATE TABLE views (
                minute BIGINT NOT NULL, user_name TEXT NOT NULL, role TEXT NOT NULL, what TEXT NOT NULL,
                count BIGINT NOT NULL CHECK (count > 0), PRIMARY KEY (minute, user_name, what))""",
        "CREATE INDEX views_user ON views (user_name, minute)",
    ),
    6: ("UPDATE tables SET ack_hint = 0",),
    7: (
        "CREATE TABLE epochs (epoch BIGINT PRIMARY KEY, made_at DOUBLE PRECISION NOT NULL, why TEXT NOT NULL)",
        "INSERT INTO epochs (epoch, made_at, why) VALUES ((extract(epoch FROM clock_timestamp()) * 1000000)::bigint, "
        "extract(epoch FROM clock_timestamp()), 'the store made, or given epochs')",
    ),
}

#: SQL true of a message row that cannot be read back as published.
UNREADABLE = "json_typeof(data) <> 'object'"
#: Rows ``value`` from parameter ``$2``: a JSON array of text.
TEXTS = "SELECT value FROM json_array_elements_text($2::json)"
#: Rows ``(table_id, seq)`` from parameter ``$1``: a JSON array of ``[table, seq]`` pairs.
PAIRS = "SELECT p ->> 0, (p ->> 1)::bigint FROM json_array_elements($1::json) AS p"
#: Each inserted column's SQL type (``data`` is sent as its text and stored as ``json``).
_TYPES = {"seq": "bigint", "journal_seq": "bigint", "round": "bigint", "at": "float8", "received_at": "float8"}


def insert(columns: tuple[str, ...]) -> str:
    """A batch's new messages in one statement, from one JSON parameter (``$1``): an object per row."""
    return (
        f"INSERT INTO messages ({', '.join(columns)}) SELECT "
        + ", ".join(f"u.{c}::json" if c == "data" else f"u.{c}" for c in columns)
        + " FROM json_to_recordset($1::json) AS u ("
        + ", ".join(f"{c} {_TYPES.get(c, 'text')}" for c in columns)
        + ") ON CONFLICT DO NOTHING"
    )
