"""Settling the wagers of a round against the dealer (§ 535.10(e)-(k), § 535.13).

Money is integer cents. Every chip that changes hands is a :class:`Movement` in the
settlement's ledger, between named parties:

``house``
    the table inventory container (the casino);
``vigorish``
    the vigorish the casino collects (kept apart from ``house`` so commission is explicit);
``position N``
    the player wagering on betting area N (1-6, § 535.2(b)(1)), whose wager stays his until
    it is collected;
``bank`` and ``pot``
    the player bank and the centre of the table, in :mod:`.bank_settlement`.

What leaves one party arrives at another, so the parties' nets always sum to zero.
Positions are exposed and paid in ascending order: betting area 1 is the one farthest to
the dealer's right, and the count runs counterclockwise (§ 535.8(c), § 535.10(f), (j)).
"""

from __future__ import annotations

import dataclasses
import enum
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.compare import Comparison, Outcome, check_same_set, compare_settings
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, CommissionRounding, PaiGowTileRules

HOUSE = "house"
VIGORISH = "vigorish"
BANK = "bank"
POT = "pot"
#: The betting areas of § 535.2(b)(1).
POSITIONS = range(1, 7)
#: § 535.10(k): the vigorish may be rounded up to a multiple of 25 cents.
QUARTER_CENTS = 25
_BASIS_POINTS_PER_UNIT = 10_000


def position_party(position: int) -> str:
    """The ledger name of the player on betting area ``position``."""
    return f"position {position}"


class WagerAction(enum.StrEnum):
    """What the player did with his wager before exposure."""

    PLAY = "play"
    #: § 535.10(e): surrendered after the dealer set his hands; the wager is collected.
    SURRENDER = "surrender"
    #: § 535.12(d): the player chose to void a hand whose tile the dealer exposed.
    VOID = "void"


@dataclasses.dataclass(frozen=True)
class Wager:
    """One betting area's wager and the hands its player set.

    :param position: betting area 1-6.
    :param amount: cents, more than zero.
    :param setting: the player's high and low hands (needed when the wager is played).
    :param action: played, surrendered or voided.
    :param player: who holds the area, when one player holds two (§ 535.13); ``None`` means
        a player of his own.
    :raises RulesError: a field is out of range.
    """

    position: int
    amount: int
    setting: Setting | None = None
    action: WagerAction = WagerAction.PLAY
    player: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.position, bool) or self.position not in POSITIONS:
            raise RulesError(f"wager position {self.position!r}: expected a betting area 1-6 (§ 535.2(b)(1))")
        check_cents(f"wager at position {self.position}", self.amount)
        if self.amount == 0:
            raise RulesError(f"wager at position {self.position}: the amount must be more than 0 cents")
        try:
            object.__setattr__(self, "action", WagerAction(self.action))
        except ValueError:
            choices = ", ".join(action.value for action in WagerAction)
            why = f"action {self.action!r} is not one of {choices}"
            raise RulesError(f"wager at position {self.position}: {why}") from None
        if self.action is WagerAction.PLAY and self.setting is None:
            raise RulesError(f"wager at position {self.position}: a played wager needs the player's set hands")

    @property
    def party(self) -> str:
        return position_party(self.position)


@dataclasses.dataclass(frozen=True)
class Movement:
    """Chips moving from one party to another."""

    source: str
    destination: str
    amount: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class WagerResult:
    """How one wager was settled.

    :param position: the betting area, or ``None`` for the dealer's wager against a player bank.
    :param comparison: the hands compared, if the wager was played.
    :param commission: vigorish the wagerer paid on a win.
    :param section: the regulation that decided it.
    """

    position: int | None
    amount: int
    outcome: Outcome
    comparison: Comparison | None
    commission: int
    section: str

    @property
    def net(self) -> int:
        """What the wagerer gained (+) or lost (-) in all, vigorish included."""
        if self.outcome is Outcome.WIN:
            return self.amount - self.commission
        if self.outcome in (Outcome.LOSE, Outcome.SURRENDER):
            return -self.amount
        return 0

    def to_json(self, banker_name: str = "dealer") -> dict[str, Any]:
        return {
            "position": self.position,
            "amount": self.amount,
            "outcome": self.outcome.value,
            "commission": self.commission,
            "net": self.net,
            "section": self.section,
            "comparison": self.comparison.to_json(banker_name) if self.comparison else None,
        }


