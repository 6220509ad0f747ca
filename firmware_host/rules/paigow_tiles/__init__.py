"""Pai Gow tiles rules (58 Pa. Code ch. 535, § 621a.9): pure functions, no I/O, no clock.

* :mod:`.tiles`: the 32 tiles and their text (§ 535.3(c), § 535.4(f), § 535.6(a)(1));
* :mod:`.hands`: two-tile hands, their ranking and the settings of four tiles (§ 535.4);
* :mod:`.rules`: the casino's Rules Submission options, from the table profile;
* :mod:`.houseway`: the dealer's setting (§ 535.10(d));
* :mod:`.compare`: win, lose or tie against the dealer or the bank (§ 535.10(f)-(j));
* :mod:`.settlement`: the money against the dealer (§ 535.10(e)-(k), § 535.13);
* :mod:`.bank_settlement`: the money with a player bank or co-bank (§ 535.11(h), (n)-(r));
* :mod:`.irregularities`: exposed tiles and wrongly set dealer hands (§ 535.12(d)-(f)).

The names most callers need are re-exported here.
"""

from firmware_host.rules.paigow_tiles.bank_settlement import dealer_wager_against_bank, settle_with_bank
from firmware_host.rules.paigow_tiles.compare import Comparison, Outcome, compare_settings
from firmware_host.rules.paigow_tiles.hands import Hand, Setting, legal_settings
from firmware_host.rules.paigow_tiles.houseway import HouseWaySetting, HouseWayStep, follows_house_way, house_way
from firmware_host.rules.paigow_tiles.irregularities import (
    Ruling,
    TileHolder,
    apply_ruling,
    check_dealer_setting,
    exposed_tile,
)
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, PaiGowTileRules
from firmware_host.rules.paigow_tiles.settlement import (
    Settlement,
    Wager,
    WagerAction,
    WagerResult,
    commission_on,
    settle_against_dealer,
)
from firmware_host.rules.paigow_tiles.tiles import TILE_SET, Tile, parse_tile, parse_tiles

__all__ = [
    "DEFAULT_RULES",
    "TILE_SET",
    "Comparison",
    "Hand",
    "HouseWaySetting",
    "HouseWayStep",
    "Outcome",
    "PaiGowTileRules",
    "Ruling",
    "Setting",
    "Settlement",
    "Tile",
    "TileHolder",
    "Wager",
    "WagerAction",
    "WagerResult",
    "apply_ruling",
    "check_dealer_setting",
    "commission_on",
    "compare_settings",
    "dealer_wager_against_bank",
    "exposed_tile",
    "follows_house_way",
    "house_way",
    "legal_settings",
    "parse_tile",
    "parse_tiles",
    "settle_against_dealer",
    "settle_with_bank",
]
