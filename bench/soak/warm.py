"""Imported once by :mod:`bench.soak.forked`'s forkserver: what every ``tablehost run`` of a kill
loop would otherwise do again at its start, done once before the forks.

The run command's modules and the simulated tables' (their wiring, drivers, sims and dealers),
and the exact odds' table of value sequences with its plan
(:mod:`firmware_host.rules.baccarat.exposure`, built once per process). Nothing here is a
table's state: the forks build their tables from their profiles and journals.
"""

from __future__ import annotations

import drivers.shoe  # noqa: F401 (imported for the forks)
import firmware_host.cli.run
import firmware_host.wiring.baccarat
import firmware_host.wiring.paigow
import firmware_host.wiring.simulated  # noqa: F401
import sim.dealers.baccarat
import sim.devices.shoe  # noqa: F401
from firmware_host.rules.baccarat import exposure

exposure.round_odds(exposure.full_shoe_ranks(1))
exposure.round_odds.cache_clear()  # the table and its plan stay; no composition is remembered
