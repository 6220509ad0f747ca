"""The live floor dashboard (``tablehost floor --http HOST:PORT``): every table on one map, and
each table's roads, rounds, alerts and figures, for the surveillance room and the pit.

:mod:`.figures` (drop, win, theo, hold and pace as :mod:`firmware_host.host.figures` counts them, on screen), :mod:`.tables` (one
table as its feed messages show it: its tile and its drill-down), :mod:`.floor` (the store
polled, the changed tiles batched for the live stream), :mod:`.app` (the Starlette app on the
hardened web layer, :mod:`firmware_host.web`), :mod:`.serve` (the server the CLI starts). It
reads the floor's store only through its read methods (:class:`~firmware_host.floor.model.Store`).
See docs/floor-dashboard.md.
"""
