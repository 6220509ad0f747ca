"""Advantage-play detection: does a seat bet a wager kind when, and only when, it favours the player?

Game protection (docs/protection.md, "Detection"). Before each round the controller knows,
from the cards exposed so far, which offered wagers have an expected value above the
threshold: the round is an *advantage window* for those kinds. A player who counts bets
them in windows and sits out otherwise; a player who does not count bets whatever the
cards. Per seat and kind, this module weighs the two explanations of the seat's record,
round by round, with exact integers, so a replay reproduces every alarm bit for bit.

**The record** (:class:`Tally`): every round of the table-day with an ``odds`` decision is
one observation for every seat; it is a window for kind *k* or not, and the seat placed a
wager on *k* or not (the *presence* check), or a wager of at least ``big_wager`` cents (the
*size* check). A seat with nobody in it bets nothing, so a player who comes and goes is
weighed by the same record ("wonging in" included).

**The statistic** (:func:`e_value`): an e-value by universal inference (Wasserman, Ramdas
and Balakrishnan, PNAS 2020)::

    E = KT(bets_in, windows) * KT(bets_out, outside) / ML(bets_in + bets_out, rounds)

The numerator is the Krichevsky-Trofimov mixture (a Beta(1/2, 1/2) prior) of a seat that
bets at one rate in windows and another outside, each learnt as the day goes; the
denominator is the best a card-blind seat could do, its single rate fitted in hindsight
(``p^m (1-p)^(n-m)`` at ``p = m/n``). Under the null hypothesis, *the seat bets kind k in
each round with one probability, whatever the cards*, the denominator is at least the
likelihood of the true rate, so ``E`` stays below a nonnegative martingale that starts at 1
and, by Ville's inequality, ``P(E >= 1/level at any round of the day) <= level``: the bound
holds however often, and whenever, the statistic is looked at.

**The budget** (:meth:`DetectionPolicy.level`): ``alpha`` per table-day, split evenly over
7 seats (§ 541.2(a)) x the kinds offered x the two checks (Bonferroni), so the chance of
any false alarm at a table in a day is at most ``alpha``, and the expected number of false
alarms is at most ``alpha`` too. An alarm also needs the seat's rate in windows to be above
its rate outside (one-sided); that only removes alarms, so the bound stands.

**Wonging** (:attr:`Evidence.wonging`): the alarm notes a seat that came in late in every
shoe it played (its first wager of the shoe after ``late_share`` of the shoe was dealt)
and made a wager of at least ``big_wager`` inside a window.

Every number a decision depends on is an integer or a :class:`~fractions.Fraction`;
floats appear only in :meth:`Evidence.to_json`, for people.
"""

from __future__ import annotations

import dataclasses
import decimal
import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.settlement import SEATS
from firmware_host.rules.baccarat.wagers import in_wager_order
from firmware_host.rules.gaming_day import GamingDay

__all__ = [
    "CHECKS",
    "SEAT_COUNT",
    "DetectionPolicy",
    "Evidence",
    "Tally",
    "Watch",
    "e_value",
    "exceeds",
    "exceeds_exactly",
    "log_e_value",
    "kt_probability",
    "max_likelihood",
    "table_day",
]

#: § 541.2(a): seats numbered 1 to 7 (:data:`~firmware_host.rules.baccarat.settlement.SEATS`); the
#: budget is split over all of them.
SEAT_COUNT = len(SEATS)
#: What a seat's wager is checked for: being placed at all, or being at least ``big_wager``.
CHECKS: tuple[str, ...] = ("presence", "size")
#: How far (in natural log) the floating-point e-value must be from the threshold for
#: :func:`exceeds` to trust it; its error is below 1e-9 for any day's counts.
FILTER_MARGIN = 1e-3
_LN_PI = math.log(math.pi)


