"""House edges the figures fall back on where a game's journal cannot say its own (theo).

A game-neutral module: the Baccarat table imports nothing of Pai Gow, yet every profile's
``[protection]`` names this default (tests/architecture/test_lean_run.py).
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["PAIGOW_HOUSE_WAY_EDGE"]

#: The exact house edge per wager of Pai Gow when both sides set their tiles by the regulation's
#: house way (§ 535.10(d), 5% commission): 2.5820160% (bench/bench_paigow_tiles.py --exact).
PAIGOW_HOUSE_WAY_EDGE = Fraction("0.025820160")
