"""The casino's Pai Gow Rules Submission options that concern the dice, the delivery and the
player bank (the ``[rules]`` table of a Pai Gow table profile).

The tile rules (house way, commission rounding) read their own keys from the same table;
:data:`PaiGowRules.KEYS` lists the keys read here so the configuration can reject a key that
no rules module knows. The ``[rules]`` table is parsed by :mod:`firmware_host.config.rules`.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Literal

from firmware_host.errors import RulesError
from firmware_host.rules.clock import Instant
from firmware_host.rules.paigow_dice.delivery import STYLES, check_style
from firmware_host.rules.paigow_dice.dice import DICE_MAX_HOURS, DiceClock, dice_clock

__all__ = ["PaiGowRules", "OptionError", "BANK_OFFER_NEXT"]


class OptionError(RulesError):
    """A bad option value, with the key it belongs to."""

    def __init__(self, key: str, why: str) -> None:
        self.key, self.why = key, why
        super().__init__(f"rules.{key}: {why}")


#: Where the first offer of the bank goes next round (§ 535.11(c); docs/rules-interpretations/paigow-dice.md).
BANK_OFFER_NEXT = ("rotate", "after-bank")


@dataclasses.dataclass(frozen=True)
class PaiGowRules:
    """Rules Submission options for the dice, delivery and player bank.

    :param player_bank_offered: players may bank the game (§ 535.11(a)).
    :param co_banking_offered: a player bank may ask the casino to co-bank (§ 535.11(e)).
    :param delivery_styles: styles the dealer may use without a player bank; the standard
        delivery (§ 535.8(d)) is always among them, the others only if listed (§ 535.9(a)).
    :param bank_may_choose_any_style: a player bank may choose any § 535.9 style, listed or
        not (§ 535.11(i)); ``False`` holds the bank to ``delivery_styles`` too.
    :param bank_offer_next: ``"rotate"``: the first offer moves one seat counterclockwise
        every round; ``"after-bank"``: it goes to the seat after the player who banked
        (§ 535.11(c)).
    :param bank_offer_returns_to_dealer: after the first offer has reached position 6 it
        returns to the dealer for one round with no offer before starting again at 1 (§ 535.11(c)).
    :param dice_max_hours: hours dice may stay on the table, at most 24 (§ 535.5(c)).
    :param dice_warning_minutes: how long before that limit the dealer is warned.
    """

    player_bank_offered: bool = False
    co_banking_offered: bool = False
    delivery_styles: tuple[str, ...] = ("standard",)
    bank_may_choose_any_style: bool = True
    bank_offer_next: Literal["rotate", "after-bank"] = "rotate"
    bank_offer_returns_to_dealer: bool = True
    dice_max_hours: float = float(DICE_MAX_HOURS)
    dice_warning_minutes: float = 60.0

    #: Keys of the ``[rules]`` table this class reads.
    KEYS: ClassVar[frozenset[str]] = frozenset(
        {
            "player_bank_offered",
            "co_banking_offered",
            "delivery_styles",
            "bank_may_choose_any_style",
            "bank_offer_next",
            "bank_offer_returns_to_dealer",
            "dice_max_hours",
            "dice_warning_minutes",
        }
    )

    def __post_init__(self) -> None:
        for style in self.delivery_styles:
            if style not in STYLES:
                raise OptionError("delivery_styles", f"unknown style {style!r}: use {', '.join(STYLES)}")
        if "standard" not in self.delivery_styles:
            object.__setattr__(self, "delivery_styles", ("standard", *self.delivery_styles))
        if self.bank_offer_next not in BANK_OFFER_NEXT:
            raise OptionError("bank_offer_next", f"{self.bank_offer_next!r} is not one of {', '.join(BANK_OFFER_NEXT)}")
        if not 0 < self.dice_max_hours <= DICE_MAX_HOURS:
            raise OptionError(
                "dice_max_hours", f"{self.dice_max_hours:g} must be over 0 and at most {DICE_MAX_HOURS} (§ 535.5(c))"
            )
        if not 0 <= self.dice_warning_minutes < self.dice_max_hours * 60:
            raise OptionError(
                "dice_warning_minutes",
                f"{self.dice_warning_minutes:g} must be 0 or more and "
                f"under {self.dice_max_hours * 60:g} (dice_max_hours)",
            )

    def styles_for(self, bank_seat: int | None) -> tuple[str, ...]:
        """Delivery styles allowed in a round with this bank (``None``: the dealer banks)."""
        if bank_seat is not None and self.bank_may_choose_any_style:
            return STYLES  # § 535.11(i): "any one of the styles of delivery described in § 535.9"
        return self.delivery_styles

    def check_style_for(self, style: str, bank_seat: int | None) -> str:
        """Return ``style`` if it may be used in this round, else raise :class:`RulesError`."""
        allowed = self.styles_for(bank_seat)
        if check_style(style) not in allowed:
            raise RulesError(
                f"delivery style {style!r} is not in this casino's Rules Submission (§ 535.9(a)): "
                f"use {', '.join(allowed)}"
            )
        return style

    def dice_clock(self, registered: Instant | float | None, now: Instant | float) -> DiceClock:
        """The dice clock (§ 535.5(c)) with this casino's limit and warning lead (:func:`dice_clock`)."""
        return dice_clock(registered, now, max_hours=self.dice_max_hours, warning_minutes=self.dice_warning_minutes)
