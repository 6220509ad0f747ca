"""Table controllers: ``transitions`` machines that see only events and return decisions.

* :mod:`.base`: :class:`~firmware_host.tables.base.TableController`, what every table shares
  (device health, approved identities, the lamp);
* :mod:`.decisions`: :class:`~firmware_host.tables.decisions.Decision`, what a controller decides;
* :mod:`.baccarat`: the Baccarat table (shoe, round, irregularities, the shuffler side);
* :mod:`.paigow`: the Pai Gow table (roll, delivery, tiles, bank).

Controllers import the pure rules (:mod:`firmware_host.rules`) and event types, never I/O,
the profile loader or the host.
"""
