"""Benchmark advantage-play detection (docs/protection.md, "Detection"); prints figures, asserts nothing.

It drives the pure detector (:class:`firmware_host.rules.baccarat.advantage_play.Watch`) on
simulated shoes directly, not the whole service, for speed: each shoe is 8 decks shuffled by
a seeded generator, the first burn card shown and its count burned face down (§ 541.5(g)),
the cover card 14 cards from the bottom (§ 541.5(e)), rounds dealt by the drawing rules
(:func:`~firmware_host.rules.baccarat.deal.resolve`) until the hand after the cover card
(§ 541.10(e)). Before each round the EV of every commission-free wager (§ 631c.5) comes from
the cards exposed so far: the pairs exactly from the rank counts, the other kinds from a
floating-point screen of the same enumeration (:func:`_value_table` of
:mod:`~firmware_host.rules.baccarat.exposure`; its error is below 1e-15) and, when the
screen's EV is within 1e-9 of 0, exactly from
:func:`~firmware_host.rules.baccarat.exposure.expected_values`; so every window is the one
the controller's exact ``odds`` would find.

Each seed is one table-day of ``--shoes-per-day`` shoes. Seat 3 is a counter (10 x the
2,500-cent minimum on each wager whose EV is above 0, nothing otherwise) and seats 1, 2,
4-7 play as the simulated players do (a fifth of rounds sat out, one or two kinds, chips
of 5 to 100 dollars), whatever the cards. Figures:

- detection power: the share of seeds in which the counter is flagged by the end of shoe 5,
  and the distribution of the shoe it is flagged in;
- false alarms: alerts at the card-blind seats per 1,000 seat-shoes, over every shoe;
- with ``--plot PATH``, a PNG of the EVs against the counter's bets across one shoe.

Run: ``.venv/bin/python bench/bench_protection_detect.py [--days 834] [--plot docs/protection-shoe.png]``
(834 days of 12 shoes: 10,008 shoes; matplotlib for ``--plot``: ``pip install -e .[bench]``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from firmware_host.rules.baccarat.advantage_play import DetectionPolicy, Evidence, Watch
from firmware_host.rules.baccarat.cards import RANK_VALUES, RANKS, Card, full_shoe
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.drawing import CARDS_PER_ROUND_MAX
from firmware_host.rules.baccarat.exposure import RankCounts, _value_table, expected_values
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.baccarat.wagers import PAIR_WAGERS
from firmware_host.tables.baccarat.shoe import BURN_COUNT

DECKS = 8
#: § 541.5(e): the second cover card at least 14 cards from the bottom.
COVER_CARD_FROM_BOTTOM = 14
RULES = RulesSubmission(variant=Variant.COMMISSION_FREE)
KINDS = ("banker", "player", "tie", "player_pair", "banker_pair", "lucky_six")
#: The simulated players' kinds, weights and chips (sim/dealers/baccarat.py).
PLAYER_KINDS = {"banker": 45, "player": 40, "tie": 8, "player_pair": 3, "banker_pair": 3, "lucky_six": 1}
CHIPS = (500, 1000, 2500, 5000, 10000)
COUNTER_SEAT, COUNTER_STAKE = 3, 25_000
#: The screen's margin: a kind whose float EV is within this of 0 is computed exactly (the
#: float's error, checked against the exact EVs, is below 1e-15).
SCREEN = 1e-9


class Screen:
    """The outcome probabilities of a round in floating point, from the exact enumeration's table."""

    def __init__(self) -> None:
        entries = _value_table()
        self.multiplicity = np.zeros((len(entries), 10), dtype=np.int64)
        self.used = np.zeros(len(entries), dtype=np.int64)
        self.categories = np.zeros((len(entries), 5))
        for row, (multiplicities, used, categories) in enumerate(entries):
            for value, count in multiplicities:
                self.multiplicity[row, value] = count
            self.used[row] = used
            for category, sequences in categories:
                self.categories[row, category] = sequences

        # Where each entry's factor of each value it uses sits in the flattened falling-count
        # table (at most six values per round; the unused slots point at a 1 at the end).
        one = 10 * (CARDS_PER_ROUND_MAX + 1)
        self.index = np.full((CARDS_PER_ROUND_MAX, len(entries)), one, dtype=np.int64)
        for row, (multiplicities, _, _) in enumerate(entries):
            for slot, (value, count) in enumerate(multiplicities):
                self.index[slot, row] = value * (CARDS_PER_ROUND_MAX + 1) + count

    def evs(self, values: list[int], ranks: RankCounts) -> dict[str, float]:
        """The EV of each commission-free wager (§ 631c.5(g)-(k)), in floating point."""
        total = sum(values)
        falling = []
        for count in values:
            row = [1.0]
            for j in range(1, CARDS_PER_ROUND_MAX + 1):
                row.append(row[-1] * (count - j + 1))
            falling += row
        tails = []
        for used in range(CARDS_PER_ROUND_MAX + 1):
            product = 1.0
            for i in range(CARDS_PER_ROUND_MAX - used):
                product *= total - used - i
            tails.append(product)
        falling.append(1.0)
        weight = np.asarray(tails)[self.used] * np.asarray(falling)[self.index].prod(axis=0)
        banker, player, two, three, _ = ((weight @ self.categories) / tails[0]).tolist()
        tie = 1 - banker - player
        pair = sum(n * (n - 1) for n in ranks) / (total * (total - 1))
        six = two + three
        return {"banker": banker - six + six / 2 - player, "player": player - banker, "tie": 8 * tie - (1 - tie),
                "player_pair": 12 * pair - 1, "banker_pair": 12 * pair - 1,
                "lucky_six": 12 * two + 20 * three - (1 - six)}  # fmt: skip


