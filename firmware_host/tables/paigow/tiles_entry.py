"""Tiles entered at the table after the deal: the dealer's house way, compare, settle (issue 8 item 8).

The dealer (from a console, or a CLI on the bench) enters the dealer's four tiles and each
wagered position's hands as the arguments of ``DealerCommand("tiles", ...)``::

    {"dealer": ["6-6", "4-5", "1-3", "2-2"],
     "hands": {"3": "5-5,1-5/2-2,3-4", "5": "1-1,2-6,3-3,1-4", "6": "surrender"}}

A hand is written ``HIGH/LOW`` (the player's own setting, § 535.10(a)), as four tiles
(text ``"a,b,c,d"`` or a list: the player asked to have them set the house way,
§ 535.10(b)), or ``"surrender"`` (§ 535.10(e)). The dealer's tiles, four of them, are set by
the house way (§ 535.10(d)); entered as ``HIGH/LOW`` they are the dealer's own setting,
reset to the house way if it differs (§ 535.12(f)). With a player bank the bank's hands are
entered under its position; a co-bank's hands are set by the dealer the house way
(§ 535.11(e)). The money moves by :func:`~firmware_host.rules.paigow_tiles.settle_against_dealer`
or :func:`~firmware_host.rules.paigow_tiles.settle_with_bank`; every movement is in the result,
so the round can be reconstructed from the journal (§ 535.10(l)).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.bank import BankRound
from firmware_host.rules.paigow_dice.position import check_seat
from firmware_host.rules.paigow_tiles import (
    PaiGowTileRules,
    Ruling,
    Setting,
    Wager,
    WagerAction,
    check_dealer_setting,
    house_way,
    parse_tiles,
    settle_against_dealer,
    settle_with_bank,
)

__all__ = ["SURRENDER", "EnteredTiles", "settle_entered_tiles"]

#: The hand value that surrenders a wager (§ 535.10(e)).
SURRENDER = "surrender"
#: The keys of the ``tiles`` command's arguments.
_ENTRY_KEYS = frozenset({"dealer", "hands"})


@dataclasses.dataclass(frozen=True)
class _Hands:
    """One set of hands as entered and as played.

    :param setting: the hands played.
    :param how: ``"player"`` (set by its owner), ``"house_way"`` (set by the house way).
    :param reset: the § 535.12(f) ruling when the entered setting was not the house way's.
    """

    setting: Setting
    how: str
    reset: Ruling | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "setting": self.setting.text,
            "set_by": self.how,
            "reset": None if self.reset is None else self.reset.to_json(),
        }


@dataclasses.dataclass(frozen=True)
class EnteredTiles:
    """The settlement of one round from the tiles entered.

    :param dealer: the dealer's hands, or ``None`` when the dealer had none in play.
    :param bank: the player bank's hands, or ``None`` without a player bank.
    :param hands: each wagered position's entry: its setting text, ``"surrender"`` or ``"void"``.
    :param settlement: the money, as :meth:`Settlement.to_json` gives it.
    :param resets: the § 535.12(f) rulings (hands not set the house way, reset).
    """

    dealer: _Hands | None
    bank: _Hands | None
    hands: dict[str, str]
    settlement: dict[str, Any]
    resets: tuple[Ruling, ...]

    def to_json(self) -> dict[str, Any]:
        """The ``settlement`` field of the round result (JSON-plain)."""
        return {
            "dealer": None if self.dealer is None else self.dealer.to_json(),
            "bank": None if self.bank is None else self.bank.to_json(),
            "hands": dict(self.hands),
            **self.settlement,
        }


def settle_entered_tiles(
    entry: Mapping[str, Any],
    wagers: Mapping[int, int],
    rules: PaiGowTileRules,
    *,
    bank: BankRound | None = None,
    dealer_wager: int = 0,
    void_seats: Collection[int] = (),
) -> EnteredTiles:
    """Set the dealer's (and a co-bank's) hands, compare and settle the round.

    :param entry: the ``tiles`` command's arguments (see the module docstring).
    :param wagers: cents wagered at each betting area (the bank's own area excluded).
    :param bank: the round's player bank, if any.
    :param dealer_wager: cents the dealer wagers against the player bank (§ 535.11(h)).
    :param void_seats: areas whose player voided the hand after an exposed tile (§ 535.12(d)).
    :raises RulesError: naming the entry that is missing, malformed or impossible.
    """
    unknown = sorted(set(entry) - _ENTRY_KEYS)
    if unknown:
        raise RulesError(f"tiles: unknown argument {unknown[0]!r}: give 'dealer' and 'hands'")
    entered = _hands_by_seat(entry.get("hands", {}))
    bank_seat = None if bank is None else bank.seat
    for seat in entered:
        if seat != bank_seat and seat not in wagers:
            raise RulesError(f"tiles: position {seat} has no wager; its tiles went to the Dead Hand (§ 535.8(e))")
    dealer = _dealer_hands(entry.get("dealer"), rules, needed=bank is None or dealer_wager > 0)
    bank_hands = None if bank is None else _bank_hands(entered.get(bank.seat), bank, rules)

    played: list[Wager] = []
    shown: dict[str, str] = {}
    for seat in sorted(wagers):
        value = entered.get(seat)
        if seat in void_seats:
            played.append(Wager(seat, wagers[seat], action=WagerAction.VOID))
            shown[str(seat)] = "void"
        elif value == SURRENDER:
            played.append(Wager(seat, wagers[seat], action=WagerAction.SURRENDER))
            shown[str(seat)] = SURRENDER
        elif value is None:
            raise RulesError(f"tiles: position {seat} has a wager of {wagers[seat]} cents but no hands entered")
        else:
            hands = _player_hands(value, f"position {seat}", rules)
            played.append(Wager(seat, wagers[seat], hands.setting))
            shown[str(seat)] = hands.setting.text

    if bank is None:
        assert dealer is not None  # needed without a player bank
        settlement = settle_against_dealer(dealer.setting, played, rules)
    else:
        assert bank_hands is not None
        settlement = settle_with_bank(
            bank_hands.setting,
            bank.seat,
            played,
            rules,
            dealer=None if dealer is None else dealer.setting,
            dealer_wager=dealer_wager,
            co_banking=bank.co_bank,
        )
    resets = tuple(hands.reset for hands in (dealer, bank_hands) if hands is not None and hands.reset is not None)
    return EnteredTiles(dealer, bank_hands, shown, settlement.to_json(), resets)


def _hands_by_seat(raw: object) -> dict[int, object]:
    if not isinstance(raw, Mapping):
        raise RulesError(f'tiles: hands must map positions to hands, e.g. {{"3": "6-6,4-5/1-3,2-2"}}, not {raw!r}')
    out: dict[int, object] = {}
    for key, value in raw.items():
        # A position is one or two digits (the controller's argument check bounds the key; this
        # bounds it again for any other caller): int() of a longer text may be refused by Python.
        text = key.strip() if isinstance(key, str) else ""
        seat = check_seat(int(text) if text.isdecimal() and len(text) <= 2 else key, "tiles: hands position")
        out[seat] = value.strip().lower() if isinstance(value, str) and value.strip().lower() == SURRENDER else value
    return out


def _text(value: object, what: str) -> str:
    """A hand as text: ``"a,b,c,d"``, ``"H/L"``, or a list of tile texts joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(tile, str) for tile in value):
        return ",".join(value)
    raise RulesError(f"tiles: {what}: expected HIGH/LOW text or four tiles, got {value!r}")


