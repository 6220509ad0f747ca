"""The starting position through the controller: every dice total with no bank and with a
player bank at every seat, against the count the regulation describes (§ 535.8(c), § 535.11(j))."""

from __future__ import annotations

import pytest

from .table import BANK_RULES, Driver, faces_for

#: Counterclockwise around the table from the dealer (§ 535.8(c)); the Dead Hand sits on the
#: dealer's left (§ 535.2(b)(2)), so the count goes on from it to the dealer.
AROUND_THE_TABLE = ["dealer", "1", "2", "3", "4", "5", "6", "dead"]
ALL_SEATS = {seat: 500 for seat in range(1, 7)}


def counted(total: int, one: str) -> str:
    """Count as the dealer does: ``one`` is number one, then each place counterclockwise."""
    place, count = AROUND_THE_TABLE.index(one), 1
    while count < total:
        place, count = (place + 1) % len(AROUND_THE_TABLE), count + 1
    return AROUND_THE_TABLE[place]


@pytest.mark.parametrize("total", range(3, 19))
def test_535_8_c_every_total_with_the_dealer_counted_as_one(total: int) -> None:
    driver = Driver()
    driver.open()
    result = driver.play_round(faces_for(total))
    assert result["total"] == total and sum(result["dice"]) == total
    assert result["start"] == counted(total, "dealer")
    assert result["plan"][0]["position"] == result["start"]


def test_535_8_c_1_and_2_the_regulation_examples() -> None:
    driver = Driver()
    driver.open()
    assert driver.play_round((3, 3, 3))["start"] == "dealer"  # (1) nine: the dealer
    assert driver.play_round((6, 6, 3))["start"] == "6"  # (2) fifteen: the sixth position


@pytest.mark.parametrize("bank_seat", range(1, 7))
@pytest.mark.parametrize("total", range(3, 19))
def test_535_11_j_every_total_with_the_bank_counted_as_one(total: int, bank_seat: int) -> None:
    driver = Driver(BANK_RULES)
    driver.open()
    driver.play_round(wagers=ALL_SEATS)  # round 1: no player bank (§ 535.11(b)); all wager against the dealer
    others = {seat: amount for seat, amount in ALL_SEATS.items() if seat != bank_seat}
    result = driver.play_round(faces_for(total), wagers=others, bank={"seat": bank_seat, "chips_confirmed": True})
    assert result["bank_seat"] == bank_seat
    assert result["start"] == counted(total, str(bank_seat))
