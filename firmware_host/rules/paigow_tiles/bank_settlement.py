"""Settling a round banked by a player, alone or co-banking with the house (§ 535.11, § 621a.9).

The flow of § 535.11(n)-(r) (§ 621a.9(n)-(r) reads the same):

* (n) the dealer's wager against the bank, if any, is decided first; if it loses it goes
  to the centre (the *pot*), if it ties it goes back to the table inventory;
* (o), (r) the players' hands are exposed from area 1 on; losing wagers go to the pot;
* winning wagers, the dealer's included, are paid from the pot; when the pot runs short
  the bank puts in what is still owed (co-banking: the bank and the house half each);
* (p) the dealer's winnings go to the table inventory; (q) each winning player pays the
  vigorish on what he won;
* a surplus left in the pot is the bank's, less the vigorish (co-banking: the house first
  takes half, and the vigorish is on the bank's half).
"""

from __future__ import annotations

from collections.abc import Sequence

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.compare import Outcome, compare_settings
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, OddCent, PaiGowTileRules
from firmware_host.rules.paigow_tiles.settlement import (
    BANK,
    HOUSE,
    POSITIONS,
    POT,
    VIGORISH,
    Ledger,
    Settlement,
    Wager,
    WagerAction,
    WagerResult,
    check_cents,
    check_wagers,
    commission_on,
    expose,
)


def dealer_wager_against_bank(
    rules: PaiGowTileRules,
    *,
    last_wager_against_dealer: int,
    bank_directs: int | None = None,
    co_banking: bool = False,
) -> int:
    """How much the dealer wagers against a player bank (§ 535.11(h)).

    The Rules Submission's fixed amount if it names one, else the bank's last wager against
    the dealer; the bank may direct a lesser amount or none. Co-banking: none.

    :param last_wager_against_dealer: cents the banking player last wagered against the dealer.
    :param bank_directs: the lesser amount the bank asks for, if it asks.
    :raises RulesError: an amount is not whole cents, or the bank asks for more.
    """
    check_cents("last wager against the dealer", last_wager_against_dealer)
    if co_banking:
        return 0
    standard = rules.dealer_wager_against_bank
    if standard is None:
        standard = last_wager_against_dealer
    if bank_directs is None:
        return standard
    check_cents("amount the bank directs", bank_directs)
    if bank_directs > standard:
        raise RulesError(
            f"the bank may only lower the dealer's wager: {bank_directs} cents asked, {standard} is the most"
            " (§ 535.11(h))"
        )
    return bank_directs


def settle_with_bank(
    bank: Setting,
    bank_position: int,
    wagers: Sequence[Wager],
    rules: PaiGowTileRules = DEFAULT_RULES,
    *,
    dealer: Setting | None = None,
    dealer_wager: int = 0,
    co_banking: bool = False,
    bank_player: str | None = None,
) -> Settlement:
    """Settle a round in which the player on ``bank_position`` banks (§ 535.11(n)-(r)).

    :param bank: the bank's hands (set by the dealer, the house way, when co-banking: § 535.11(e)).
    :param wagers: the other players' wagers.
    :param dealer: the dealer's hands (the house way), needed when ``dealer_wager`` is not 0.
    :param dealer_wager: cents the dealer wagers against the bank (:func:`dealer_wager_against_bank`).
    :param co_banking: the house covers half the winning wagers (§ 535.11(e), (r)).
    :param bank_player: the banking player's name, if wagers name their players (§ 535.11(f)).
    :raises RulesError: the dealer wagers while co-banking, the bank's area also holds a
        wager, or the bank wagers on another area. Whether this player may bank, and
        co-bank, at all (§ 535.11(a)-(e)) is :mod:`firmware_host.rules.paigow_dice.bank`'s to decide.
    """
    _check_bank(bank_position, wagers, dealer, dealer_wager, co_banking, bank_player)
    ordered = check_wagers(wagers, rules, bank, dealer if dealer_wager else None)
    flow = "§ 535.11(r)" if co_banking else "§ 535.11(o)"
    ledger = Ledger()
    winners: list[tuple[str, WagerResult]] = []

    dealer_result = None
    if dealer_wager:
        assert dealer is not None  # checked by _check_bank
        comparison = compare_settings(dealer, bank, rules)
        dealer_result = WagerResult(None, dealer_wager, comparison.outcome, comparison, 0, comparison.section)
        if comparison.outcome is Outcome.LOSE:
            ledger.move(HOUSE, POT, dealer_wager, "dealer's losing wager moved to the centre (§ 535.11(n))")
        elif comparison.outcome is Outcome.WIN:
            winners.append((HOUSE, dealer_result))

    for wager in ordered:
        if wager.action is WagerAction.SURRENDER:
            ledger.move(wager.party, POT, wager.amount, f"surrendered wager to the centre (§ 535.10(e), {flow})")
    results = [expose(wager, bank, rules) for wager in ordered]
    for wager, result in zip(ordered, results):
        if result.outcome is Outcome.LOSE:
            ledger.move(wager.party, POT, wager.amount, f"losing wager to the centre ({flow})")
        elif result.outcome is Outcome.WIN:
            winners.append((wager.party, result))

    owed = sum(result.amount for _, result in winners)
    shortfall = max(0, owed - ledger.held(POT))
    for party, result in winners:
        if ledger.held(POT) < result.amount:
            _collect_shortfall(ledger, owed, co_banking, rules)
        owed -= result.amount
        if result.position is None:
            ledger.move(POT, HOUSE, result.amount, "dealer's winning wager paid to the inventory (§ 535.11(o), (p))")
        else:
            ledger.move(POT, party, result.amount, f"winning wager paid 1 to 1 ({flow})")
            ledger.move(party, VIGORISH, result.commission, "vigorish on the amount won (§ 535.11(q), § 535.10(k))")

    surplus = ledger.held(POT)
    _distribute_surplus(ledger, surplus, co_banking, rules)
    return Settlement(
        tuple(results),
        tuple(ledger.movements),
        tuple(result.position for _, result in winners),
        dealer_result=dealer_result,
        bank_position=bank_position,
        co_banking=co_banking,
        shortfall=shortfall,
        surplus=surplus,
    )