@dataclasses.dataclass(frozen=True)
class Settlement:
    """A settled round: each wager's result and every movement of chips, in the order made.

    :param results: the players' wagers in order of exposure.
    :param ledger: the movements, in the order the dealer makes them.
    :param payment_order: who was paid, in order (a position, or ``None`` for the dealer's wager).
    :param dealer_result: the dealer's wager against a player bank (§ 535.11(n)), if any.
    :param bank_position: the player bank's betting area, if a player banked.
    :param co_banking: whether the house co-banked (§ 535.11(e), (r)).
    :param shortfall: winning wagers left unpaid when the centre ran out (§ 535.11(o), (r)).
    :param surplus: what stayed in the centre after every winner was paid (§ 535.11(o), (r)).
    """

    results: tuple[WagerResult, ...]
    ledger: tuple[Movement, ...]
    payment_order: tuple[int | None, ...]
    dealer_result: WagerResult | None = None
    bank_position: int | None = None
    co_banking: bool = False
    shortfall: int = 0
    surplus: int = 0

    def nets(self) -> dict[str, int]:
        """Each party's net gain (+) or loss (-); the values sum to zero."""
        nets: dict[str, int] = defaultdict(int)
        for movement in self.ledger:
            nets[movement.source] -= movement.amount
            nets[movement.destination] += movement.amount
        return dict(nets)

    def net(self, party: str) -> int:
        """One party's net gain (+) or loss (-)."""
        return self.nets().get(party, 0)

    @property
    def commission(self) -> int:
        """All vigorish collected this round."""
        return sum(movement.amount for movement in self.ledger if movement.destination == VIGORISH)

    def to_json(self) -> dict[str, Any]:
        banker_name = "dealer" if self.bank_position is None else "bank"
        return {
            "bank_position": self.bank_position,
            "co_banking": self.co_banking,
            "dealer_wager": self.dealer_result.to_json(banker_name) if self.dealer_result else None,
            "results": [result.to_json(banker_name) for result in self.results],
            "payment_order": list(self.payment_order),
            "shortfall": self.shortfall,
            "surplus": self.surplus,
            "commission": self.commission,
            "nets": self.nets(),
            "ledger": [movement.to_json() for movement in self.ledger],
        }


class Ledger:
    """Builds a settlement's movements and keeps each party's balance as it goes."""

    def __init__(self) -> None:
        self.movements: list[Movement] = []
        self._held: Counter[str] = Counter()

    def move(self, source: str, destination: str, amount: int, reason: str) -> None:
        """Record ``amount`` cents moving; nothing is recorded for zero."""
        if amount:
            self.movements.append(Movement(source, destination, amount, reason))
            self._held[source] -= amount
            self._held[destination] += amount

    def held(self, party: str) -> int:
        """What ``party`` has received less what it has given so far (the chips in the centre for ``pot``)."""
        return self._held[party]


def check_cents(what: str, amount: object) -> None:
    """Check that ``amount`` is a whole number of cents, zero or more.

    :raises RulesError: naming ``what``.
    """
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise RulesError(f"{what}: expected a whole number of cents, 0 or more, got {amount!r}")


