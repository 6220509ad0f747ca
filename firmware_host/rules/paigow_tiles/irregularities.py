"""Irregularities with the tiles and what they do to the round (§ 535.12(d)-(f)).

Each function returns a :class:`Ruling`; :func:`apply_ruling` turns it into the wagers
that remain to settle.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.houseway import follows_house_way, house_way
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, BankTileExposed, PaiGowTileRules
from firmware_host.rules.paigow_tiles.settlement import POSITIONS, Wager, WagerAction


class TileHolder(enum.StrEnum):
    """Whose tile the dealer exposed."""

    PLAYER = "player"
    DEALER = "dealer"
    DEAD_HAND = "dead_hand"
    #: A betting area with no wager (its tiles go with the Dead Hand, § 535.8(e)).
    UNWAGERED = "unwagered"
    #: The player bank's hand (§ 535.11); see :class:`~.rules.BankTileExposed`.
    BANK = "bank"


@dataclasses.dataclass(frozen=True)
class Ruling:
    """What an irregularity does.

    :param section: the regulation applied.
    :param void_round: all hands void, all wagers returned.
    :param reshuffle: the tiles are mixed again (§ 535.6(d)) before the next deal.
    :param void_positions: betting areas whose wager alone is void and returned.
    :param dealer_setting: the dealer's hands as they must be reset (§ 535.12(f)).
    :param text: what the dealer announces.
    """

    section: str
    void_round: bool
    reshuffle: bool
    void_positions: tuple[int, ...]
    dealer_setting: Setting | None
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "void_round": self.void_round,
            "reshuffle": self.reshuffle,
            "void_positions": list(self.void_positions),
            "dealer_setting": self.dealer_setting.text if self.dealer_setting else None,
            "text": self.text,
        }


def exposed_tile(
    holder: TileHolder,
    rules: PaiGowTileRules = DEFAULT_RULES,
    *,
    position: int | None = None,
    elects_void: bool = False,
) -> Ruling:
    """The ruling when the dealer exposes a dealt tile (§ 535.12(d), (e)).

    :param holder: whose tile it was.
    :param position: the player's betting area (for ``player``).
    :param elects_void: the player's (or, under ``bank_may_void``, the bank's) choice, made
        without looking at his unexposed tiles, to void rather than play on.
    :raises RulesError: a player's tile without a betting area 1-6.
    """
    holder = TileHolder(holder)
    if holder is TileHolder.PLAYER:
        if isinstance(position, bool) or not isinstance(position, int) or position not in POSITIONS:
            raise RulesError(f"exposed player tile: position {position!r} is not a betting area 1-6")
        if elects_void:
            return Ruling(
                "535.12(d)",
                False,
                False,
                (position,),
                None,
                f"tile of position {position} exposed: the player voids the hand and the wager is returned",
            )
        return Ruling(
            "535.12(d)",
            False,
            False,
            (),
            None,
            f"tile of position {position} exposed: the player plays the hand out",
        )
    if holder is TileHolder.BANK and rules.bank_tile_exposed is BankTileExposed.BANK_MAY_VOID and not elects_void:
        return Ruling("535.12(d)", False, False, (), None, "tile of the bank exposed: the bank plays the hand out")
    where = {
        TileHolder.DEALER: "the dealer",
        TileHolder.DEAD_HAND: "the Dead Hand",
        TileHolder.UNWAGERED: "a position without a wager",
        TileHolder.BANK: "the bank",
    }[holder]
    section = "535.12(d)" if holder is TileHolder.BANK and elects_void else "535.12(e)"
    return Ruling(
        section,
        True,
        True,
        (),
        None,
        f"tile of {where} exposed: all hands are void, all wagers returned, and the tiles reshuffled",
    )


def check_dealer_setting(setting: Setting, rules: PaiGowTileRules = DEFAULT_RULES) -> Ruling | None:
    """``None`` if the dealer set his hands as the house way does, else the reset (§ 535.12(f)).

    A setting that ranks exactly as the house way's plays exactly like it and stands.
    """
    if follows_house_way(setting, rules):
        return None
    expected = house_way(setting.tiles, rules)
    return Ruling(
        "535.12(f)",
        False,
        False,
        (),
        expected.setting,
        f"dealer's hands {setting.text} are not set the house way: reset to {expected.setting.text}"
        f" (§ {expected.step.section}: {expected.step.explanation}) and complete the round",
    )


def apply_ruling(wagers: Sequence[Wager], ruling: Ruling) -> tuple[Wager, ...]:
    """The wagers after a ruling: voided ones marked :attr:`WagerAction.VOID` (returned, not settled)."""
    voided = set(POSITIONS) if ruling.void_round else set(ruling.void_positions)
    return tuple(
        dataclasses.replace(wager, action=WagerAction.VOID) if wager.position in voided else wager for wager in wagers
    )
