"""Settling the wagers of a round in integer cents (§ 541.8, § 541.12(b), § 541.13, § 631c.5).

:func:`settle` takes a finished round, the wagers on the layout and the table's
:class:`~firmware_host.rules.baccarat.rules.RulesSubmission`, and lists every wager's result in
the order the dealer settles them. In commission-free Baccarat the controller settles the
pair wagers first with :func:`settle_pairs`, after the initial four cards (§ 631c.5(d)),
and passes only the other wagers to :func:`settle`.

Deferred vigorish (§ 541.13(e)) lives in a :class:`CommissionLedger`, an immutable value
the controller keeps between rounds: :func:`settle` returns the updated ledger, and
:meth:`CommissionLedger.collect` / :meth:`CommissionLedger.collect_all` settle it when a
player leaves or before the reshuffle.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.deal import Deal, RoundResult
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.wagers import WAGER_KINDS, Dealt, WagerOutcome, vigorish, wager_kind

__all__ = [
    "SEATS",
    "CommissionLedger",
    "SettledWager",
    "Settlement",
    "Wager",
    "WagerOutcome",
    "settle",
    "settle_pairs",
    "vigorish",
]

#: § 541.2(a): seats are numbered 1 to 7.
SEATS = range(1, 8)


@dataclasses.dataclass(frozen=True)
class Wager:
    """A wager on the layout.

    :param seat: the player's seat, 1-7 (§ 541.2(a)).
    :param kind: one of :data:`~firmware_host.rules.baccarat.wagers.KINDS`.
    :param amount: the stake in integer cents, positive.
    :raises RulesError: naming the bad field and why.
    """

    seat: int
    kind: str
    amount: int

    def __post_init__(self) -> None:
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or self.seat not in SEATS:
            raise RulesError(f"wager seat {self.seat!r}: seats are numbered 1 to 7 (§ 541.2(a))")
        if self.kind not in WAGER_KINDS:
            raise RulesError(f"wager kind {self.kind!r}: not one of {', '.join(WAGER_KINDS)}")
        if isinstance(self.amount, bool) or not isinstance(self.amount, int) or self.amount <= 0:
            raise RulesError(f"wager amount {self.amount!r}: must be a positive whole number of cents")


@dataclasses.dataclass(frozen=True)
class SettledWager:
    """One wager's settlement.

    :param wager: the wager.
    :param outcome: win, lose or push.
    :param payout: cents paid on top of the returned stake (0 unless it won).
    :param commission: vigorish this wager owes, in cents (§ 541.13(c) on a banker win,
        § 541.13(f) on a banker wager in a tie); 0 when none.
    :param commission_deferred: the commission is marked for the seat (§ 541.13(e)) and
        added to the ledger instead of being collected now.
    :param section: the rule that settled it.
    """

    wager: Wager
    outcome: WagerOutcome
    payout: int
    commission: int
    commission_deferred: bool
    section: str

    @property
    def returned(self) -> int:
        """The stake handed back: all of it unless the wager lost."""
        return 0 if self.outcome is WagerOutcome.LOSE else self.wager.amount

    @property
    def net(self) -> int:
        """The player's gain (negative: loss) in cents, counting commission owed."""
        if self.outcome is WagerOutcome.LOSE:
            return -self.wager.amount
        return self.payout - self.commission


@dataclasses.dataclass(frozen=True)
class CommissionLedger:
    """Vigorish owed per seat and not yet collected (§ 541.13(e)): the marker buttons.

    :param owed: ``(seat, cents)`` pairs, seats ascending, each owing more than 0.
    """

    owed: tuple[tuple[int, int], ...] = ()

    def owed_by(self, seat: int) -> int:
        """Cents ``seat`` owes."""
        return dict(self.owed).get(seat, 0)

    @property
    def total(self) -> int:
        """Cents owed by all seats."""
        return sum(cents for _, cents in self.owed)

    def mark(self, seat: int, cents: int) -> CommissionLedger:
        """The ledger with ``cents`` more owed by ``seat``.

        :raises RulesError: for a seat outside 1-7 or an amount that is not positive cents.
        """
        if seat not in SEATS:
            raise RulesError(f"vigorish seat {seat!r}: seats are numbered 1 to 7 (§ 541.2(a))")
        if isinstance(cents, bool) or not isinstance(cents, int) or cents <= 0:
            raise RulesError(f"vigorish {cents!r} at seat {seat}: must be a positive whole number of cents")
        owed = dict(self.owed)
        owed[seat] = owed.get(seat, 0) + cents
        return CommissionLedger(tuple(sorted(owed.items())))

    def collect(self, seat: int) -> tuple[int, CommissionLedger]:
        """Collect what ``seat`` owes, as when the player leaves the table (§ 541.13(e)).

        :returns: the cents collected and the ledger without the seat.
        """
        return self.owed_by(seat), CommissionLedger(tuple((s, c) for s, c in self.owed if s != seat))

    def collect_all(self) -> tuple[tuple[tuple[int, int], ...], CommissionLedger]:
        """Collect from every seat, as before the cards are reshuffled (§ 541.13(e)).

        :returns: ``(seat, cents)`` collected from the highest-numbered seat down, and the
            empty ledger.
        """
        return tuple(reversed(self.owed)), CommissionLedger()