@dataclasses.dataclass
class Round:
    """One round as the detector sees it: the share of the shoe dealt, the windows, the EVs (floats)."""

    dealt: Fraction
    windows: frozenset[str]
    evs: dict[str, float]


def shoe_rounds(rng: random.Random, screen: Screen) -> Iterator[Round]:
    """The rounds of one seeded shoe, each with its EVs from the cards exposed before it."""
    cards = full_shoe(DECKS)
    rng.shuffle(cards)
    first = cards[0]
    position = 1 + BURN_COUNT[first.rank]  # § 541.5(g): the first card shown, the rest face down
    exposed: list[Card] = [first]
    playable = len(cards) - COVER_CARD_FROM_BOTTOM
    last_hand = False
    while len(cards) - position >= CARDS_PER_ROUND_MAX:
        ranks = _ranks(exposed)
        values = [0] * 10
        for rank, count in zip(RANKS, ranks):
            values[RANK_VALUES[rank]] += count
        yield Round(Fraction(position, len(cards)), *_windows(screen, values, ranks))
        used = resolve(cards[position : position + CARDS_PER_ROUND_MAX]).cards_used
        exposed += cards[position : position + used]
        position += used
        if last_hand:
            break
        last_hand = position >= playable  # § 541.10(e): the cover card is out; one more hand


def _ranks(exposed: list[Card]) -> RankCounts:
    seen = Counter(card.rank for card in exposed)
    return tuple(DECKS * 4 - seen[rank] for rank in RANKS)


def _windows(screen: Screen, values: list[int], ranks: RankCounts) -> tuple[frozenset[str], dict[str, float]]:
    evs = screen.evs(values, ranks)
    total = sum(ranks)
    pairs = 12 * sum(n * (n - 1) for n in ranks) > total * (total - 1)  # EV = 12 P(pair) - 1 > 0, exactly
    windows = {kind for kind in PAIR_WAGERS if pairs}
    windows |= {kind for kind in KINDS if kind not in PAIR_WAGERS and evs[kind] > SCREEN}
    doubtful = [kind for kind in KINDS if kind not in PAIR_WAGERS and abs(evs[kind]) <= SCREEN]
    if doubtful:
        exact = expected_values(RULES, ranks)
        windows |= {kind for kind in doubtful if exact[kind] > 0}
    return frozenset(windows), evs


def wagers(rng: random.Random, round_: Round) -> dict[tuple[int, str], int]:
    """Every seat's wagers: the counter's on the windows, the others' whatever the cards."""
    placed = {(COUNTER_SEAT, kind): COUNTER_STAKE for kind in round_.windows}
    kinds, weights = list(PLAYER_KINDS), list(PLAYER_KINDS.values())
    for seat in range(1, 8):
        if seat == COUNTER_SEAT or rng.random() < 0.2:
            continue
        for kind in dict.fromkeys(rng.choices(kinds, weights, k=rng.randint(1, 2))):
            placed[seat, kind] = rng.choice(CHIPS)
    return placed


@dataclasses.dataclass
class DayResult:
    flagged_in_shoe: int | None
    blind_alerts: list[Evidence]
    rounds: int
    windows: Counter[str]


