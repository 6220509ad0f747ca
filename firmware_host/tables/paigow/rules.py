"""The Pai Gow table's Rules Submission: the dice/delivery/bank options and the tile options.

Both rules modules read the same ``[rules]`` table of a Pai Gow table profile:
:class:`~firmware_host.rules.paigow_dice.rules.PaiGowRules` (dice, delivery styles, player bank, dice
clock) and :class:`~firmware_host.rules.paigow_tiles.rules.PaiGowTileRules` (house way, commission,
settlement). :func:`load_paigow_rules` hands each its own keys and refuses a key neither
knows, so a typo in a profile is an error and not a silently ignored option.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from firmware_host.errors import ProfileError
from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, PaiGowTileRules
from firmware_host.config.profiles import Section

__all__ = ["PaiGowTableRules", "load_paigow_rules"]


@dataclasses.dataclass(frozen=True)
class PaiGowTableRules:
    """Everything the Pai Gow controller needs from the casino's Rules Submission.

    :param dice: dice, delivery styles, player bank and dice clock (§ 535.5, § 535.8-§ 535.11).
    :param tiles: house way, comparison, commission and settlement (§ 535.4, § 535.10-§ 535.12).
    """

    dice: PaiGowRules = PaiGowRules()
    tiles: PaiGowTileRules = DEFAULT_RULES


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
    return PaiGowTableRules(PaiGowRules.from_mapping(mapping, source), PaiGowTileRules.from_mapping(mapping, source))