def commission_on(amount_won: int, rules: PaiGowTileRules = DEFAULT_RULES) -> int:
    """The vigorish on ``amount_won`` cents (§ 535.10(k)).

    The commission percentage of the amount won, rounded up to the whole cent, or, under the
    ``quarter`` option, to 25 cents or the next highest multiple of 25 cents. It never exceeds
    the amount won, so a win is never worth less than a tie.
    """
    check_cents("amount won", amount_won)
    scaled = amount_won * rules.commission_basis_points
    step = QUARTER_CENTS if rules.commission_rounding is CommissionRounding.QUARTER else 1
    divisor = _BASIS_POINTS_PER_UNIT * step
    rounded_up = -(-scaled // divisor) * step
    return min(rounded_up, amount_won)


def check_wagers(
    wagers: Sequence[Wager], rules: PaiGowTileRules, *banker_settings: Setting | None
) -> tuple[Wager, ...]:
    """Check a table's wagers and return them in order of exposure.

    :raises RulesError: two wagers on one area, a player on two areas the Rules Submission
        does not allow (§ 535.13(a)), or more tiles than one set holds.
    """
    ordered = tuple(sorted(wagers, key=lambda wager: wager.position))
    for before, after in zip(ordered, ordered[1:]):
        if before.position == after.position:
            raise RulesError(f"two wagers on betting area {before.position}")
    by_player: dict[str, list[int]] = defaultdict(list)
    for wager in ordered:
        if wager.player is not None:
            by_player[wager.player].append(wager.position)
    for player, positions in by_player.items():
        _check_areas_of_one_player(player, positions, rules)
    settings = [wager.setting for wager in ordered if wager.setting is not None]
    check_same_set(*settings, *(setting for setting in banker_settings if setting is not None))
    return ordered


def two_area_setting_order(first: Wager, second: Wager) -> tuple[Wager, Wager]:
    """The order in which a player on two areas must set his hands (§ 535.13(b)).

    The larger wager first; with equal wagers, counterclockwise (the lower area first).
    """
    if (second.amount, -second.position) > (first.amount, -first.position):
        return (second, first)
    return (first, second)


def settle_against_dealer(
    dealer: Setting, wagers: Sequence[Wager], rules: PaiGowTileRules = DEFAULT_RULES
) -> Settlement:
    """Settle every wager against the dealer's hands (§ 535.10(e)-(k)).

    Surrendered wagers are collected first (§ 535.10(e)); hands are then exposed from
    area 1 on, losing wagers collected at once (§ 535.10(g)), ties returned (§ 535.10(i)),
    and winners paid 1 to 1 less the vigorish after all are exposed (§ 535.10(j), (k)).

    :raises RulesError: see :func:`check_wagers`.
    """
    ordered = check_wagers(wagers, rules, dealer)
    ledger = Ledger()
    for wager in ordered:
        if wager.action is WagerAction.SURRENDER:
            ledger.move(wager.party, HOUSE, wager.amount, "surrendered wager collected (§ 535.10(e))")
    results = [expose(wager, dealer, rules) for wager in ordered]
    for wager, result in zip(ordered, results):
        if result.outcome is Outcome.LOSE:
            ledger.move(wager.party, HOUSE, wager.amount, "losing wager collected (§ 535.10(g))")
    paid = []
    for wager, result in zip(ordered, results):
        if result.outcome is Outcome.WIN:
            ledger.move(HOUSE, wager.party, wager.amount, "winning wager paid 1 to 1 (§ 535.10(j), (k))")
            ledger.move(wager.party, VIGORISH, result.commission, "vigorish on the amount won (§ 535.10(k))")
            paid.append(wager.position)
    return Settlement(tuple(results), tuple(ledger.movements), tuple(paid))


def expose(wager: Wager, banker: Setting, rules: PaiGowTileRules) -> WagerResult:
    """The result of one wager against the banker side's hands, before any chips move."""
    if wager.action is WagerAction.SURRENDER:
        return WagerResult(wager.position, wager.amount, Outcome.SURRENDER, None, 0, "535.10(e)")
    if wager.action is WagerAction.VOID:
        return WagerResult(wager.position, wager.amount, Outcome.VOID, None, 0, "535.12(d)")
    assert wager.setting is not None  # checked by Wager
    comparison = compare_settings(wager.setting, banker, rules)
    commission = commission_on(wager.amount, rules) if comparison.outcome is Outcome.WIN else 0
    return WagerResult(wager.position, wager.amount, comparison.outcome, comparison, commission, comparison.section)


def _check_areas_of_one_player(player: str, positions: Iterable[int], rules: PaiGowTileRules) -> None:
    areas = sorted(positions)
    if len(areas) == 1:
        return
    if not rules.two_adjacent_areas:
        raise RulesError(
            f"player {player!r} wagers on areas {areas}; the Rules Submission does not allow two areas (§ 535.13(a))"
        )
    if len(areas) > 2 or areas[1] - areas[0] != 1:
        raise RulesError(
            f"player {player!r} wagers on areas {areas}; only two adjacent areas are allowed (§ 535.13(a))"
        )
