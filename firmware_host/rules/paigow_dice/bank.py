"""The player bank between rounds: who is offered the bank, who may take it (§ 535.11(b)-(g),
§ 621a.9(b)-(g)).

:class:`BankState` is what the controller keeps from round to round; every function here
is pure and returns new values. A round goes:

1. :func:`bank_offer_order` lists the players the dealer offers the bank to, in order;
2. :func:`take_bank` checks the one who accepts (the dealer's button confirms the chips)
   and returns a :class:`BankRound`; :func:`check_bank_areas` and :func:`check_cut` check
   what the bank does next;
3. :func:`after_round` gives the state for the next round.

Seats stand for players: the state follows betting positions 1..6, not people.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import Final, Literal, cast

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.delivery import Cut
from firmware_host.rules.paigow_dice.position import SEATS, check_seat
from firmware_host.rules.paigow_dice.rules import PaiGowRules

#: ``offer_start`` when the offer has come back to the dealer: no player is offered the bank.
DEALER_TURN: Final = "dealer"


@dataclasses.dataclass(frozen=True)
class BankState:
    """The player-bank rotation between rounds.

    :param rounds_played: rounds finished since the start of the game (§ 535.11(b)).
    :param offer_start: the seat offered the bank first in the coming round, or
        ``"dealer"`` when the offer has returned to the dealer (§ 535.11(c)).
    :param last_bank: the seat that banked the last round, if a player did (§ 535.11(c):
        nobody banks two consecutive rounds).
    :param wagered_against_dealer: seats that wagered in the last round without a player
        bank (§ 535.11(d)(1)).
    """

    rounds_played: int = 0
    offer_start: int | Literal["dealer"] = SEATS[0]
    last_bank: int | None = None
    wagered_against_dealer: frozenset[int] = frozenset()


def new_game() -> BankState:
    """The state at the start of the game: after the tiles are restacked and shuffled under
    § 535.6, the first round is always banked by the dealer (§ 535.11(b))."""
    return BankState()


@dataclasses.dataclass(frozen=True)
class BankRound:
    """The player bank of one round.

    :param seat: the bank's betting position.
    :param co_bank: the casino covers half of the winning wagers (§ 535.11(e)).
    """

    seat: int
    co_bank: bool = False


def _no_offer_this_round(state: BankState, rules: PaiGowRules) -> str | None:
    """Why no player can bank the coming round, or ``None``."""
    if not rules.player_bank_offered:
        return "this casino's Rules Submission offers no player bank (§ 535.11(a))"
    if state.rounds_played == 0:
        return "no player may bank the first round of the game (§ 535.11(b))"
    if state.offer_start == DEALER_TURN:
        return "the offer of the bank has returned to the dealer this round (§ 535.11(c))"
    return None


def _barred(state: BankState, seat: int) -> str | None:
    """Why this seat's player may not bank whatever the chips, or ``None``."""
    if seat == state.last_bank:
        return f"seat {seat} banked the last round: no player banks two consecutive rounds (§ 535.11(c))"
    if seat not in state.wagered_against_dealer:
        return (
            f"seat {seat} placed no wager against the dealer in the last round without a player bank (§ 535.11(d)(1))"
        )
    return None


def bank_offer_order(state: BankState, seated: Collection[int], rules: PaiGowRules) -> tuple[int, ...]:
    """The seats offered the bank this round, in the order the dealer offers it.

    From ``state.offer_start`` counterclockwise around the table (§ 535.11(c)), each seated
    player once, leaving out players who may not bank (§ 535.11(c), (d)(1)). Empty when no
    player may bank this round.

    :param seated: the betting positions with a player.
    """
    if _no_offer_this_round(state, rules) is not None:
        return ()
    first = SEATS.index(cast(int, state.offer_start))  # not the dealer's turn: no offer above
    order = SEATS[first:] + SEATS[:first]
    return tuple(seat for seat in order if seat in seated and _barred(state, seat) is None)


def bank_refusal(state: BankState, seat: int, rules: PaiGowRules, *, covers_wagers: bool) -> str | None:
    """Why the player at ``seat`` may not bank this round, or ``None`` if they may.

    :param covers_wagers: the dealer confirmed that the player's chips cover every other
        player's wager this round (§ 535.11(d)(2)).
    """
    check_seat(seat)
    why = _no_offer_this_round(state, rules) or _barred(state, seat)
    if why is None and not covers_wagers:
        why = f"seat {seat} lacks the chips to cover the other players' wagers (§ 535.11(d)(2))"
    return why


def take_bank(
    state: BankState, seat: int, rules: PaiGowRules, *, covers_wagers: bool, co_bank: bool = False
) -> BankRound:
    """The player at ``seat`` accepts the bank.

    :param co_bank: the bank asks the casino to co-bank (§ 535.11(e)).
    :raises RulesError: with the reason the player may not bank or co-bank.
    """
    why = bank_refusal(state, seat, rules, covers_wagers=covers_wagers)
    if why is None and co_bank and not rules.co_banking_offered:
        why = "this casino's Rules Submission offers no co-banking (§ 535.11(e))"
    if why is not None:
        raise RulesError(f"seat {seat} may not bank: {why}")
    return BankRound(seat, co_bank)


def check_bank_areas(bank: BankRound, areas: Collection[int]) -> None:
    """A player bank wagers on one betting area only, its own (§ 535.11(f)).

    :param areas: every betting area on which the bank's player has a wager.
    :raises RulesError: if that is not exactly the bank's own area.
    """
    if set(areas) != {bank.seat}:
        raise RulesError(
            f"the bank at seat {bank.seat} may wager on its own betting area only (§ 535.11(f)), not on {sorted(areas)}"
        )


def check_cut(bank: BankRound | None, cut: Cut | None) -> None:
    """Only a player bank may cut the tiles, once (§ 535.11(g)).

    :raises RulesError: for a cut in a round without a player bank.
    """
    if cut is not None and bank is None:
        raise RulesError("only a player bank may cut the tiles (§ 535.11(g))")


def _seat_after(seat: int, rules: PaiGowRules) -> int | Literal["dealer"]:
    """The seat counterclockwise after ``seat``; after 6 the dealer, or seat 1 again."""
    if seat < SEATS[-1]:
        return seat + 1
    return DEALER_TURN if rules.bank_offer_returns_to_dealer else SEATS[0]


def after_round(state: BankState, bank: BankRound | None, wagered: Collection[int], rules: PaiGowRules) -> BankState:
    """The state for the next round once a round is finished.

    :param bank: the round's player bank, or ``None`` if the dealer banked.
    :param wagered: the seats with a wager this round (against the dealer when ``bank`` is
        ``None``; they become the players eligible under § 535.11(d)(1)).
    """
    if state.rounds_played == 0 or not rules.player_bank_offered:
        start = state.offer_start  # no offer was made: the rotation has not begun
    elif state.offer_start == DEALER_TURN:
        start = SEATS[0]
    elif bank is not None and rules.bank_offer_next == "after-bank":
        start = _seat_after(bank.seat, rules)
    else:
        start = _seat_after(state.offer_start, rules)
    return BankState(
        rounds_played=state.rounds_played + 1,
        offer_start=start,
        last_bank=None if bank is None else bank.seat,
        wagered_against_dealer=state.wagered_against_dealer if bank is not None else frozenset(wagered),
    )
