"""Prometheus metrics of a table and of the floor collector (``prometheus_client``).

Off unless configured (``[metrics] listen`` or ``--metrics HOST:PORT``), and then imported only:
a plain ``tablehost run`` never loads ``prometheus_client``. Names follow Prometheus's own
conventions: the ``tablehost_`` prefix, base units (seconds, bytes), ``_total`` on counters, and
no label whose values grow with play (no round, shoe or seq labels); each registry is the
process's own, not the library's global one, so a test can hold several.

- :mod:`firmware_host.metrics.table`: rounds, cards and dice read, devices online, alerts by
  code, the feed's backlog and last acknowledged seq, the journal's bytes, step latency.
- :mod:`firmware_host.metrics.floor`: messages stored, duplicates dropped, messages refused,
  gaps and lag per table, the store's write latency.
"""
