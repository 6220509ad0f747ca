"""The simulated Pai Gow dealer on its own: its tiles, its cuts, its prompts, its console commands."""

from __future__ import annotations

import collections
import queue
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.events import DeviceEvent
from firmware_host.rules.paigow_dice.delivery import PLACES, STYLES, Cut, delivery_plan
from firmware_host.rules.paigow_dice.position import TABLE_ORDER, label
from firmware_host.rules.paigow_tiles import TILE_SET, Setting
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand
from firmware_host.tables.paigow import PaiGowTableRules
from sim.dealers.paigow import PaiGowDealer


def plan_hands(start: Any = "dealer", style: str = "standard", cut: Cut | None = None) -> list[dict[str, Any]]:
    """A delivery plan as the ``deliver`` prompt gives it."""
    plan = delivery_plan(start, style, cut)
    return [
        {"position": label(hand.position), "tiles": [f"{tile.stack}.{tile.level}" for tile in hand.tiles]}
        for hand in plan.hands
    ]


def dealer(seed: int = 3, view: dict[str, Any] | None = None, **choices: float) -> tuple[PaiGowDealer, list[Any]]:
    """A dealer without a shaker, and the list its console commands and wagers go to."""
    sent: list[Any] = []
    table_view = view or {}
    return PaiGowDealer(
        sent.append,
        sent.append,
        seed,
        None,
        PaiGowTableRules(),  # type: ignore[arg-type]
        lambda: table_view,
        choices=choices,
    ), sent


@pytest.mark.parametrize("style", STYLES)
def test_535_6_d_every_tile_of_the_set_is_dealt_once_whatever_the_style(style: str) -> None:
    sim, _ = dealer()
    sim.deal(plan_hands(4, style, Cut.rotation(3)))
    assert sorted(label(p) for p in TABLE_ORDER) == sorted(sim.dealt)
    dealt = collections.Counter(tile.text for tiles in sim.dealt.values() for tile in tiles)
    assert dealt == collections.Counter(tile.text for tile in TILE_SET)


def test_535_8_d_the_first_hand_is_the_first_stack_as_stacked() -> None:
    sim, _ = dealer()
    sim.deal(plan_hands("dealer"))
    assert sim.dealt["dealer"] == tuple(sim.stacks()[0])


def test_the_shuffle_is_the_rounds_own_and_repeats_with_the_seed() -> None:
    first, _ = dealer(seed=5)
    again, _ = dealer(seed=5)
    first.round = again.round = 12
    assert first.stacks() == again.stacks()
    again.round = 13
    assert first.stacks() != again.stacks()


@given(st.integers(0, 10**6))
def test_535_11_g_every_cut_the_bank_makes_moves_adjacent_stacks(seed: int) -> None:
    args = PaiGowDealer._cut(random.Random(seed))
    cut = (
        Cut.rotation(args["stacks"])
        if "stacks" in args
        else Cut(tuple(args["to_right_end"]), tuple(args["to_left_end"]))
    )
    assert cut.arrangement() != PLACES


def test_535_10_tiles_keyed_in_are_the_tiles_dealt() -> None:
    sim, sent = dealer(surrender=0.0, own_setting=0.5, house_way_asked=0.3)
    sim.deal(plan_hands(2))
    sim.act({"action": "set_hands", "positions": ["1", "3", "6"], "dealer": True, "bank": None})
    (command,) = sent
    assert command.command == "tiles"
    assert sorted(tile.text for tile in sim.dealt["dealer"]) == sorted(command.args["dealer"])
    for position, hands in command.args["hands"].items():
        tiles = Setting.parse(hands).tiles if isinstance(hands, str) else hands
        assert sorted(getattr(tile, "text", tile) for tile in tiles) == sorted(t.text for t in sim.dealt[position])


def test_535_11_e_a_co_banks_tiles_go_to_the_dealer_to_set_after_a_restart_mid_round() -> None:
    # Resumed in the hands state: the plan and the bank come from the dealer's screen.
    sim, sent = dealer(view={"plan": plan_hands(5), "bank": {"seat": 5, "co_bank": True}})
    sim.act({"action": "set_hands", "positions": ["2"], "dealer": False, "bank": 5})
    (command,) = sent
    assert "dealer" not in command.args
    assert command.args["hands"]["5"] == [tile.text for tile in sim.dealt["5"]]


class Recorder(PaiGowDealer):
    """Records the prompts it acts on instead of acting."""

    def __init__(self) -> None:
        super().__init__(lambda event: None, lambda name: None, 0, None, PaiGowTableRules(), dict)  # type: ignore[arg-type]
        self.acted: queue.SimpleQueue[str] = queue.SimpleQueue()

    def act(self, prompt: dict[str, Any]) -> None:
        self.acted.put(prompt["action"])


def prompt(action: str) -> Decision:
    return Decision("prompt", {"action": action, "text": action}, 1)


def test_535_12_every_no_roll_is_reshaken_even_like_the_last_but_a_pause_asks_nothing_new() -> None:
    sim = Recorder()
    sim.start()
    try:
        no_roll = Decision("announce", {"announce": "no_roll", "text": ""}, 1)
        refused = Decision("alert", {"code": "refused-input", "text": ""}, 1)
        steps: list[tuple[list[Decision], str | None]] = [
            ([prompt("reshake")], "reshake"),
            ([no_roll, prompt("reshake")], "reshake"),  # a no roll like the last: reshaken again
            ([prompt("wait")], None),
            ([prompt("reshake")], None),  # after a pause that refused nothing: what was done is on its way
            ([prompt("reveal")], "reveal"),
            ([prompt("wait")], None),
            ([refused], None),
            ([prompt("reveal")], "reveal"),  # what was done during the pause was refused: again
        ]
        for decisions, expected in steps:
            sim.on_decisions(decisions)
            if expected is not None:
                assert sim.acted.get(timeout=5) == expected
        assert sim.acted.empty()
    finally:
        sim.stop()


def test_console_commands_are_dealer_commands() -> None:
    sim, sent = dealer(bank=1.0, cut=0.0, style=0.0, co_bank=0.0, no_dealer_wager=0.0)
    sim.act({"action": "offer_bank", "order": [4, 5]})
    (command,) = sent
    assert isinstance(command, DealerCommand) and isinstance(command, DeviceEvent)
    assert (command.command, command.args) == ("bank", {"seat": 4, "chips_confirmed": True, "co_bank": False})
