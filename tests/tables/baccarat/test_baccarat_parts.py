"""The Baccarat table's parts: the shuffler side exists only with a shuffler, prompts are typed."""

from __future__ import annotations

import json

import pytest

from drivers.events.shuffler import ShuffleStarted
from firmware_host.tables.baccarat.prompts import Action
from firmware_host.tables.baccarat.shuffler import ShufflerSide

from .shuffler_table import ShufflerDriver, shoe_cards
from .table import Driver, follow_prompts


def test_a_table_without_a_shuffler_has_no_shuffler_side_and_no_read_out_state() -> None:
    driver = Driver()
    assert driver.table.shuffler is None
    assert not hasattr(driver.table, "read_out_done")  # ShufflerSide.TRANSITIONS are not in its machine
    with_shuffler = ShufflerDriver()
    assert isinstance(with_shuffler.table.shuffler, ShufflerSide)
    assert with_shuffler.table.supply is with_shuffler.table.shuffler
    assert hasattr(with_shuffler.table, "read_out_done")


def test_an_event_class_is_handled_by_one_registered_handler_only() -> None:
    table = ShufflerDriver().table
    with pytest.raises(ValueError, match="ShuffleStarted: already handled"):
        table.register(ShuffleStarted, lambda event: None)


def test_every_prompt_is_an_action_and_journals_as_its_plain_text() -> None:
    driver = ShufflerDriver()
    driver.open()
    driver.play_shoe(shoe_cards(1))
    plain = Driver()
    plain.start()
    follow_prompts(plain, iter(["2S", "3H", "4D", "5C"]))
    prompts = driver.of("prompt") + plain.of("prompt")
    assert {Action(prompt["action"]) for prompt in prompts} >= {
        Action.LOAD_SHOE,
        Action.BURN,
        Action.PLACE_BETS,
        Action.DEAL,
        Action.READ_OUT,
        Action.RETURN_BATCH,
    }
    for prompt in prompts:
        text = json.dumps(prompt, sort_keys=True)
        assert json.loads(text) == prompt and f'"action": "{Action(prompt["action"]).value}"' in text