def split_in_two(amount: int, odd_cent_to: OddCent) -> tuple[int, int]:
    """(bank's half, house's half) of ``amount`` cents for co-banking (§ 535.11(r))."""
    smaller = amount // 2
    larger = amount - smaller
    return (larger, smaller) if odd_cent_to is OddCent.BANK else (smaller, larger)


def _collect_shortfall(ledger: Ledger, owed: int, co_banking: bool, rules: PaiGowTileRules) -> None:
    remaining = owed - ledger.held(POT)
    if not co_banking:
        ledger.move(BANK, POT, remaining, "centre short: the bank covers the remaining winning wagers (§ 535.11(o))")
        return
    bank_half, house_half = split_in_two(remaining, rules.co_bank_odd_cent)
    ledger.move(BANK, POT, bank_half, "centre short: the co-bank covers half the remaining winnings (§ 535.11(r))")
    ledger.move(HOUSE, POT, house_half, "centre short: the house covers half the remaining winnings (§ 535.11(r))")


def _distribute_surplus(ledger: Ledger, surplus: int, co_banking: bool, rules: PaiGowTileRules) -> None:
    flow = "§ 535.11(r)" if co_banking else "§ 535.11(o)"
    banks_share = surplus
    if co_banking:
        banks_share, house_half = split_in_two(surplus, rules.co_bank_odd_cent)
        ledger.move(POT, HOUSE, house_half, "half the surplus to the table inventory (§ 535.11(r))")
    vigorish = commission_on(banks_share, rules)
    ledger.move(POT, VIGORISH, vigorish, f"vigorish on the bank's surplus ({flow}, § 535.10(k))")
    ledger.move(POT, BANK, banks_share - vigorish, f"the rest of the surplus to the bank ({flow})")


def _check_bank(
    bank_position: int,
    wagers: Sequence[Wager],
    dealer: Setting | None,
    dealer_wager: int,
    co_banking: bool,
    bank_player: str | None,
) -> None:
    if isinstance(bank_position, bool) or bank_position not in POSITIONS:
        raise RulesError(f"bank position {bank_position!r}: expected a betting area 1-6")
    check_cents("dealer's wager against the bank", dealer_wager)
    if co_banking and dealer_wager:
        raise RulesError("the dealer may not wager against the bank while co-banking (§ 535.11(e), (h))")
    if dealer_wager and dealer is None:
        raise RulesError("the dealer wagers against the bank but the dealer's hands are missing (§ 535.11(n))")
    for wager in wagers:
        if wager.position == bank_position:
            raise RulesError(f"betting area {bank_position} is the bank's; it cannot also hold a wager")
        if bank_player is not None and wager.player == bank_player:
            raise RulesError(f"the bank ({bank_player!r}) may wager on only one betting area, its own (§ 535.11(f))")
