"""Benchmark game protection's exact odds (docs/protection.md); prints figures, asserts nothing.

- the EV of every wager of a commission-free table (six kinds) from the exposed cards, in-process,
  8 decks, at every round of seeded shoes dealt to the 14-card cover (§ 541.5(e)), uncached:
  median, 95th percentile and worst, and the one-off table of value sequences each process builds;
- the same through ``odds.exact_odds`` (the full walk of the drawing rules), for comparison;
- the share of the service loop: ``tablehost run`` in-process on a simulated commission-free
  table, with the time spent deciding the ``odds`` summed against the controller's whole time
  and against the run's wall time.

Run: ``.venv/bin/python bench/bench_protection.py [--shoes N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench.soak, run as a script

from firmware_host.rules.baccarat import exposure
from firmware_host.rules.baccarat.cards import full_shoe, remove_seen, shoe_composition
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.odds import exact_odds
from firmware_host.rules.baccarat.rules import RulesSubmission

COVER_CARD_FROM_BOTTOM = 14
FREE = RulesSubmission(variant="commission-free")


def shoe_states(shoes: int, seed: int) -> list[list]:
    """The cards exposed before each round of ``shoes`` seeded 8-deck shoes (burn card included)."""
    rng, states = random.Random(seed), []
    for _ in range(shoes):
        shoe = full_shoe(8)
        rng.shuffle(shoe)
        position = 1 + (shoe[0].value or 10)  # § 541.5(g): the first card shown, then its count face down
        seen = [shoe[0]]
        while len(shoe) - position > COVER_CARD_FROM_BOTTOM:
            states.append(list(seen))
            used = resolve(shoe[position : position + 6]).cards_used
            seen += shoe[position : position + used]
            position += used
    return states


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def bench_ev(shoes: int) -> None:
    start = time.perf_counter()
    exposure._value_table()
    print(
        f"value-sequence table, once per process: {(time.perf_counter() - start) * 1000:.0f} ms "
        f"({len(exposure._value_table())} entries)"
    )
    states = shoe_states(shoes, seed=21)
    times = []
    for seen in states:
        exposure.round_odds.cache_clear()
        start = time.perf_counter()
        exposure.expected_values(FREE, exposure.remaining_ranks(8, seen))
        times.append(time.perf_counter() - start)
    ms = [t * 1000 for t in times]
    print(
        f"EV of 6 wagers, 8 decks, {len(states)} rounds of {shoes} shoes: median {statistics.median(ms):.2f} ms, "
        f"p95 {percentile(ms, 0.95):.2f} ms, worst {max(ms):.2f} ms"
    )
    sample = states[:: max(1, len(states) // 10)]
    full = []
    for seen in sample:
        start = time.perf_counter()
        exact_odds(remove_seen(shoe_composition(8), seen))
        full.append((time.perf_counter() - start) * 1000)
    print(f"odds.exact_odds (full walk) on {len(sample)} of them: median {statistics.median(full):.0f} ms")


def bench_service(rounds: int) -> None:
    from bench.soak.profiles import make_profile
    from firmware_host.cli import main
    from firmware_host.tables.baccarat.controller import BaccaratTable
    from firmware_host.tables.baccarat.protection import Protection

    spent = {"odds": 0.0, "controller": 0.0}
    after_event, handle = Protection.after_event, BaccaratTable.handle

    def timed_after_event(self: Protection) -> None:
        start = time.perf_counter()
        after_event(self)
        spent["odds"] += time.perf_counter() - start

    def timed_handle(self: BaccaratTable, event: object, at: float) -> list:
        start = time.perf_counter()
        try:
            return handle(self, event, at)  # type: ignore[arg-type]
        finally:
            spent["controller"] += time.perf_counter() - start

    Protection.after_event = timed_after_event  # type: ignore[method-assign]
    BaccaratTable.handle = timed_handle  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as folder:
            profile = make_profile(Path(folder), variant="commission-free")
            start = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                main(
                    [
                        "run",
                        "--profile",
                        str(profile),
                        "--rounds",
                        str(rounds),
                        "--seed",
                        "3",
                        "--journal",
                        str(Path(folder) / "j.sqlite"),
                        "--quiet",
                    ]
                )
            wall = time.perf_counter() - start
    finally:
        Protection.after_event, BaccaratTable.handle = after_event, handle  # type: ignore[method-assign]
    print(
        f"service, {rounds} rounds in-process on simulated devices: wall {wall:.1f} s, controller "
        f"{spent['controller']:.2f} s, odds {spent['odds']:.2f} s = {spent['odds'] / spent['controller']:.0%} of the "
        f"controller's time, {spent['odds'] / wall:.1%} of the wall time, "
        f"{spent['odds'] / rounds * 1000:.1f} ms per round"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=80)
    args = parser.parse_args()
    bench_ev(args.shoes)
    bench_service(args.rounds)


if __name__ == "__main__":
    main()
