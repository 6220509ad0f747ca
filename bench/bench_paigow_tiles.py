"""Benchmark the Pai Gow tiles rules; prints figures, asserts nothing.

- house-way settings per second (§ 535.10(d)) over all 35,960 four-tile deals: the
  algorithm itself with nothing memoised, the first pass (memo filling), and memoised;
- a seeded Monte Carlo estimate of the player's house edge when the player and the dealer
  both set by the house way, paid 1 to 1 less 5% (exact, unrounded), beside the published
  figure of about 2.4%.

Run: ``.venv/bin/python bench/bench_paigow_tiles.py [--rounds N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import time
from collections import Counter

from firmware_host.paigow_tiles import houseway
from firmware_host.paigow_tiles.compare import Outcome, compare_settings
from firmware_host.paigow_tiles.hands import _settings_of, legal_settings
from firmware_host.paigow_tiles.houseway import house_way
from firmware_host.paigow_tiles.rules import DEFAULT_RULES
from firmware_host.paigow_tiles.tiles import TILE_SET

#: The published house edge of Pai Gow tiles against the house way, 5% commission.
PUBLISHED_HOUSE_EDGE = 0.024
#: § 535.10(k): the player is paid 1 to 1 less 5%.
WIN_PAYS = 0.95


def all_deals() -> list[tuple]:
    return list(itertools.combinations(TILE_SET, 4))


def per_second(count: int, seconds: float) -> str:
    return f"{count / seconds:12,.0f} settings/s  ({seconds * 1e6 / count:6.2f} µs each)"


def bench_house_way(deals: list[tuple]) -> None:
    regulation_way = houseway._regulation_way.__wrapped__  # the steps, without the memo
    settings_of = _settings_of.__wrapped__
    tie_break = DEFAULT_RULES.house_way_tie_break
    start = time.perf_counter()
    for tiles in deals:
        regulation_way(settings_of(tuple(sorted(tiles, key=lambda tile: tile.index))), tie_break)
    print(f"house way, nothing memoised:     {per_second(len(deals), time.perf_counter() - start)}")

    houseway._regulation_way.cache_clear()
    _settings_of.cache_clear()
    start = time.perf_counter()
    for tiles in deals:
        house_way(tiles)
    print(f"house way, first pass (memo):    {per_second(len(deals), time.perf_counter() - start)}")

    start = time.perf_counter()
    for tiles in deals:
        house_way(tiles)
    print(f"house way, memoised:             {per_second(len(deals), time.perf_counter() - start)}")

    start = time.perf_counter()
    for tiles in deals:
        legal_settings(tiles)
    print(f"legal_settings, memoised:        {per_second(len(deals), time.perf_counter() - start)}")


def bench_house_edge(rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    outcomes: Counter[Outcome] = Counter()
    start = time.perf_counter()
    for _ in range(rounds):
        eight = rng.sample(TILE_SET, 8)
        player = house_way(eight[:4]).setting
        dealer = house_way(eight[4:]).setting
        outcomes[compare_settings(player, dealer).outcome] += 1
    seconds = time.perf_counter() - start
    wins, losses, ties = outcomes[Outcome.WIN], outcomes[Outcome.LOSE], outcomes[Outcome.TIE]
    mean = (wins * WIN_PAYS - losses) / rounds
    second_moment = (wins * WIN_PAYS**2 + losses) / rounds
    standard_error = math.sqrt((second_moment - mean**2) / rounds)
    print(f"Monte Carlo, {rounds:,} rounds, seed {seed} ({rounds / seconds:,.0f} rounds/s):")
    print(f"  player wins {wins / rounds:7.2%}  loses {losses / rounds:7.2%}  ties {ties / rounds:7.2%}")
    print(f"  player's house edge: {-mean:6.3%} ± {1.96 * standard_error:.3%} (95%)"
          f"   published: about {PUBLISHED_HOUSE_EDGE:.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400_000, help="Monte Carlo rounds (default 400,000)")
    parser.add_argument("--seed", type=int, default=535, help="Monte Carlo seed (default 535)")
    args = parser.parse_args()
    bench_house_way(all_deals())
    bench_house_edge(args.rounds, args.seed)


if __name__ == "__main__":
    main()
