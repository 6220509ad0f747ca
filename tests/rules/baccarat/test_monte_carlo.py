"""A seeded Monte Carlo run over shuffled 8-deck shoes agrees with the exact enumeration.

The two are independent: the simulation deals real shoes through :func:`resolve` the way a
table does (§ 541.5(e) cover card 14 cards from the bottom), the enumeration never deals a
card. Each frequency must fall within 4.5 standard errors of the exact probability; with
the fixed seed the run is deterministic, and a correct engine fails it with odds of about
one in 150,000 per figure for a different seed.
"""

from __future__ import annotations

import math
import random

import pytest

from firmware_host.rules.baccarat.cards import full_shoe
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.odds import shoe_odds

ROUNDS = 200_000
SEED = 541
#: § 541.5(e): the second cover card sits at least 14 cards above the bottom of the stack.
COVER_CARD_FROM_BOTTOM = 14
TOLERANCE_STANDARD_ERRORS = 4.5


def simulate(rounds: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    shoe = full_shoe(8)
    counts = dict.fromkeys(("banker", "player", "tie", "six_two", "six_three", "natural", "player_pair"), 0)
    dealt = 0
    while dealt < rounds:
        rng.shuffle(shoe)
        position = 0
        while len(shoe) - position > COVER_CARD_FROM_BOTTOM and dealt < rounds:
            result = resolve(shoe[position : position + 6])
            position += result.cards_used
            dealt += 1
            counts[result.winner] += 1
            if result.winner == "banker" and result.banker_total == 6:
                counts["six_two" if len(result.banker) == 2 else "six_three"] += 1
            counts["natural"] += result.natural
            counts["player_pair"] += result.player_pair
    return counts


@pytest.mark.slow
def test_seeded_monte_carlo_over_8_deck_shoes_agrees_with_exact_odds() -> None:
    exact = shoe_odds(8).probabilities()
    counts = simulate(ROUNDS, SEED)
    names = {"six_two": "banker_wins_six_two_cards", "six_three": "banker_wins_six_three_cards"}
    for name, count in counts.items():
        probability = exact[names.get(name, name)]
        standard_error = math.sqrt(probability * (1 - probability) / ROUNDS)
        observed = count / ROUNDS
        assert abs(observed - probability) <= TOLERANCE_STANDARD_ERRORS * standard_error, (
            f"{name}: observed {observed:.6f}, exact {probability:.6f}, {standard_error=:.6f}"
        )
