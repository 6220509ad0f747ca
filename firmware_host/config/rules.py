"""The ``[rules]`` table of a Pai Gow table profile parsed into the plain rule objects.

Two rules modules share that table: :class:`~firmware_host.rules.paigow_dice.rules.PaiGowRules`
(dice, delivery styles, player bank, dice clock; parsed here with the profile's
:class:`~firmware_host.config.profiles.Section` getters) and
:class:`~firmware_host.rules.paigow_tiles.rules.PaiGowTileRules` (house way, commission,
settlement). :func:`load_paigow_rules` hands each its own keys and refuses a key neither
knows, so a typo in a profile is an error and not a silently ignored option. The rules and
the controller receive the objects; they never see the profile.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from firmware_host.config.profiles import Section
from firmware_host.errors import ProfileError
from firmware_host.rules.paigow_dice.rules import BANK_OFFER_NEXT, OptionError, PaiGowRules
from firmware_host.rules.paigow_tiles.rules import PaiGowTileRules
from firmware_host.tables.paigow.rules import PaiGowTableRules

__all__ = ["paigow_dice_rules", "load_paigow_rules"]


def paigow_dice_rules(mapping: Mapping[str, Any], source: object) -> PaiGowRules:
    """Read the dice, delivery and bank options from a profile's ``[rules]`` table; absent keys
    take the defaults, and keys not in :data:`PaiGowRules.KEYS` are left for the tile rules.

    :param source: the profile file, named in errors.
    :raises ProfileError: ``ProfileError(source, "rules.<key>", why)`` for a bad value.
    """
    section = Section(Path(str(source)), dict(mapping), "rules")
    defaults = PaiGowRules()
    try:
        return PaiGowRules(
            player_bank_offered=section.boolean("player_bank_offered", defaults.player_bank_offered),
            co_banking_offered=section.boolean("co_banking_offered", defaults.co_banking_offered),
            delivery_styles=section.strings("delivery_styles", defaults.delivery_styles),
            bank_may_choose_any_style=section.boolean("bank_may_choose_any_style",
                                                      defaults.bank_may_choose_any_style),
            bank_offer_next=section.string("bank_offer_next", defaults.bank_offer_next, choices=BANK_OFFER_NEXT),
            bank_offer_returns_to_dealer=section.boolean("bank_offer_returns_to_dealer",
                                                         defaults.bank_offer_returns_to_dealer),
            dice_max_hours=section.number("dice_max_hours", defaults.dice_max_hours),
            dice_warning_minutes=section.number("dice_warning_minutes", defaults.dice_warning_minutes),
        )
    except OptionError as exc:
        raise section.error(exc.key, exc.why) from None


def load_paigow_rules(section_mapping: Mapping[str, Any] | Section, source: object) -> PaiGowTableRules:
    """Read a Pai Gow table profile's ``[rules]`` table.

    :param section_mapping: the parsed table (a mapping, or the profile's :class:`Section`).
    :param source: the profile file, named in errors.
    :raises ProfileError: ``(source, "rules.<key>", "unknown key")`` for a key no rules module
        reads, or the rules module's error for a bad value.
    """
    mapping = section_mapping.data if isinstance(section_mapping, Section) else section_mapping
    if not isinstance(mapping, Mapping):
        raise ProfileError(source, "rules", f"expected a table of options, got {type(mapping).__name__}")
    for key in mapping:
        if key not in PaiGowRules.KEYS and key not in PaiGowTileRules.KEYS:
            raise ProfileError(source, f"rules.{key}", "unknown key")
    return PaiGowTableRules(paigow_dice_rules(mapping, source), PaiGowTileRules.from_mapping(mapping, source))
