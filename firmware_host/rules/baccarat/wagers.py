"""Every Baccarat wager kind, declared once: the registry the rest of the table reads.

A :class:`WagerKind` holds all a wager is: its name (a profile's ``offered_wagers``, a console
wager, a settlement line), its label for people, the variants that offer it, its payout, how it
settles (with the sections that say so), the round outcomes it pays on and its exact expected
return from their probabilities, whether it is decided on the initial four cards (§ 631c.5(d)),
and how often the simulated players bet it. :data:`KINDS` lists them in the order a seat's
wagers are listed and settled.

Settlement (:mod:`~firmware_host.rules.baccarat.settlement`), the exact odds
(:mod:`~firmware_host.rules.baccarat.odds`), the odds from the exposed cards
(:mod:`~firmware_host.rules.baccarat.exposure`: it counts exactly the :data:`OUTCOMES` declared
here), the advantage-play detector, the CLI and the simulated dealer read this module. A kind
is refused where it enters (a profile's ``[rules]``, a wager at the console); past that,
:func:`wager_kind` raises for a kind not declared here, so no kind is ever settled or priced
as another.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple, Protocol

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.deal import Deal, RoundResult
from firmware_host.rules.baccarat.drawing import Final
from firmware_host.rules.baccarat.variant import Variant

if TYPE_CHECKING:
    from firmware_host.rules.baccarat.rules import RulesSubmission

__all__ = [
    "KINDS",
    "OUTCOMES",
    "PAIR_WAGERS",
    "VARIANT_WAGERS",
    "WAGER_KINDS",
    "Outcome",
    "PayoutOdds",
    "Probabilities",
    "Verdict",
    "WagerKind",
    "WagerOutcome",
    "in_wager_order",
    "vigorish",
    "wager_kind",
]

#: § 541.13(d): vigorish may be rounded up to a multiple of this many cents.
VIGORISH_ROUNDING_CENTS = 5
#: § 541.13(f), § 541.8(a)(1)(iii)(B): the alternative vigorish, 25% of a banker wager on a tie.
TIE_COMMISSION_PERCENT = 25
#: The point count that makes a banker win a Lucky Six (§ 631c.5(c)(3)).
LUCKY_SIX_TOTAL = 6


class PayoutOdds(NamedTuple):
    """Odds of ``win`` to ``stake``: a winning wager of ``stake`` is paid ``win`` on top."""

    win: int
    stake: int

    def payout(self, amount: int) -> int:
        """What a winning wager of ``amount`` cents is paid, whole cents rounded down."""
        return amount * self.win // self.stake

    @property
    def ratio(self) -> Fraction:
        """The exact payout per unit wagered."""
        return Fraction(self.win, self.stake)


#: § 541.13(a), § 631c.5(h): player wins pay 1 to 1.
PLAYER_ODDS = PayoutOdds(1, 1)
#: § 541.13(c), § 631c.5(i): banker wins pay 1 to 1 (less vigorish in Minibaccarat).
BANKER_ODDS = PayoutOdds(1, 1)
#: § 631c.5(i): in commission-free Baccarat a banker win with a point count of 6 pays 1 to 2.
COMMISSION_FREE_BANKER_SIX_ODDS = PayoutOdds(1, 2)
#: § 631c.5(g): a winning Player Pair or Banker Pair pays 11 to 1.
PAIR_ODDS = PayoutOdds(11, 1)
#: § 631c.5(k): Lucky Six pays 12 to 1 when the banker wins with 6 on two cards, 20 to 1 on three.
LUCKY_SIX_ODDS: dict[int, PayoutOdds] = {2: PayoutOdds(12, 1), 3: PayoutOdds(20, 1)}


class WagerOutcome(enum.StrEnum):
    """How a wager ended."""

    WIN = "win"
    LOSE = "lose"
    #: Void and returned (§ 541.8(a)(1)(iii), (2)(iii)), possibly less the 25% tie vigorish.
    PUSH = "push"


class Verdict(NamedTuple):
    """How one wager of ``amount`` cents settles: what :class:`WagerKind.settle` answers.

    :param outcome: win, lose or push.
    :param payout: cents paid on top of the returned stake (0 unless it won).
    :param commission: vigorish it owes, in cents (0: none).
    :param commission_deferred: the commission is marked for the seat (§ 541.13(e)).
    :param section: the rule that settled it.
    """

    outcome: WagerOutcome
    payout: int
    commission: int
    commission_deferred: bool
    section: str


@dataclasses.dataclass(frozen=True)
class Outcome:
    """An event of a round whose exact probability some wager's expected return reads.

    :param name: its name (the key of the probabilities the enumerations count).
    :param holds: whether a round that ended so counts; None: decided by the ranks of a hand's
        first two cards (a pair, the same for either hand), which the enumerations count in
        closed form.
    """

    name: str
    holds: Callable[[Final], bool] | None


BANKER_WINS = Outcome("banker", lambda end: end.banker > end.player)
PLAYER_WINS = Outcome("player", lambda end: end.player > end.banker)
TIE = Outcome("tie", lambda end: end.player == end.banker)
BANKER_SIX_TWO_CARDS = Outcome(
    "banker_six_two_cards", lambda end: end.banker == LUCKY_SIX_TOTAL > end.player and end.banker_cards == 2
)
BANKER_SIX_THREE_CARDS = Outcome(
    "banker_six_three_cards", lambda end: end.banker == LUCKY_SIX_TOTAL > end.player and end.banker_cards == 3
)
SIX_SIX_TIE = Outcome("six_six_tie", lambda end: end.player == end.banker == LUCKY_SIX_TOTAL)
PAIR = Outcome("pair", None)


class Probabilities(Protocol):
    """The exact probability of each :class:`Outcome` (the odds of a shoe or of the cards left)."""

    def probability(self, outcome: Outcome) -> Fraction:
        """The share of the next round's draws in which ``outcome`` happens."""
        ...


