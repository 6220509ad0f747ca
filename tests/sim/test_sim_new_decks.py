"""The simulated shuffler's new decks are the rules' full shoe, built without importing the rules
(the device simulators depend only on :mod:`drivers`)."""

from __future__ import annotations

import pytest

from firmware_host.rules.baccarat.cards import full_shoe
from sim.devices.shuffler import new_decks


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_new_decks_are_the_full_shoe_in_its_order(decks: int) -> None:
    assert new_decks(decks) == [str(card) for card in full_shoe(decks)]
