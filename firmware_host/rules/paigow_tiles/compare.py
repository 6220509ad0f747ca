"""Comparing a wager's hands with the dealer's or the bank's (§ 535.4(a)-(g), § 535.10(f)-(j)).

The *player* side is whoever wagers: a player, or the dealer wagering against a player bank
(§ 535.11(n)). The *banker* side is whoever wins copy hands (§ 535.4(b), (g)): the dealer,
or the bank when a player banks.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from firmware_host.rules.paigow_tiles.hands import Hand, HandRank, Setting
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, PaiGowTileRules, ZeroValueRule
from firmware_host.rules.paigow_tiles.tiles import check_drawable


class Outcome(enum.StrEnum):
    """What happens to a wager. Comparing hands gives ``win``, ``lose`` or ``tie``."""

    WIN = "win"
    LOSE = "lose"
    TIE = "tie"
    #: The player gave up the wager before his hands were exposed (§ 535.10(e)).
    SURRENDER = "surrender"
    #: The hand was void and the wager returned (§ 535.12(d)-(e)).
    VOID = "void"


class Side(enum.StrEnum):
    PLAYER = "player"
    BANKER = "banker"


class Reason(enum.StrEnum):
    """Why one hand beat the other, each with the section that decides it."""

    PAIR = "pair"
    PAIR_RANK = "pair_rank"
    VALUE = "value"
    HIGHEST_TILE = "highest_tile"
    COPY = "copy"
    ZERO_VALUE = "zero_value"


@dataclasses.dataclass(frozen=True)
class HandComparison:
    """One hand against the corresponding hand of the banker side."""

    player: Hand
    banker: Hand
    winner: Side
    reason: Reason
    section: str

    def describe(self, player_name: str = "player", banker_name: str = "dealer") -> str:
        """A sentence for the dealer, e.g. ``"player value 8 beats dealer value 5 (§ 535.4(c))"``."""
        names = {Side.PLAYER: player_name, Side.BANKER: banker_name}
        hands = {Side.PLAYER: self.player.rank, Side.BANKER: self.banker.rank}
        loser = Side.BANKER if self.winner is Side.PLAYER else Side.PLAYER
        won, lost = hands[self.winner], hands[loser]
        if self.reason is Reason.COPY:
            what = won.pair.name if won.pair else f"value {won.value} with highest tile rank {won.high_tile_rank}"
            return f"copy hand, both {what}: the {banker_name} wins (§ {self.section})"
        if self.reason is Reason.ZERO_VALUE:
            return f"the {player_name}'s hand has a value of zero and cannot win (§ {self.section})"
        if self.reason is Reason.HIGHEST_TILE:
            return (
                f"both value {won.value}; {names[self.winner]}'s highest tile {won.high_tile.text}"
                f" (rank {won.high_tile_rank}) outranks {lost.high_tile.text} (rank {lost.high_tile_rank})"
                f" (§ {self.section})"
            )
        return f"{names[self.winner]} {_short(won)} beats {names[loser]} {_short(lost)} (§ {self.section})"

    def to_json(self, banker_name: str = "dealer") -> dict[str, Any]:
        return {
            "player": self.player.to_json(),
            banker_name: self.banker.to_json(),
            "winner": "player" if self.winner is Side.PLAYER else banker_name,
            "reason": self.reason.value,
            "section": self.section,
            "why": self.describe(banker_name=banker_name),
        }


@dataclasses.dataclass(frozen=True)
class Comparison:
    """A wager's result: both hands compared and the outcome of § 535.10(g)-(j)."""

    high: HandComparison
    low: HandComparison
    outcome: Outcome
    section: str

    def why(self, player_name: str = "player", banker_name: str = "dealer") -> str:
        """The outcome and the two hand comparisons in one line."""
        return (
            f"{self.outcome.value} (§ {self.section}): high hand: {self.high.describe(player_name, banker_name)};"
            f" low hand: {self.low.describe(player_name, banker_name)}"
        )

    def to_json(self, banker_name: str = "dealer") -> dict[str, Any]:
        return {
            "result": self.outcome.value,
            "section": self.section,
            "high": self.high.to_json(banker_name),
            "low": self.low.to_json(banker_name),
            "why": self.why(banker_name=banker_name),
        }


def compare_hands(player: Hand, banker: Hand, *, zero_value_cannot_win: bool = True) -> HandComparison:
    """Which of two corresponding hands ranks higher (§ 535.4), copies going to the banker.

    :param zero_value_cannot_win: apply § 535.10(g): a player hand of value zero does not win.
    """
    mine, theirs = player.rank, banker.rank
    if mine.strength == theirs.strength:
        section = "535.4(b)" if mine.pair else "535.4(g)"
        return HandComparison(player, banker, Side.BANKER, Reason.COPY, section)
    winner = Side.PLAYER if mine.strength > theirs.strength else Side.BANKER
    if winner is Side.PLAYER and zero_value_cannot_win and mine.value == 0:
        return HandComparison(player, banker, Side.BANKER, Reason.ZERO_VALUE, "535.10(g)")
    if mine.pair and theirs.pair:
        return HandComparison(player, banker, winner, Reason.PAIR_RANK, "535.4(a)")
    if mine.pair or theirs.pair:
        return HandComparison(player, banker, winner, Reason.PAIR, "535.4(a)")
    if mine.value != theirs.value:
        return HandComparison(player, banker, winner, Reason.VALUE, "535.4(c)")
    return HandComparison(player, banker, winner, Reason.HIGHEST_TILE, "535.4(e)")


def compare_settings(player: Setting, banker: Setting, rules: PaiGowTileRules = DEFAULT_RULES) -> Comparison:
    """Compare high with high and low with low (§ 535.10(f)) and decide the wager (§ 535.10(g)-(j)).

    :raises RulesError: the eight tiles could not all come from one set.
    """
    check_same_set(player, banker)
    zero_rule_on_high = rules.zero_value_rule is ZeroValueRule.BOTH_HANDS
    high = compare_hands(player.high, banker.high, zero_value_cannot_win=zero_rule_on_high)
    low = compare_hands(player.low, banker.low)
    if high.winner is Side.PLAYER and low.winner is Side.PLAYER:
        return Comparison(high, low, Outcome.WIN, "535.10(j)")
    if high.winner is Side.PLAYER:
        return Comparison(high, low, Outcome.TIE, "535.10(h)(1)")
    if low.winner is Side.PLAYER:
        return Comparison(high, low, Outcome.TIE, "535.10(h)(2)")
    return Comparison(high, low, Outcome.LOSE, "535.10(g)")


def check_same_set(*settings: Setting) -> None:
    """Check that the settings' tiles could all have been dealt from one set of 32.

    :raises RulesError: naming a tile seen more often than the set holds it.
    """
    check_drawable(tile for setting in settings for tile in setting.tiles)


def _short(rank: HandRank) -> str:
    return rank.pair.name if rank.pair else f"value {rank.value}"