#: What a kind's settlement reads: the finished round, or the deal after the initial four cards
#: for a kind decided on them (:attr:`WagerKind.on_initial_cards`).
Dealt = RoundResult | Deal


@dataclasses.dataclass(frozen=True)
class WagerKind:
    """One wager kind.

    :param name: the kind's name.
    :param label: what people read (the CLI, the display, the dashboard).
    :param variants: the variants that may offer it (§ 541.8(a); § 631c.5(c)).
    :param payout: the pay table, in words.
    :param sections: the sections that define and pay it.
    :param settle: ``(amount, dealt, rules) -> Verdict``.
    :param pays_on: the outcomes :attr:`expected_return` reads.
    :param expected_return: ``(probabilities, rules) -> the player's exact gain per unit``.
    :param on_initial_cards: settled after the initial four cards, before any third (§ 631c.5(d)).
    :param sim_weight: how often the simulated players bet it, relative to the others (0: never).
    """

    name: str
    label: str
    variants: frozenset[Variant]
    payout: str
    sections: str
    settle: Callable[[int, Dealt, RulesSubmission], Verdict]
    pays_on: tuple[Outcome, ...]
    expected_return: Callable[[Probabilities, RulesSubmission], Fraction]
    on_initial_cards: bool = False
    sim_weight: int = 0


