"""Exposed tiles and wrongly set dealer hands: § 535.12(d)-(f)."""

from __future__ import annotations

import pytest

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.compare import Outcome
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.irregularities import (
    TileHolder,
    apply_ruling,
    check_dealer_setting,
    exposed_tile,
)
from firmware_host.rules.paigow_tiles.rules import BankTileExposed, PaiGowTileRules
from firmware_host.rules.paigow_tiles.settlement import Wager, WagerAction, settle_against_dealer

from .deals import LOSES, NINE_OVER_SIX, WINS

TABLE = (Wager(1, 1000, WINS), Wager(2, 2000, LOSES))


def test_535_12_d_player_voids_a_hand_whose_tile_was_exposed():
    ruling = exposed_tile(TileHolder.PLAYER, position=2, elects_void=True)
    assert (ruling.section, ruling.void_round, ruling.reshuffle) == ("535.12(d)", False, False)
    assert ruling.void_positions == (2,)
    wagers = apply_ruling(TABLE, ruling)
    assert [wager.action for wager in wagers] == [WagerAction.PLAY, WagerAction.VOID]
    settlement = settle_against_dealer(NINE_OVER_SIX, wagers)
    assert settlement.results[1].outcome is Outcome.VOID
    assert settlement.net("position 2") == 0  # the wager is returned


def test_535_12_d_player_plays_on():
    ruling = exposed_tile(TileHolder.PLAYER, position=2)
    assert (ruling.void_round, ruling.void_positions) == (False, ())
    assert apply_ruling(TABLE, ruling) == TABLE
    assert "plays the hand out" in ruling.text


@pytest.mark.parametrize("position", [None, 0, 7, True])
def test_535_12_d_player_tile_needs_a_betting_area(position):
    with pytest.raises(RulesError, match="is not a betting area 1-6"):
        exposed_tile(TileHolder.PLAYER, position=position)


@pytest.mark.parametrize(
    ("holder", "where"),
    [
        (TileHolder.DEALER, "the dealer"),
        (TileHolder.DEAD_HAND, "the Dead Hand"),
        (TileHolder.UNWAGERED, "a position without a wager"),
        ("bank", "the bank"),
    ],
)
def test_535_12_e_exposed_dealer_dead_hand_or_unwagered_tile_voids_every_hand(holder, where):
    ruling = exposed_tile(holder)
    assert (ruling.section, ruling.void_round, ruling.reshuffle) == ("535.12(e)", True, True)
    assert ruling.text.startswith(f"tile of {where} exposed: all hands are void")
    assert all(wager.action is WagerAction.VOID for wager in apply_ruling(TABLE, ruling))
    assert settle_against_dealer(NINE_OVER_SIX, apply_ruling(TABLE, ruling)).ledger == ()


def test_bank_may_void_reading_lets_the_bank_play_on_or_void_all():
    rules = PaiGowTileRules(bank_tile_exposed=BankTileExposed.BANK_MAY_VOID)
    plays = exposed_tile(TileHolder.BANK, rules)
    assert (plays.section, plays.void_round) == ("535.12(d)", False)
    voids = exposed_tile(TileHolder.BANK, rules, elects_void=True)
    assert (voids.section, voids.void_round, voids.reshuffle) == ("535.12(d)", True, True)


def test_535_12_f_dealer_hands_set_the_house_way_stand():
    assert check_dealer_setting(Setting.parse("6-6,4-5/1-3,2-2")) is None


def test_535_12_f_dealer_hands_set_otherwise_are_reset():
    ruling = check_dealer_setting(Setting.parse("6-6,2-2/1-3,4-5"))
    assert (ruling.section, ruling.void_round, ruling.dealer_setting) == (
        "535.12(f)",
        False,
        Setting.parse("6-6,4-5/1-3,2-2"),
    )
    assert ruling.text == (
        "dealer's hands 6-6,2-2/1-3,4-5 are not set the house way: reset to 6-6,4-5/1-3,2-2"
        " (§ 535.10(d)(2): a pair, Wong or Gong is played when possible) and complete the round"
    )
    assert ruling.to_json()["dealer_setting"] == "6-6,4-5/1-3,2-2"


def test_535_12_f_reset_follows_the_casinos_table():
    rules = PaiGowTileRules(house_way_table={"6-6,6-6,4-5,3-6": "6-6,4-5/6-6,3-6"})
    ruling = check_dealer_setting(Setting.parse("6-6,6-6/3-6,4-5"), rules)
    assert ruling.dealer_setting == Setting.parse("6-6,4-5/6-6,3-6")
    assert check_dealer_setting(Setting.parse("6-6,6-6/3-6,4-5")) is None
