"""The Pai Gow table's dealer commands: their names and arguments, and how arguments are read.

:data:`COMMANDS` is every ``DealerCommand.command`` the table understands, with its arguments
(the facade, :class:`~.controller.PaiGowTable`, hands each to the collaborator that applies
it); :data:`TAKES` is what each takes, checked by :func:`~firmware_host.tables.arguments.check_command`
before any handler runs (types, ranges and sizes, issue 20 item 3); :data:`ADVANCING` are those
refused while the table is paused. :func:`flag` and :func:`seats` read a command's true/false
and list arguments, refusing anything else by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.delivery import STACKS
from firmware_host.rules.paigow_dice.position import SEATS, check_seat
from firmware_host.tables.arguments import Check, boolean, either, list_of, map_of, text, whole

__all__ = ["ADVANCING", "COMMANDS", "REASON_LONGEST", "TAKES", "flag", "seats"]

#: Dealer commands (``DealerCommand.command``) the table understands, with their args.
COMMANDS: dict[str, str] = {
    "no_more_bets": "no more bets (§ 535.7(c), § 535.8(a)); refused without a registered, unexpired dice set",
    "bank": '{"seat": K, "co_bank": bool, "chips_confirmed": true, "dealer_wager": cents (optional: the bank '
    'directs less, § 535.11(h)), "areas": [K] (optional: every area the player wagers on, § 535.11(f))}: '
    "the player at K accepts the bank (§ 535.11(c)-(f))",
    "no_bank": "no player accepts the bank: the dealer banks the round (§ 535.11(c))",
    "style": '{"name": STYLE}: delivery style (§ 535.9, § 535.11(i)); before the first shake',
    "cut": '{"to_right_end": [stacks], "to_left_end": [stacks]} or {"stacks": N}: the player bank\'s cut '
    "(§ 535.11(g)); before the first shake",
    "reveal": "the dealer removes the lid (§ 535.8(b)); a reveal before the third shake is a no roll",
    "lid_removed_by_bank": "the player bank lifted the lid: no roll, cover and reshake (§ 535.11(i))",
    "delivered": "every stack is delivered as prompted (§ 535.8(d), § 535.11(k))",
    "tiles": '{"dealer": [4 tiles] or "H/L", "hands": {"K": "H/L" | "a,b,c,d" | "surrender"}}: '
    "the tiles at the table; house way, compare, settle (§ 535.10, § 535.11(n)-(r))",
    "round_complete": "the round is settled by hand without entering the tiles",
    "tile_exposed": '{"holder": "player"|"dealer"|"dead_hand"|"unwagered"|"bank", "seat": K, "void": bool}: '
    "a dealt tile was exposed (§ 535.12(d), (e))",
    "void_round": '{"reason": text} (optional): void the round, wagers returned (e.g. § 535.12(c))',
    "new_dice": "a new dice set is in the shaker: the 24-hour clock restarts (§ 535.5(c))",
    "new_game": "the tiles were restacked (§ 535.6): a new game, the first round has no player bank (§ 535.11(b))",
    "withdraw_wager": '{"seat": K}: take a wager back before no more bets (§ 535.7(c))',
    "acknowledge": "acknowledge a device whose serial number changed (otherwise nothing waits for it)",
}
#: The longest reason the dealer may give for voiding a round.
REASON_LONGEST = 200
_SEAT = whole(min(SEATS), max(SEATS))
#: Cents: never negative, and exact in any JSON reader (2**53).
_CENTS = whole(0, 2**53)
#: A hand: ``"HIGH/LOW"`` or ``"a,b,c,d"`` text (15 characters, blanks allowed), or four tile texts.
_HAND = either(text(64), list_of(text(8), 4), expected="HIGH/LOW text or four tiles")
_STACK = whole(1, STACKS)
#: The arguments each command takes (:func:`~firmware_host.tables.arguments.check_command`).
TAKES: dict[str, dict[str, Check]] = {
    "no_more_bets": {},
    "bank": {
        "seat": _SEAT,
        "co_bank": boolean(),
        "chips_confirmed": boolean(),
        "dealer_wager": _CENTS,
        "areas": list_of(_SEAT, len(SEATS)),
    },
    "no_bank": {},
    "style": {"name": text(64)},
    "cut": {
        "to_right_end": list_of(_STACK, STACKS),
        "to_left_end": list_of(_STACK, STACKS),
        "stacks": whole(1, STACKS - 1),
    },
    "reveal": {},
    "lid_removed_by_bank": {},
    "delivered": {},
    # A position's key is text as JSON gives it ("3"), or the number itself.
    "tiles": {
        "dealer": _HAND,
        "hands": map_of(either(text(2), _SEAT, expected="a position 1 to 6"), _HAND, len(SEATS)),
    },
    "round_complete": {},
    "tile_exposed": {"holder": text(16), "seat": _SEAT, "void": boolean()},
    "void_round": {"reason": text(REASON_LONGEST)},
    "new_dice": {},
    "new_game": {},
    "withdraw_wager": {"seat": _SEAT},
    "acknowledge": {},
}
assert TAKES.keys() == COMMANDS.keys()
#: Commands that move a round on: refused while the table is paused.
ADVANCING = ("no_more_bets", "bank", "no_bank", "reveal", "delivered", "tiles", "round_complete")


def flag(args: Mapping[str, Any], name: str) -> bool:
    """A true/false argument (absent: false)."""
    value = args.get(name, False)
    if not isinstance(value, bool):
        raise RulesError(f"{name} must be true or false, not {value!r}")
    return value


def seats(value: object, what: str, *, check: bool = True) -> list[int]:
    """A list of whole numbers (betting positions 1..6 when ``check``)."""
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise RulesError(f"{what} must be a list of whole numbers, not {value!r}")
    return [check_seat(v, what) for v in value] if check else list(value)
