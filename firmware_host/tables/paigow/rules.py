"""The Pai Gow table's Rules Submission: the dice/delivery/bank options and the tile options.

Both rules modules read the same ``[rules]`` table of a Pai Gow table profile:
:class:`~firmware_host.rules.paigow_dice.rules.PaiGowRules` (dice, delivery styles, player bank, dice
clock) and :class:`~firmware_host.rules.paigow_tiles.rules.PaiGowTileRules` (house way, commission,
settlement). :func:`firmware_host.config.rules.load_paigow_rules` parses the table into them.
"""

from __future__ import annotations

import dataclasses

from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, PaiGowTileRules

__all__ = ["PaiGowTableRules"]


@dataclasses.dataclass(frozen=True)
class PaiGowTableRules:
    """Everything the Pai Gow controller needs from the casino's Rules Submission.

    :param dice: dice, delivery styles, player bank and dice clock (§ 535.5, § 535.8-§ 535.11).
    :param tiles: house way, comparison, commission and settlement (§ 535.4, § 535.10-§ 535.12).
    """

    dice: PaiGowRules = PaiGowRules()
    tiles: PaiGowTileRules = DEFAULT_RULES