@dataclasses.dataclass(frozen=True)
class Tally:
    """One seat's record on one wager kind (and check) over a table-day.

    :param windows: rounds observed that were advantage windows for the kind.
    :param bets_in: of those, rounds the seat bet the kind (for the size check: bet big).
    :param outside: rounds observed that were not windows.
    :param bets_out: of those, rounds the seat bet the kind.
    :raises RulesError: for a negative count or more bets than rounds.
    """

    windows: int = 0
    bets_in: int = 0
    outside: int = 0
    bets_out: int = 0

    def __post_init__(self) -> None:
        for name in ("windows", "bets_in", "outside", "bets_out"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RulesError(f"tally {name} {value!r}: must be a whole number, at least 0")
        if self.bets_in > self.windows or self.bets_out > self.outside:
            raise RulesError(f"tally {self}: more bets than rounds")

    def add(self, window: bool, bet: bool) -> Tally:
        """The tally after one more round (a window or not; bet or not)."""
        if window:
            return dataclasses.replace(self, windows=self.windows + 1, bets_in=self.bets_in + bet)
        return dataclasses.replace(self, outside=self.outside + 1, bets_out=self.bets_out + bet)

    @property
    def rounds(self) -> int:
        """Rounds observed."""
        return self.windows + self.outside

    @property
    def bets(self) -> int:
        """Rounds the seat bet."""
        return self.bets_in + self.bets_out

    @property
    def concentrated(self) -> bool:
        """The seat bets at a higher rate in windows than outside them (one-sided alternative)."""
        if not self.windows:
            return False
        return self.bets_in * self.outside > self.bets_out * self.windows


def _odd_product(k: int) -> int:
    """1 * 3 * 5 * ... * (2k - 1), the double factorial (2k - 1)!! = (2k)! / (2^k k!) (1 for k = 0)."""
    return (math.factorial(2 * k) >> k) // math.factorial(k)


def _kt_terms(successes: int, trials: int) -> tuple[int, int]:
    """Numerator and denominator of :func:`kt_probability`: ``(2s-1)!! (2f-1)!!`` and ``2^n n!``."""
    return (_odd_product(successes) * _odd_product(trials - successes),
            (1 << trials) * math.factorial(trials))  # fmt: skip


def kt_probability(successes: int, trials: int) -> Fraction:
    """The Krichevsky-Trofimov probability of one sequence of ``trials`` Bernoulli trials with
    ``successes`` successes: the Beta(1/2, 1/2) mixture, ``prod (s_i + 1/2) / (i + 1)`` over the
    trials, which does not depend on their order.

    :raises RulesError: for counts that cannot be.
    """
    Tally(trials, successes)  # validates
    numerator, denominator = _kt_terms(successes, trials)
    return Fraction(numerator, denominator)


def _ml_terms(successes: int, trials: int) -> tuple[int, int]:
    """Numerator and denominator of :func:`max_likelihood`: ``s^s f^f`` and ``n^n`` (0^0 = 1)."""
    failures = trials - successes
    return successes**successes * failures**failures, trials**trials


def max_likelihood(successes: int, trials: int) -> Fraction:
    """The largest probability any one Bernoulli rate gives a sequence of ``trials`` trials with
    ``successes`` successes: ``p^s (1-p)^(n-s)`` at ``p = s/n`` (1 for no trials).

    :raises RulesError: for counts that cannot be.
    """
    Tally(trials, successes)  # validates
    numerator, denominator = _ml_terms(successes, trials)
    return Fraction(numerator, denominator)


def _e_terms(tally: Tally) -> tuple[int, int]:
    """:func:`e_value` as an unreduced numerator and denominator."""
    in_num, in_den = _kt_terms(tally.bets_in, tally.windows)
    out_num, out_den = _kt_terms(tally.bets_out, tally.outside)
    ml_num, ml_den = _ml_terms(tally.bets, tally.rounds)
    return in_num * out_num * ml_den, in_den * out_den * ml_num


def e_value(tally: Tally) -> Fraction:
    """The seat's evidence of betting with the cards, as an exact e-value (see the module text):
    how much likelier its record is if it bets at one rate in windows and another outside than
    if it bets at one rate throughout. Under the null, ``P(sup E >= x) <= 1/x``."""
    numerator, denominator = _e_terms(tally)
    return Fraction(numerator, denominator)


def _log_kt(successes: int, trials: int) -> float:
    """``ln KT(successes, trials)`` = ln Γ(s + 1/2) + ln Γ(f + 1/2) - ln π - ln Γ(n + 1)."""
    failures = trials - successes
    return math.lgamma(successes + 0.5) + math.lgamma(failures + 0.5) - _LN_PI - math.lgamma(trials + 1)


def _log_ml(successes: int, trials: int) -> float:
    """``ln ML(successes, trials)`` = s ln(s/n) + f ln(f/n) (0 ln 0 = 0)."""
    return sum(count * math.log(count / trials) for count in (successes, trials - successes) if count)


def log_e_value(tally: Tally) -> float:
    """``ln`` of :func:`e_value`, in floating point (within :data:`FILTER_MARGIN` of the exact value)."""
    return (_log_kt(tally.bets_in, tally.windows) + _log_kt(tally.bets_out, tally.outside)
            - _log_ml(tally.bets, tally.rounds))  # fmt: skip


def exceeds(tally: Tally, level: Fraction) -> bool:
    """The alarm: ``e_value(tally) >= 1/level`` and the seat bets at a higher rate in windows.

    The answer is the exact comparison of integers. It is filtered, as exact geometric
    predicates are: the floating-point :func:`log_e_value`, whose error is many orders of
    magnitude below :data:`FILTER_MARGIN`, settles the cases farther than the margin from
    the threshold, and the integers settle the rest; so the answer is the same on every
    machine, in every replay. Under the null its chance of being true at any round of the
    day is at most ``level``.

    :raises RulesError: unless ``0 < level <= 1``.
    """
    if not 0 < level <= 1:
        raise RulesError(f"level {level}: must be above 0 and at most 1")
    if not tally.concentrated:
        return False
    gap = log_e_value(tally) + math.log(level.numerator) - math.log(level.denominator)
    if abs(gap) > FILTER_MARGIN:
        return gap > 0
    return exceeds_exactly(tally, level)


def exceeds_exactly(tally: Tally, level: Fraction) -> bool:
    """:func:`exceeds` on integers alone (no filter): ``E * level >= 1``, one-sided."""
    if not tally.concentrated:
        return False
    numerator, denominator = _e_terms(tally)
    return numerator * level.numerator >= denominator * level.denominator


def table_day(at: float, day: GamingDay) -> int:
    """The table-day that time ``at`` (seconds since the epoch: the table's corrected time) falls
    in: the profile's gaming day (:mod:`firmware_host.rules.gaming_day`), as a whole number."""
    return day.number(at)


@dataclasses.dataclass(frozen=True)
class DetectionPolicy:
    """How advantage play is looked for (the ``[protection]`` options of detection).

    :param alpha: the false-alarm budget per table-day (exact; 0 < alpha < 1).
    :param big_wager: a wager of at least this many cents is big (the size check, wonging).
    :param late_share: a seat comes in late in a shoe when its first wager of the shoe is
        after this share of the shoe's cards is dealt (wonging).
    :param gaming_day: the table-day is the profile's gaming day (``[gaming_day]``).
    :raises RulesError: for a value out of range.
    """

    alpha: Fraction = Fraction(1, 20)
    big_wager: int = 10_000
    late_share: Fraction = Fraction(1, 2)
    gaming_day: GamingDay = GamingDay()

    def __post_init__(self) -> None:
        if not isinstance(self.alpha, Fraction) or not 0 < self.alpha < 1:
            raise RulesError(f"alpha {self.alpha!r}: must be a fraction above 0 and below 1")
        if isinstance(self.big_wager, bool) or not isinstance(self.big_wager, int) or self.big_wager < 1:
            raise RulesError(f"big_wager {self.big_wager!r}: must be a whole number of cents, at least 1")
        if not isinstance(self.late_share, Fraction) or not 0 <= self.late_share <= 1:
            raise RulesError(f"late_share {self.late_share!r}: must be a fraction from 0 to 1")
        if not isinstance(self.gaming_day, GamingDay):
            raise RulesError(f"gaming_day {self.gaming_day!r}: must be a GamingDay")

    def level(self, kinds: int) -> Fraction:
        """The level each seat, kind and check is tested at: ``alpha`` over ``7 x kinds x 2``."""
        return self.alpha / (SEAT_COUNT * max(kinds, 1) * len(CHECKS))


@dataclasses.dataclass(frozen=True)
class Evidence:
    """An alarm: the seat, the kind, the check and the record that raised it.

    :param seat: the seat (1-7).
    :param kind: the wager kind.
    :param check: ``presence`` or ``size`` (:data:`CHECKS`).
    :param tally: the seat's record on the kind for the check.
    :param level: the level it was tested at (:meth:`DetectionPolicy.level`).
    :param wonging: the seat came in late in every shoe it played and bet big in a window.
    """

    seat: int
    kind: str
    check: str
    tally: Tally
    level: Fraction
    wonging: bool

    def to_json(self) -> dict[str, Any]:
        """The alert's evidence, JSON-plain: the counts, the e-value's and threshold's log10
        (floats, for people: the alarm itself was decided on integers), the level as text."""
        numerator, denominator = _e_terms(self.tally)
        return {
            "seat": self.seat, "wager": self.kind, "check": self.check,
            "bets_in_windows": self.tally.bets_in, "windows": self.tally.windows,
            "bets_outside": self.tally.bets_out, "rounds_outside": self.tally.outside,
            "statistic": "e-value",
            "log10_e_value": _log10_3(Fraction(numerator, denominator)),
            "log10_threshold": _log10_3(1 / self.level),
            "level": f"{self.level.numerator}/{self.level.denominator}",
            "wonging": self.wonging,
        }  # fmt: skip

    def text(self) -> str:
        """One line for people."""
        what = "bet" if self.check == "presence" else "bet big on"
        data = self.to_json()
        late = "; came in late in every shoe (wonging)" if self.wonging else ""
        return (f"seat {self.seat} {what} {self.kind} in {self.tally.bets_in} of {self.tally.windows} advantage "
                f"windows and {self.tally.bets_out} of {self.tally.outside} other rounds (e-value 10^"
                f"{data['log10_e_value']:g}, threshold 10^{data['log10_threshold']:g}){late}")  # fmt: skip


#: A seat's wagers in one round: (seat, kind) -> cents.
Wagers = Mapping[tuple[int, str], int]


@dataclasses.dataclass(frozen=True)
class Watch:
    """One table-day's records of every seat, kind and check, and the alarms raised.

    Every round observed counts for every seat, so only the bets are kept per seat; the
    rounds in and out of windows are kept per kind (:meth:`tally` puts them together).

    It holds no policy (the profile's, passed to :meth:`observe`), so a checkpoint holds
    only counts.

    :param kinds: the wager kinds offered, in the registry's order (:mod:`~firmware_host.rules.baccarat.wagers`).
    :param day: the table-day (:func:`table_day`) these records are of (None: none yet).
    """

    kinds: tuple[str, ...]
    day: int | None = None
    rounds: int = 0
    #: Rounds that were windows, by kind.
    windows: Mapping[str, int] = dataclasses.field(default_factory=dict)
    #: Rounds a seat bet (bet big), by (seat, kind, check, in a window).
    bets: Mapping[tuple[int, str, str, bool], int] = dataclasses.field(default_factory=dict)
    #: (seat, kind) already alarmed today, by either check: each alarms once a day.
    alarmed: frozenset[tuple[int, str]] = frozenset()
    #: (seat, kind) that made a big wager inside a window today.
    big_in_window: frozenset[tuple[int, str]] = frozenset()
    #: Shoes each seat played today, and of those the shoes it came in late in.
    shoes_played: Mapping[int, int] = dataclasses.field(default_factory=dict)
    shoes_late: Mapping[int, int] = dataclasses.field(default_factory=dict)
    #: The shoe each seat last wagered in (its arrival in a shoe is its first wager there).
    last_shoe: Mapping[int, int] = dataclasses.field(default_factory=dict)

    @classmethod
    def for_kinds(cls, offered: Iterable[str]) -> Watch:
        """An empty watch of the kinds ``offered``.

        :raises RulesError: for a kind no wager kind has.
        """
        return cls(in_wager_order(offered))

    def tally(self, seat: int, kind: str, check: str) -> Tally:
        """Seat ``seat``'s record on ``kind`` for ``check`` today."""
        windows = self.windows.get(kind, 0)
        return Tally(windows, self.bets.get((seat, kind, check, True), 0), self.rounds - windows,
                     self.bets.get((seat, kind, check, False), 0))  # fmt: skip

    def wonging(self, seat: int, kind: str) -> bool:
        """The seat came in late in every shoe it played today and bet big on ``kind`` in a window."""
        played = self.shoes_played.get(seat, 0)
        return played > 0 and self.shoes_late.get(seat, 0) == played and (seat, kind) in self.big_in_window

    def observe(
        self, policy: DetectionPolicy, day: int, shoe: int, dealt: Fraction, windows: Iterable[str], wagers: Wagers
    ) -> tuple[Watch, list[Evidence]]:
        """One round closed for betting: what it was a window for, and every seat's wagers.

        :param policy: the detection policy.
        :param day: the round's table-day (a new day starts new records and a new budget).
        :param shoe: the shoe's number (a seat's first wager in a shoe is its arrival there).
        :param dealt: the share of the shoe's cards dealt before the round (0 to 1).
        :param windows: the kinds the round was an advantage window for.
        :param wagers: ``(seat, kind) -> cents`` of every wager standing at no more bets.
        :returns: the watch after the round, and the alarms it raises (each once a day).
        """
        watch = self if self.day == day else Watch(self.kinds, day)
        open_kinds = frozenset(windows) & set(watch.kinds)
        counts = dict(watch.windows)
        for kind in watch.kinds:  # in wager order, not the set's: a checkpoint holds the dict's order
            if kind in open_kinds:
                counts[kind] = counts.get(kind, 0) + 1
        bets, big, looked = dict(watch.bets), set(watch.big_in_window), []
        played, late, last = dict(watch.shoes_played), dict(watch.shoes_late), dict(watch.last_shoe)
        for (seat, kind), amount in sorted(wagers.items()):
            if kind not in watch.kinds or amount <= 0:
                continue
            window = kind in open_kinds
            checks = ("presence", "size") if amount >= policy.big_wager else ("presence",)
            for check in checks:
                key = (seat, kind, check, window)
                bets[key] = bets.get(key, 0) + 1
                if window:
                    looked.append((seat, kind, check))
            if window and amount >= policy.big_wager:
                big.add((seat, kind))
            if last.get(seat) != shoe:
                last[seat] = shoe
                played[seat] = played.get(seat, 0) + 1
                late[seat] = late.get(seat, 0) + (dealt >= policy.late_share)
        watch = dataclasses.replace(watch, rounds=watch.rounds + 1, windows=counts, bets=bets,
                                    big_in_window=frozenset(big), shoes_played=played, shoes_late=late,
                                    last_shoe=last)  # fmt: skip
        return watch.review(policy, looked)

    def review(
        self, policy: DetectionPolicy, keys: Iterable[tuple[int, str, str]] | None = None
    ) -> tuple[Watch, list[Evidence]]:
        """Test ``keys`` (seat, kind, check; None: every one with a bet in a window) and raise
        the alarms due, one per seat and kind a day (presence tested first). :meth:`observe` tests those that just bet in a window; the caller may
        review all at other moments (the end of a shoe): Ville's bound holds at any moments."""
        if keys is None:
            keys = sorted({(seat, kind, check) for seat, kind, check, window in self.bets if window})
        level, found, alarmed = policy.level(len(self.kinds)), [], set(self.alarmed)
        for seat, kind, check in keys:
            if (seat, kind) in alarmed:
                continue
            tally = self.tally(seat, kind, check)
            if exceeds(tally, level):
                alarmed.add((seat, kind))
                found.append(Evidence(seat, kind, check, tally, level, self.wonging(seat, kind)))
        if not found:
            return self, []
        return dataclasses.replace(self, alarmed=frozenset(alarmed)), found


def _log10_3(value: Fraction) -> float:
    """log10 of ``value`` to 3 decimals, the same on every machine: the decimal module's log10 is
    correctly rounded (libm's ``math.log10`` may differ in its last bit between x86 and the Pi's
    aarch64, and a replay compares the decisions' data bit for bit)."""
    with decimal.localcontext(decimal.Context(prec=60)):
        exact = decimal.Decimal(value.numerator).log10() - decimal.Decimal(value.denominator).log10()
        return float(exact.quantize(decimal.Decimal("0.001"), rounding=decimal.ROUND_HALF_EVEN))