@dataclasses.dataclass(frozen=True)
class Settlement:
    """The wagers of a round settled, in the order the dealer handles them.

    :param wagers: losing wagers first, then winning wagers from the highest-numbered seat
        down (§ 541.12(b), § 631c.5(f)), then returned (push) wagers the same way.
    :param ledger: deferred vigorish after this settlement.
    """

    wagers: tuple[SettledWager, ...]
    ledger: CommissionLedger

    @property
    def commission_collected(self) -> int:
        """Cents of vigorish collected now."""
        return sum(line.commission for line in self.wagers if not line.commission_deferred)

    @property
    def commission_deferred(self) -> int:
        """Cents of vigorish marked on the ledger in this settlement."""
        return sum(line.commission for line in self.wagers if line.commission_deferred)


def settle(
    result: RoundResult,
    wagers: Iterable[Wager],
    rules: RulesSubmission,
    deferred: CommissionLedger = CommissionLedger(),
) -> Settlement:
    """Settle ``wagers`` on the finished round ``result`` under ``rules``.

    Pair wagers given here are settled too (on the same first two cards), so a round can be
    settled in one call; at a live table the controller settles them earlier with
    :func:`settle_pairs` and leaves them out here.

    :param deferred: the vigorish already owed; deferred commission of this round is added.
    :raises RulesError: for a wager kind the table does not offer, or two wagers of one kind
        on one seat.
    """
    accepted = _accepted(wagers, rules)
    lines = tuple(_settle_one(wager, result, rules) for wager in accepted)
    ledger = deferred
    for line in lines:
        if line.commission_deferred:
            ledger = ledger.mark(line.wager.seat, line.commission)
    return Settlement(_in_payment_order(lines), ledger)


def settle_pairs(deal: Deal, wagers: Iterable[Wager], rules: RulesSubmission) -> Settlement:
    """Settle Player Pair and Banker Pair wagers on the initial four cards (§ 631c.5(d)).

    :param deal: the round with at least its initial four cards dealt.
    :raises RulesError: before the initial four cards, for a wager that is not a pair wager,
        or one the table does not offer.
    """
    accepted = _accepted(wagers, rules)
    for wager in accepted:
        if not wager_kind(wager.kind).on_initial_cards:
            raise RulesError(
                f"wager {wager.kind!r} at seat {wager.seat}: only pair wagers are settled before the third cards (§ 631c.5(d))"
            )
    lines = tuple(_settle_one(wager, deal, rules) for wager in accepted)
    return Settlement(_in_payment_order(lines), CommissionLedger())


def _accepted(wagers: Iterable[Wager], rules: RulesSubmission) -> list[Wager]:
    accepted = list(wagers)
    seen: set[tuple[int, str]] = set()
    for wager in accepted:
        rules.require_offered(wager.kind)
        if (wager.seat, wager.kind) in seen:
            # § 541.2(c)(2): the layout has one area per seat and wager kind.
            raise RulesError(f"seat {wager.seat}: two {wager.kind} wagers; a seat has one of each kind")
        seen.add((wager.seat, wager.kind))
    return accepted


def _settle_one(wager: Wager, dealt: Dealt, rules: RulesSubmission) -> SettledWager:
    """The wager settled as its kind says (:mod:`~firmware_host.rules.baccarat.wagers`); a kind
    not declared there raises :class:`RulesError`, never settles as another."""
    return SettledWager(wager, *wager_kind(wager.kind).settle(wager.amount, dealt, rules))


#: Settlement order within one seat: the order of the wager kinds.
_KIND_ORDER = {kind: index for index, kind in enumerate(WAGER_KINDS)}
#: § 541.12(b): losing wagers are collected first, then winners paid; pushes come back last.
_OUTCOME_ORDER = {WagerOutcome.LOSE: 0, WagerOutcome.WIN: 1, WagerOutcome.PUSH: 2}


def _in_payment_order(lines: Iterable[SettledWager]) -> tuple[SettledWager, ...]:
    # Within each group, from the highest-numbered seat down (§ 541.12(b)).
    return tuple(
        sorted(lines, key=lambda line: (_OUTCOME_ORDER[line.outcome], -line.wager.seat, _KIND_ORDER[line.wager.kind]))
    )