def play_day(seed: int, shoes: int, policy: DetectionPolicy, screen: Screen) -> DayResult:
    """One table-day of ``shoes`` shoes with a counter at seat 3."""
    cards_rng, bets_rng = random.Random(f"{seed}/cards"), random.Random(f"{seed}/bets")
    watch, flagged, blind, rounds, windows = Watch.for_kinds(KINDS), None, [], 0, Counter()
    for shoe in range(1, shoes + 1):
        found: list[Evidence] = []
        for round_ in shoe_rounds(cards_rng, screen):
            rounds += 1
            windows.update(round_.windows)
            watch, raised = watch.observe(policy, 0, shoe, round_.dealt, round_.windows, wagers(bets_rng, round_))
            found += raised
        watch, raised = watch.review(policy)
        found += raised
        if flagged is None and any(e.seat == COUNTER_SEAT for e in found):
            flagged = shoe
        blind += [e for e in found if e.seat != COUNTER_SEAT]
    return DayResult(flagged, blind, rounds, windows)


def plot_shoe(path: str, seed: int, screen: Screen) -> None:
    """EV of each kind across one shoe, with the counter's bets marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = random.Random(f"{seed}/cards")
    rounds = list(shoe_rounds(rng, screen))
    x = [float(r.dealt) * 100 for r in rounds]
    fig, ax = plt.subplots(figsize=(10, 5), dpi=110)
    for kind, style in (("player_pair", "-"), ("lucky_six", "--"), ("tie", ":"), ("banker", "-."), ("player", "-")):
        ax.plot(
            x,
            [r.evs[kind] * 100 for r in rounds],
            style,
            linewidth=1.2,
            label=kind.replace("_", " ") + (" (banker pair the same)" if kind == "player_pair" else ""),
        )
    bets = [(x[i], r.evs[kind] * 100) for i, r in enumerate(rounds) for kind in r.windows]
    if bets:
        ax.scatter(*zip(*bets), s=60, color="crimson", zorder=5, label="counter's bets (10 x minimum)")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("share of the shoe dealt before the round (%)")
    ax.set_ylabel("player's EV per unit wagered (%)")
    ax.set_title(f"One 8-deck shoe (seed {seed}): EV from the exposed cards, and when the counter bets")
    ax.set_ylim(-50, 20)
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)


def figures_of(results: list[DayResult], shoes_per_day: int, alpha: str, elapsed: float) -> dict[str, Any]:
    """The bench's figures from the days played so far."""
    days = len(results)
    shoes = days * shoes_per_day
    blind_seat_shoes = shoes * 6
    by_shoe = Counter(r.flagged_in_shoe for r in results)
    within_five = sum(1 for r in results if r.flagged_in_shoe is not None and r.flagged_in_shoe <= 5)
    blind = [e for r in results for e in r.blind_alerts]
    windows = sum((r.windows for r in results), Counter())
    return {
        "days": days, "shoes": shoes, "rounds": sum(r.rounds for r in results), "alpha_per_day": alpha,
        "windows_per_shoe": {kind: round(windows[kind] / shoes, 3) for kind in KINDS},
        "counter_flagged_within_5_shoes": round(within_five / days, 4),
        "counter_flagged_in_shoe": {str(k): v for k, v in sorted(by_shoe.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))},
        "blind_seat_shoes": blind_seat_shoes,
        "blind_alerts": len(blind),
        "blind_alerts_per_1000_seat_shoes": round(1000 * len(blind) / blind_seat_shoes, 4),
        "blind_alerts_detail": [e.to_json() for e in blind][:20],
        "seconds": round(elapsed, 1),
    }  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=834, help="seeds, one table-day each (default 834)")
    parser.add_argument("--shoes-per-day", type=int, default=12)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--alpha", default="1/20", help="the budget per table-day (default 1/20)")
    parser.add_argument("--plot", help="write the EV-and-bets PNG of one shoe here")
    parser.add_argument("--plot-seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--progress", help="rewrite the figures so far to this file every 25 days")
    args = parser.parse_args(argv)
    policy = DetectionPolicy(alpha=Fraction(args.alpha))
    screen = Screen()
    if args.plot:
        plot_shoe(args.plot, args.plot_seed, screen)
    start = time.perf_counter()
    results = []
    for seed in range(args.first_seed, args.first_seed + args.days):
        results.append(play_day(seed, args.shoes_per_day, policy, screen))
        if args.progress and len(results) % 25 == 0:
            with open(args.progress, "w") as out:
                json.dump(figures_of(results, args.shoes_per_day, args.alpha, time.perf_counter() - start), out)
    figures = figures_of(results, args.shoes_per_day, args.alpha, time.perf_counter() - start)
    if args.plot:
        figures["plot"] = args.plot
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
