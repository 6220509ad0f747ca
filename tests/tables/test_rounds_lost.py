"""Round numbers after a salvage (§ 541.12(c), § 535.10(l): a round number names one round): a
:class:`RoundsLost` input moves the table's next round past the highest number a salvage found
issued, between rounds, and says which numbers it skipped; never back, never mid-round."""

from __future__ import annotations

import pytest

from firmware_host.config.profiles import load_table
from firmware_host.tables.base import TableController
from firmware_host.tables.decisions import ROUNDS_LOST, ROUNDS_LOST_ALERT, Decision
from firmware_host.tables.events import RoundsLost
from firmware_host.wiring import game_wiring
from tests.support.paths import REPO

TABLES = ["sim-baccarat", "sim-paigow"]


def controller(table: str) -> TableController:
    profile = load_table(REPO / "hardware-profiles" / "tables" / f"{table}.toml")
    return game_wiring(profile.game).controller(profile)


@pytest.mark.parametrize("table", TABLES)
def test_541_12_c_the_next_round_is_numbered_past_the_rounds_a_salvage_found(table: str) -> None:
    made = controller(table)
    assert made.quiet and made.current_round == 1
    decided = made.handle(RoundsLost(device="salvage", highest=17), 1000.0)
    assert decided[0] == Decision(ROUNDS_LOST, {"first": 1, "last": 17, "next": 18})
    assert [d.data["code"] for d in decided[1:] if d.type == "alert"] == [ROUNDS_LOST_ALERT]
    assert "rounds 1 to 17" in decided[1].data["text"] and "round 18" in decided[1].data["text"]
    assert made.current_round == 18
    assert made.handle(RoundsLost(device="salvage", highest=12), 1001.0) == []  # never back
    assert made.current_round == 18


def test_535_10_l_a_round_open_keeps_its_number_and_the_dealer_is_warned() -> None:
    made = controller("sim-paigow")
    made.state = next(iter(made.ROUND_STATES))  # a round open at the table
    decided = made.handle(RoundsLost(device="salvage", highest=17), 1000.0)
    assert [d.data.get("code") for d in decided] == [ROUNDS_LOST_ALERT]
    assert decided[0].data["severity"] == "warning" and "round 1 is open" in decided[0].data["text"]
    assert made.current_round == 1
