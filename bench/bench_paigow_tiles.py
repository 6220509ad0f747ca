"""Benchmark the Pai Gow tiles rules; prints figures, asserts nothing.

- house-way settings per second (§ 535.10(d)) over all 35,960 four-tile deals: the
  algorithm itself with nothing memoised, the first pass (memo filling), and memoised;
- a seeded Monte Carlo estimate of the player's house edge when the player and the dealer
  both set by the house way, paid 1 to 1 less 5% (exact, unrounded), beside the published
  published figure;
- with ``--exact``, the same edge by enumerating all C(32,4) x C(28,4) deals (a minute or two),
  beside the published 2.3896% (both sides on a casino's house way) and the four steps' 2.5820160%.

Run: ``.venv/bin/python bench/bench_paigow_tiles.py [--rounds N] [--seed S] [--exact]
[--tie-break strongest_low|strongest_high] [--zero-value-rule low_hand|both_hands] [--house-way FILE]``
(``FILE``: a house-way document of ``hardware-profiles/house-ways/``, the dealer and the player
both setting by it).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import time
import tomllib
from collections import Counter

from firmware_host.rules.paigow_tiles import houseway
from firmware_host.rules.paigow_tiles.compare import Outcome, compare_settings
from firmware_host.rules.paigow_tiles.hands import _settings_of, legal_settings
from firmware_host.rules.paigow_tiles.house_way_rules import compile_house_way, every_four_tiles
from firmware_host.rules.paigow_tiles.houseway import house_way
from firmware_host.rules.paigow_tiles.rules import HouseWayTieBreak, PaiGowTileRules, ZeroValueRule
from firmware_host.rules.paigow_tiles.tiles import TILE_KINDS, TILE_SET

#: The published house edge of Pai Gow tiles, player and dealer both on a casino's house way, 5%
#: commission (Wizard of Odds, "Pai Gow Tiles", house edge).
PUBLISHED_HOUSE_EDGE = 0.023896
#: The exact edge with both sides on the four steps of § 535.10(d) (this script, ``--exact``).
FOUR_STEPS_HOUSE_EDGE = 0.025820160
#: § 535.10(k): the player is paid 1 to 1 less 5%.
WIN_PAYS = 0.95


def all_deals() -> list[tuple]:
    return list(itertools.combinations(TILE_SET, 4))


def per_second(count: int, seconds: float) -> str:
    return f"{count / seconds:12,.0f} settings/s  ({seconds * 1e6 / count:6.2f} µs each)"


def bench_house_way(deals: list[tuple], rules: PaiGowTileRules) -> None:
    regulation_way = houseway._regulation_way.__wrapped__  # the steps, without the memo
    settings_of = _settings_of.__wrapped__
    start = time.perf_counter()
    for tiles in deals:
        regulation_way(settings_of(tuple(sorted(tiles, key=lambda tile: tile.index))), rules.house_way_tie_break)
    print(f"house way, nothing memoised:     {per_second(len(deals), time.perf_counter() - start)}")

    houseway._regulation_way.cache_clear()
    _settings_of.cache_clear()
    start = time.perf_counter()
    for tiles in deals:
        house_way(tiles, rules)
    print(f"house way, first pass (memo):    {per_second(len(deals), time.perf_counter() - start)}")

    start = time.perf_counter()
    for tiles in deals:
        house_way(tiles, rules)
    print(f"house way, memoised:             {per_second(len(deals), time.perf_counter() - start)}")

    start = time.perf_counter()
    for tiles in deals:
        legal_settings(tiles)
    print(f"legal_settings, memoised:        {per_second(len(deals), time.perf_counter() - start)}")


def bench_house_edge(rounds: int, seed: int, rules: PaiGowTileRules) -> None:
    rng = random.Random(seed)
    outcomes: Counter[Outcome] = Counter()
    start = time.perf_counter()
    for _ in range(rounds):
        eight = rng.sample(TILE_SET, 8)
        player = house_way(eight[:4], rules).setting
        dealer = house_way(eight[4:], rules).setting
        outcomes[compare_settings(player, dealer, rules).outcome] += 1
    seconds = time.perf_counter() - start
    wins, losses, ties = outcomes[Outcome.WIN], outcomes[Outcome.LOSE], outcomes[Outcome.TIE]
    mean = (wins * WIN_PAYS - losses) / rounds
    second_moment = (wins * WIN_PAYS**2 + losses) / rounds
    standard_error = math.sqrt((second_moment - mean**2) / rounds)
    print(f"Monte Carlo, {rounds:,} rounds, seed {seed} ({rounds / seconds:,.0f} rounds/s):")
    print(f"  player wins {wins / rounds:7.2%}  loses {losses / rounds:7.2%}  ties {ties / rounds:7.2%}")
    print(
        f"  player's house edge: {-mean:6.3%} ± {1.96 * standard_error:.3%} (95%)"
        f"   published: {PUBLISHED_HOUSE_EDGE:.4%}"
    )


def exact_house_edge(rules: PaiGowTileRules) -> Counter[Outcome]:
    """Count (and print the edge of) every deal of four tiles to the player and four of the other 28 to the dealer.

    Deals are grouped by the kinds of tile they hold (8,130 groups of four), each weighted
    by how many ways the set deals it; a player hand of value zero cannot win in the
    positions ``rules.zero_value_rule`` names (§ 535.10(g), (h)(1)).
    """
    start = time.perf_counter()
    zero_high_loses = rules.zero_value_rule is ZeroValueRule.BOTH_HANDS
    groups = []  # (tile kind index -> count, high strength, low strength, high can't win, low can't win)
    for kinds in every_four_tiles():
        setting = house_way(kinds, rules).setting
        high, low = setting.high.rank, setting.low.rank
        held = tuple(sorted((tile.index, count) for tile, count in Counter(kinds).items()))
        groups.append((held, high.strength, low.strength, zero_high_loses and high.value == 0, low.value == 0))
    copies = [tile.copies for tile in TILE_KINDS]
    wins = ties = losses = 0
    for held, high, low, high_zero, low_zero in groups:
        left = list(copies)
        for index, count in held:
            left[index] -= count
        # comb[index][count]: ways to deal `count` tiles of that kind from what the player left
        comb = [(1, left_here, left_here * (left_here - 1) // 2) for left_here in left]
        player_ways = _ways(held, copies)
        win = tie = lose = 0
        for dealer_held, dealer_high, dealer_low, _, _ in groups:
            ways = 1
            for index, count in dealer_held:
                ways *= comb[index][count]
            if ways:
                high_wins = high > dealer_high and not high_zero
                low_wins = low > dealer_low and not low_zero
                if high_wins and low_wins:
                    win += ways
                elif high_wins or low_wins:
                    tie += ways
                else:
                    lose += ways
        wins, ties, losses = wins + player_ways * win, ties + player_ways * tie, losses + player_ways * lose
    outcomes: Counter[Outcome] = Counter({Outcome.WIN: wins, Outcome.TIE: ties, Outcome.LOSE: losses})
    deals = sum(outcomes.values())
    edge = (outcomes[Outcome.LOSE] - WIN_PAYS * outcomes[Outcome.WIN]) / deals
    print(f"exact, all {deals:,} deals ({time.perf_counter() - start:.0f} s):")
    print(
        f"  player wins {outcomes[Outcome.WIN] / deals:7.3%}  loses {outcomes[Outcome.LOSE] / deals:7.3%}"
        f"  ties {outcomes[Outcome.TIE] / deals:7.3%}"
    )
    print(
        f"  player's house edge: {edge:.7%}   published (a casino's house way): {PUBLISHED_HOUSE_EDGE:.4%}"
        f"   four steps of § 535.10(d): {FOUR_STEPS_HOUSE_EDGE:.7%}"
    )
    return outcomes


def _ways(held: tuple[tuple[int, int], ...], available: list[int]) -> int:
    ways = 1
    for index, count in held:
        ways *= math.comb(available[index], count)
    return ways


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400_000, help="Monte Carlo rounds (default 400,000)")
    parser.add_argument("--seed", type=int, default=535, help="Monte Carlo seed (default 535)")
    parser.add_argument("--exact", action="store_true", help="also enumerate every deal (about a minute)")
    parser.add_argument(
        "--tie-break",
        default=HouseWayTieBreak.STRONGEST_LOW.value,
        choices=[choice.value for choice in HouseWayTieBreak],
        help="house_way_tie_break",
    )
    parser.add_argument(
        "--zero-value-rule",
        default=ZeroValueRule.LOW_HAND.value,
        choices=[choice.value for choice in ZeroValueRule],
        help="zero_value_rule",
    )
    parser.add_argument(
        "--house-way",
        type=argparse.FileType("rb"),
        default=None,
        metavar="FILE",
        help="a house-way document (default: the four steps of § 535.10(d))",
    )
    args = parser.parse_args()
    table = compile_house_way(tomllib.load(args.house_way)).table if args.house_way else {}
    rules = PaiGowTileRules(
        house_way_tie_break=args.tie_break, zero_value_rule=args.zero_value_rule, house_way_table=table
    )
    print(
        f"house_way_tie_break = {rules.house_way_tie_break.value}, zero_value_rule = {rules.zero_value_rule.value},"
        f" house way: {args.house_way.name if args.house_way else 'the four steps'} ({len(table)} listed hands)"
    )
    bench_house_way(all_deals(), rules)
    bench_house_edge(args.rounds, args.seed, rules)
    if args.exact:
        exact_house_edge(rules)


if __name__ == "__main__":
    main()