def vigorish(amount: int, percent: int, *, round_up_to_5_cents: bool) -> int:
    """``percent`` % of ``amount`` cents, as whole cents the house collects.

    A fraction of a cent is rounded up to the cent; with ``round_up_to_5_cents`` the
    vigorish is rounded up to the next multiple of 5 cents (§ 541.13(d)): 5% of 30 cents
    is 1.5 cents, collected as 2 cents, or as 5 cents when rounding.
    """
    cents = -(-amount * percent // 100)
    if round_up_to_5_cents:
        cents = -(-cents // VIGORISH_ROUNDING_CENTS) * VIGORISH_ROUNDING_CENTS
    return cents


def _win(amount: int, odds: PayoutOdds, section: str, commission: int = 0, deferred: bool = False) -> Verdict:
    return Verdict(WagerOutcome.WIN, odds.payout(amount), commission, deferred, section)


def _no_payout(outcome: WagerOutcome, section: str, commission: int = 0) -> Verdict:
    return Verdict(outcome, 0, commission, False, section)


def _finished(dealt: Dealt, kind: str) -> RoundResult:
    """The finished round a kind not decided on the initial cards needs."""
    if not isinstance(dealt, RoundResult):
        raise RulesError(f"wager {kind!r}: settled on the finished round, not after the initial cards (§ 541.12)")
    return dealt


# -- settlement, kind by kind -----------------------------------------------------------------


def _settle_player(amount: int, dealt: Dealt, rules: RulesSubmission) -> Verdict:
    result = _finished(dealt, "player")
    if result.winner == "player":
        return _win(amount, PLAYER_ODDS, "541.13(a)")
    if result.winner == "tie":
        return _no_payout(WagerOutcome.PUSH, "541.8(a)(2)(iii)")
    return _no_payout(WagerOutcome.LOSE, "541.8(a)(2)(ii)")


def _settle_banker(amount: int, dealt: Dealt, rules: RulesSubmission) -> Verdict:
    result = _finished(dealt, "banker")
    if result.winner == "player":
        return _no_payout(WagerOutcome.LOSE, "541.8(a)(1)(ii)")
    if result.winner == "tie":
        if rules.tie_commission_alternative:
            charge = vigorish(amount, TIE_COMMISSION_PERCENT, round_up_to_5_cents=rules.round_commission_up_to_5_cents)
            return _no_payout(WagerOutcome.PUSH, "541.8(a)(1)(iii)(B), 541.13(f)", charge)
        return _no_payout(WagerOutcome.PUSH, "541.8(a)(1)(iii)(A)")
    if rules.variant is Variant.COMMISSION_FREE:
        if result.banker_total == LUCKY_SIX_TOTAL:
            return _win(amount, COMMISSION_FREE_BANKER_SIX_ODDS, "631c.5(i)")
        return _win(amount, BANKER_ODDS, "631c.5(i)")
    if not rules.charges_commission:
        return _win(amount, BANKER_ODDS, "541.13(c), (f)")
    won = BANKER_ODDS.payout(amount)
    charge = vigorish(won, rules.commission_percent, round_up_to_5_cents=rules.round_commission_up_to_5_cents)
    deferred = rules.commission_collection == "deferred"
    return _win(amount, BANKER_ODDS, "541.13(c), (e)" if deferred else "541.13(c)", charge, deferred)


def _settle_tie(amount: int, dealt: Dealt, rules: RulesSubmission) -> Verdict:
    if _finished(dealt, "tie").winner == "tie":
        return _win(amount, PayoutOdds(rules.tie_payout, 1), "541.8(a)(3)(i), 541.13(b)")
    return _no_payout(WagerOutcome.LOSE, "541.8(a)(3)(ii)")


def _settle_pair(is_pair: Callable[[Dealt], bool], section: str) -> Callable[[int, Dealt, RulesSubmission], Verdict]:
    def settle(amount: int, dealt: Dealt, rules: RulesSubmission) -> Verdict:
        if is_pair(dealt):
            return _win(amount, PAIR_ODDS, section + ", (g)")
        return _no_payout(WagerOutcome.LOSE, section)

    return settle


def _settle_lucky_six(amount: int, dealt: Dealt, rules: RulesSubmission) -> Verdict:
    result = _finished(dealt, "lucky_six")
    if result.winner == "banker" and result.banker_total == LUCKY_SIX_TOTAL:
        return _win(amount, LUCKY_SIX_ODDS[len(result.banker)], "631c.5(k)")
    both_six = result.winner == "tie" and result.banker_total == LUCKY_SIX_TOTAL
    if both_six and rules.lucky_six_on_six_six_tie == "push":
        return _no_payout(WagerOutcome.PUSH, "631c.5(c)(3); six-six tie per Rules Submission")
    return _no_payout(WagerOutcome.LOSE, "631c.5(c)(3)")


# -- expected returns, kind by kind -----------------------------------------------------------


def _player_return(odds: Probabilities, rules: RulesSubmission) -> Fraction:
    return odds.probability(PLAYER_WINS) * PLAYER_ODDS.ratio - odds.probability(BANKER_WINS)


def _banker_return(odds: Probabilities, rules: RulesSubmission) -> Fraction:
    banker, player = odds.probability(BANKER_WINS), odds.probability(PLAYER_WINS)
    if rules.variant is Variant.COMMISSION_FREE:
        six = odds.probability(BANKER_SIX_TWO_CARDS) + odds.probability(BANKER_SIX_THREE_CARDS)
        return (banker - six) * BANKER_ODDS.ratio + six * COMMISSION_FREE_BANKER_SIX_ODDS.ratio - player
    if rules.tie_commission_alternative:
        return banker * BANKER_ODDS.ratio - player - odds.probability(TIE) * Fraction(TIE_COMMISSION_PERCENT, 100)
    return banker * BANKER_ODDS.ratio * (1 - Fraction(rules.commission_percent, 100)) - player


def _tie_return(odds: Probabilities, rules: RulesSubmission) -> Fraction:
    tie = odds.probability(TIE)
    return tie * rules.tie_payout - (1 - tie)


def _pair_return(odds: Probabilities, rules: RulesSubmission) -> Fraction:
    pair = odds.probability(PAIR)
    return pair * PAIR_ODDS.ratio - (1 - pair)


def _lucky_six_return(odds: Probabilities, rules: RulesSubmission) -> Fraction:
    two, three = odds.probability(BANKER_SIX_TWO_CARDS), odds.probability(BANKER_SIX_THREE_CARDS)
    pushed = odds.probability(SIX_SIX_TIE) if rules.lucky_six_on_six_six_tie == "push" else Fraction(0)
    return two * LUCKY_SIX_ODDS[2].ratio + three * LUCKY_SIX_ODDS[3].ratio - (1 - two - three - pushed)


_BOTH = frozenset(Variant)
_COMMISSION_FREE = frozenset((Variant.COMMISSION_FREE,))

#: Every wager kind, in the order a seat's wagers are listed and settled.
KINDS: dict[str, WagerKind] = {
    kind.name: kind
    for kind in (
        WagerKind(
            "banker", "Banker", _BOTH, "1 to 1 less 4% or 5% vigorish; commission-free: 1 to 1, 1 to 2 on a 6",
            "541.8(a)(1), 541.13(c)-(f); 631c.5(i)", _settle_banker,
            (BANKER_WINS, PLAYER_WINS, TIE, BANKER_SIX_TWO_CARDS, BANKER_SIX_THREE_CARDS), _banker_return,
            sim_weight=45,
        ),
        WagerKind(
            "player", "Player", _BOTH, "1 to 1", "541.8(a)(2), 541.13(a); 631c.5(h)", _settle_player,
            (PLAYER_WINS, BANKER_WINS), _player_return, sim_weight=40,
        ),
        WagerKind(
            "tie", "Tie", _BOTH, "at least 8 to 1 (the Rules Submission's); commission-free: 8 to 1",
            "541.8(a)(3), 541.13(b); 631c.5(j)", _settle_tie, (TIE,), _tie_return, sim_weight=8,
        ),
        WagerKind(
            "player_pair", "Player Pair", _COMMISSION_FREE, "11 to 1", "631c.5(c)(1), (d), (g)",
            _settle_pair(lambda dealt: dealt.player_pair, "631c.5(c)(1)"), (PAIR,), _pair_return,
            on_initial_cards=True, sim_weight=3,
        ),
        WagerKind(
            "banker_pair", "Banker Pair", _COMMISSION_FREE, "11 to 1", "631c.5(c)(2), (d), (g)",
            _settle_pair(lambda dealt: dealt.banker_pair, "631c.5(c)(2)"), (PAIR,), _pair_return,
            on_initial_cards=True, sim_weight=3,
        ),
        WagerKind(
            "lucky_six", "Lucky Six", _COMMISSION_FREE, "12 to 1 on two cards, 20 to 1 on three",
            "631c.5(c)(3), (e), (k)", _settle_lucky_six,
            (BANKER_SIX_TWO_CARDS, BANKER_SIX_THREE_CARDS, SIX_SIX_TIE), _lucky_six_return, sim_weight=1,
        ),
    )
}  # fmt: skip

#: Every wager kind's name, in :data:`KINDS` order.
WAGER_KINDS: tuple[str, ...] = tuple(KINDS)
#: Kinds each variant permits: § 541.8(a) for Minibaccarat; § 631c.5(c) adds the optional three.
VARIANT_WAGERS: dict[Variant, frozenset[str]] = {
    variant: frozenset(name for name, kind in KINDS.items() if variant in kind.variants) for variant in Variant
}
#: Kinds settled after the initial four cards, before any third card (§ 631c.5(d)).
PAIR_WAGERS: frozenset[str] = frozenset(name for name, kind in KINDS.items() if kind.on_initial_cards)
#: Every outcome some kind pays on, by name, in the order the kinds first name them: what the
#: enumerations of the odds count.
OUTCOMES: dict[str, Outcome] = {outcome.name: outcome for kind in KINDS.values() for outcome in kind.pays_on}


def wager_kind(name: str) -> WagerKind:
    """The kind called ``name``.

    :raises RulesError: for a name no kind has, naming it and the kinds there are.
    """
    kind = KINDS.get(name)
    if kind is None:
        raise RulesError(f"wager kind {name!r}: not a Baccarat wager kind (known: {', '.join(WAGER_KINDS)})")
    return kind


def in_wager_order(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` in :data:`KINDS` order.

    :raises RulesError: for a name no kind has.
    """
    chosen = set(names)
    for name in sorted(chosen):
        wager_kind(name)
    return tuple(name for name in WAGER_KINDS if name in chosen)
