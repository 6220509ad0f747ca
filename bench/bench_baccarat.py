"""Benchmark the Baccarat rules engine; prints figures, asserts nothing.

- rounds resolved per second in-process (``resolve`` on pre-dealt shoes),
- microseconds per card through the incremental :class:`Deal` (what the controller pays
  per card read),
- rounds per second through ``tablehost baccarat resolve`` (a subprocess, start-up
  included, and with the start-up of an empty run subtracted),
- the time of the exact odds of 8 decks, in-process and as ``tablehost baccarat odds
  --decks 8`` (process start included).

Run: ``.venv/bin/python bench/bench_baccarat.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable

from firmware_host.rules.baccarat.cards import Card, full_shoe
from firmware_host.rules.baccarat.deal import Deal, resolve
from firmware_host.rules.baccarat.odds import shoe_odds

#: § 541.5(e): play stops at the cover card, at least 14 cards from the bottom.
COVER_CARD_FROM_BOTTOM = 14


def dealt_rounds(count: int, seed: int) -> list[list[Card]]:
    """``count`` rounds' worth of six cards each, cut from seeded shuffled 8-deck shoes."""
    rng = random.Random(seed)
    shoe = full_shoe(8)
    rounds: list[list[Card]] = []
    while len(rounds) < count:
        rng.shuffle(shoe)
        position = 0
        while len(shoe) - position > COVER_CARD_FROM_BOTTOM and len(rounds) < count:
            cards = shoe[position : position + 6]
            rounds.append(cards)
            position += resolve(cards).cards_used
    return rounds


def tablehost_command() -> list[str]:
    """The ``tablehost`` console script next to this Python, else ``python -m firmware_host``."""
    script = os.path.join(os.path.dirname(sys.executable), "tablehost")
    if os.access(script, os.X_OK):
        return [script]
    found = shutil.which("tablehost")
    return [found] if found else [sys.executable, "-m", "firmware_host"]


def timed(function: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    function(*args)
    return time.perf_counter() - start


def resolve_all(rounds: list[list[Card]]) -> None:
    for cards in rounds:
        resolve(cards)


def deal_card_by_card(rounds: list[list[Card]]) -> int:
    cards_dealt = 0
    for cards in rounds:
        deal = Deal()
        for card in cards:
            if deal.next_slot() is None:
                break
            deal = deal.add(card)
            cards_dealt += 1
    return cards_dealt


def run_cli(command: list[str], stdin: str) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=stdin, text=True, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000, help="rounds to resolve (default 100000)")
    args = parser.parse_args()
    rounds = dealt_rounds(args.rounds, seed=1)

    seconds = min(timed(resolve_all, rounds) for _ in range(3))
    print(f"resolve in-process:               {len(rounds) / seconds:12,.0f} rounds/s")
    start = time.perf_counter()
    cards = deal_card_by_card(rounds)
    per_card = (time.perf_counter() - start) / cards
    print(f"Deal.next_slot + Deal.add:        {per_card * 1e6:12.2f} µs per card")

    tablehost = tablehost_command()
    lines = "".join(" ".join(str(card) for card in cards) + "\n" for cards in rounds)
    startup = min(run_cli([*tablehost, "baccarat", "resolve"], "") for _ in range(3))
    seconds = run_cli([*tablehost, "baccarat", "resolve"], lines)
    print(
        f"tablehost baccarat resolve:       {len(rounds) / seconds:12,.0f} rounds/s "
        f"({len(rounds):,} rounds in {seconds:.2f} s, start-up {startup * 1000:.0f} ms included)"
    )
    print(f"  without start-up:               {len(rounds) / (seconds - startup):12,.0f} rounds/s")

    seconds = min(timed(shoe_odds, 8) for _ in range(5))
    print(f"exact odds, 8 decks, in-process:  {seconds * 1000:12.1f} ms")
    seconds = min(run_cli([*tablehost, "baccarat", "odds", "--decks", "8"], "") for _ in range(3))
    print(f"tablehost baccarat odds --decks 8:{seconds * 1000:12.1f} ms (process start included)")


if __name__ == "__main__":
    main()
