"""The floor collector: every table's feed, stored and checked on the casino's side.

- :mod:`firmware_host.floor.store` — the store, its engine found by the name ``--db`` gives,
  SQLite (embedded default) or PostgreSQL (:mod:`~firmware_host.floor.store_sqlite`,
  :mod:`~firmware_host.floor.store_postgres`, each with its own SQL and schema,
  :mod:`~firmware_host.floor.sql_sqlite`, :mod:`~firmware_host.floor.sql_postgres`, both running
  :mod:`~firmware_host.floor.store_sql` on the versions of :mod:`~firmware_host.floor.migrations`):
  messages kept idempotently by ``(table, seq)``, continuity (gaps, repairs, breaks) from the
  store, status and export;
- :mod:`firmware_host.floor.dashboard` — the live dashboard, in a process of its own that follows
  the store (:mod:`~firmware_host.floor.dashboard.follow`);
- :mod:`firmware_host.floor.collector` — the MQTT subscriber (persistent session, QoS 1,
  a message acknowledged only once it is stored);
- :mod:`firmware_host.floor.audit` — a table's journal checked against the floor's anchors.

The floor reads the feed's message format from :mod:`firmware_host.feed.schema` (the contract
between the two), so ``firmware_host.floor`` sits above ``firmware_host.feed`` in the layers.
"""
