"""Each game's one ``round_result`` builder writes exactly the fields its record declares, completed
or void, and the faces' field lists are those declarations (tables/round_record.py)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest

from firmware_host.rules.baccarat.roads import Outcome
from firmware_host.tables.round_record import BACCARAT, PAIGOW, RECORDS, RecordFields, head
from tests.tables.baccarat.table import Driver as BaccaratDriver
from tests.tables.baccarat.table import cards, wager
from tests.tables.baccarat.table import command as baccarat_command
from tests.tables.paigow.table import Driver as PaiGowDriver
from tests.tables.paigow.table import command as paigow_command
from tests.tables.paigow.table import roll
from tests.tables.paigow.table import wager as paigow_wager


def baccarat_rounds() -> list[dict[str, Any]]:
    """A completed round, one voided by the dealer mid-deal (§ 541.14(e)) and one void before its first card."""
    driver = BaccaratDriver()
    driver.start()
    driver.feed(wager(1, "player", 500), baccarat_command("no_more_bets"), cards("9S 2H KD 5C"))
    driver.feed(wager(2, "banker", 500), baccarat_command("no_more_bets"), cards("9C"))
    driver.feed(baccarat_command("void_round", reason="misdeal"))
    driver.feed(baccarat_command("void_round", reason="a dispute"))
    return driver.results()


def paigow_rounds() -> list[dict[str, Any]]:
    """A completed round and a void one."""
    driver = PaiGowDriver()
    driver.open()
    driver.play_round()
    driver.feed(paigow_wager(3, 1000), paigow_command("no_more_bets"), roll(2, 2, 2))
    driver.feed(paigow_command("void_round", reason="dice miscounted"))
    return driver.results()


@pytest.mark.parametrize(("rounds", "fields"), [(baccarat_rounds, BACCARAT), (paigow_rounds, PAIGOW)])
def test_the_builder_writes_exactly_the_head_and_the_declared_fields_completed_or_void(
    rounds: Any, fields: RecordFields
) -> None:
    results = rounds()
    assert {r["status"] for r in results} == {"completed", "void"}
    for result in results:
        table = SimpleNamespace(current_round=result["round"], game=result["game"], table_id="T1")
        assert set(result) == set(head(table, result["status"])) | set(fields.fields), result["status"]
        assert {k: result[k] for k in head(table, "")} == {**head(table, result["status"])}
        assert len(fields.fields) == len(set(fields.fields))
        assert RECORDS[result["game"]] is fields


def test_every_record_begins_with_the_round_the_game_and_the_status() -> None:
    table = SimpleNamespace(current_round=7, game="paigow", table_id="T1")
    assert head(table, "void").items() >= {"round": 7, "game": "paigow", "status": "void"}.items()
    for fields in RECORDS.values():
        assert set(fields.public) | set(fields.shown) | set(fields.outcome) <= {*head(table, ""), *fields.fields}


def test_the_roads_read_the_outcome_fields_by_the_names_the_roads_give_them() -> None:
    assert BACCARAT.outcome == tuple(field.name for field in dataclasses.fields(Outcome))
    assert set(BACCARAT.outcome) <= set(BACCARAT.shown)


def test_541_14_e_a_void_round_shows_no_card_its_record_lists() -> None:
    completed, mid_deal, before_cards = baccarat_rounds()
    assert mid_deal["cards"] == ["9C"] and mid_deal["player"] == ["9C"]  # in the journal's record
    for void in (mid_deal, before_cards):
        shown = BACCARAT.public_of(void)
        assert shown == {"round": void["round"], "status": "void"}
        assert "9C" not in repr(shown)
    assert BACCARAT.public_of(completed) == {
        "round": 1,
        "status": "completed",
        **{key: completed[key] for key in BACCARAT.shown},
    }
    assert BACCARAT.public_of(completed)["player"] == ["9S", "KD"]


def test_a_pai_gow_round_shows_its_dice_whatever_its_status() -> None:
    completed, void = paigow_rounds()
    assert PAIGOW.public_of(completed)["dice"] == [3, 5, 1]
    assert set(PAIGOW.public_of(void)) == {"round", "status", "dice", "total", "start", "bank_seat"}
    assert "settlement" not in PAIGOW.public_of(completed) and "plan" not in PAIGOW.public_of(completed)
