"""Shared fixtures of the settlement tests: hands with known results, and random tables for properties."""

from __future__ import annotations

from hypothesis import strategies as st

from firmware_host.rules.paigow_tiles.compare import Outcome
from firmware_host.rules.paigow_tiles.hands import Setting, legal_settings
from firmware_host.rules.paigow_tiles.houseway import house_way
from firmware_host.rules.paigow_tiles.rules import CommissionRounding, PaiGowTileRules
from firmware_host.rules.paigow_tiles.settlement import Wager, WagerAction, WagerResult, commission_on
from firmware_host.rules.paigow_tiles.tiles import TILE_SET

# Against NINE_OVER_SIX (5-6+2-6 = 9; 5-5+1-5 = 6), worked by hand in test_compare.py;
# the five settings use tiles one set can hold together.
NINE_OVER_SIX = Setting.parse("5-6,2-6/5-5,1-5")
WINS = Setting.parse("6-6,4-5/1-3,2-2")  # Wong over 9; 4+4 = 8 over 6
ALSO_WINS = Setting.parse("4-4,4-4/1-1,2-3")  # Pair of Eights; 2+5 = 7 over 6
LOSES = Setting.parse("1-6,2-5/3-3,1-4")  # 7+7 = 14 -> 4; 6+5 = 11 -> 1
TIES = Setting.parse("6-6,3-6/4-6,2-4")  # Wong; 10+6 = 16 -> 6 under the 6 with 5-5

rules_strategy = st.builds(
    PaiGowTileRules,
    commission_percent=st.sampled_from(["5", "4", "4.5", "0"]),
    commission_rounding=st.sampled_from(list(CommissionRounding)),
)


@st.composite
def tables(draw: st.DrawFn, *, seats: int = 6) -> tuple[Setting, tuple[Wager, ...], tuple[Setting, ...]]:
    """A shuffled set, the first four tiles to the banker side (set the house way) and up to
    ``seats`` wagers set any legal way; also the remaining tiles' house-way settings."""
    tiles = draw(st.permutations(TILE_SET))
    banker = house_way(tiles[:4]).setting
    positions = draw(st.lists(st.integers(1, 6), min_size=1, max_size=seats, unique=True))
    wagers = []
    for slot, position in enumerate(positions, start=1):
        hand = tiles[4 * slot : 4 * slot + 4]
        settings = legal_settings(hand)
        action = draw(st.sampled_from([WagerAction.PLAY] * 4 + [WagerAction.SURRENDER, WagerAction.VOID]))
        wagers.append(
            Wager(
                position,
                draw(st.integers(1, 10**7)),
                settings[draw(st.integers(0, len(settings) - 1))],
                action,
            )
        )
    spare = tuple(house_way(tiles[4 * slot : 4 * slot + 4]).setting for slot in range(len(positions) + 1, 8))
    return banker, tuple(wagers), spare


def expected_net(result: WagerResult, rules: PaiGowTileRules) -> int:
    """A wager's net under § 535.10(g)-(k), computed afresh from its outcome."""
    return {
        Outcome.WIN: result.amount - commission_on(result.amount, rules),
        Outcome.LOSE: -result.amount,
        Outcome.SURRENDER: -result.amount,
        Outcome.TIE: 0,
        Outcome.VOID: 0,
    }[result.outcome]


def gross(result: WagerResult) -> int:
    """What the wager wins or loses before vigorish."""
    return {Outcome.WIN: result.amount, Outcome.LOSE: -result.amount, Outcome.SURRENDER: -result.amount}.get(
        result.outcome, 0
    )