def _player_hands(value: object, what: str, rules: PaiGowTileRules) -> _Hands:
    """A player's (or the bank's) hands: his own setting, or four tiles set the house way (§ 535.10(b))."""
    text = _text(value, what)
    try:
        if "/" in text:
            return _Hands(Setting.parse(text), "player")
        return _Hands(house_way(parse_tiles(text, count=4), rules).setting, "house_way")
    except RulesError as exc:
        raise RulesError(f"tiles: {what}: {exc}") from exc


def _house_way_hands(value: object, what: str, rules: PaiGowTileRules) -> _Hands:
    """Hands the dealer sets: the house way (§ 535.10(d)); an entered setting that differs is
    reset to it (§ 535.12(f))."""
    hands = _player_hands(value, what, rules)
    if hands.how == "house_way":
        return hands
    reset = check_dealer_setting(hands.setting, rules)
    if reset is None:
        return _Hands(hands.setting, "house_way")
    assert reset.dealer_setting is not None
    return _Hands(reset.dealer_setting, "house_way", reset)


def _dealer_hands(value: object, rules: PaiGowTileRules, *, needed: bool) -> _Hands | None:
    if value is None and needed:
        raise RulesError("tiles: enter the dealer's four tiles ('dealer')")
    if value is not None and not needed:
        raise RulesError(
            "tiles: the dealer places no wager against the bank, so the dealer's tiles "
            "went to the Dead Hand (§ 535.11(l)): leave 'dealer' out"
        )
    return None if value is None else _house_way_hands(value, "dealer", rules)


def _bank_hands(value: object, bank: BankRound, rules: PaiGowTileRules) -> _Hands:
    what = f"bank (position {bank.seat})"
    if value is None or value == SURRENDER:
        raise RulesError(f"tiles: enter the hands of the {what}")
    if bank.co_bank:
        return _house_way_hands(value, what, rules)  # § 535.11(e): the dealer sets a co-bank's hands
    return _player_hands(value, what, rules)
