"""Replay: the same events at the same times into a fresh controller give the same decisions,
whose data survive a JSON round trip (the journal stores them as JSON). And a property test:
whatever the shaker and the dealer send, the controller never raises and never takes a
starting position from anything but a valid roll."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.events import DeviceEvent, from_record, to_record
from drivers.events.lifecycle import DeviceLost
from firmware_host.rules.paigow_dice.position import starting_position
from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockTick
from firmware_host.tables.paigow import PaiGowTable, PaiGowTableRules

from .table import APPROVED, BANK_RULES, SHAKER_UP, Driver, command, lid, reading, roll, shakes, wager

DEALER = ["6-6", "4-5", "1-3", "2-2"]


def a_busy_evening() -> Driver:
    """Rounds with a no roll, an invalid reading, a player bank with a cut and a style, tiles,
    a void round, a co-bank and the dice clock."""
    driver = Driver(
        PaiGowTableRules(PaiGowRules(player_bank_offered=True, co_banking_offered=True, delivery_styles=("chee-yee",)))
    )
    driver.open()
    driver.feed(
        wager(1, 1000), wager(3, 2000), wager(5, 500), command("no_more_bets"), command("style", name="chee-yee")
    )
    driver.feed(
        shakes(2),
        lid(True),
        reading(1, 2, 3),
        lid(False),
        shakes(3),
        lid(True),
        reading(2, 2, 9),
        lid(False),
        roll(3, 5, 1),
    )
    driver.deal_and_close()
    driver.feed(
        command("tiles", dealer=DEALER, hands={"1": "4-4,4-4/2-3,1-3", "3": "5-5,1-5/2-2,3-4", "5": "surrender"})
    )
    driver.feed(
        wager(2, 700),
        wager(4, 700),
        command("no_more_bets"),
        command("bank", seat=3, chips_confirmed=True, dealer_wager=1000),
        command("cut", to_right_end=[7, 8]),
        command("style", name="dragon-head-phoenix-tail-from-the-left"),
    )
    driver.feed(roll(6, 6, 3, shaken=4), command("lid_removed_by_bank"), lid(False), roll(2, 3, 4))
    driver.deal_and_close()
    driver.feed(
        command("tile_exposed", holder="player", seat=2, void=True),
        command("tiles", dealer=["1-1", "4-4", "2-2", "3-3"], hands={"3": "5-5,5-5,3-5,1-6", "4": "1-1,2-4/1-5,2-5"}),
    )
    driver.feed(
        wager(1, 500),
        command("no_more_bets"),
        command("no_bank"),
        roll(1, 1, 2),
        command("void_round", reason="dice miscounted"),
    )
    driver.feed(ClockTick(device="clock"), gap=23.5 * 3600)
    driver.feed(wager(1, 500), wager(6, 100), command("no_more_bets"))
    driver.feed(command("bank", seat=1, co_bank=True, chips_confirmed=True), roll(4, 4, 4))
    driver.deal_and_close()
    driver.feed(command("round_complete"), ClockTick(device="clock"))
    driver.feed(ClockTick(device="clock"), gap=3600)
    driver.feed(command("no_more_bets"), DeviceLost(device="shaker", reason="unplugged"), SHAKER_UP)
    return driver


def replayed(driver: Driver) -> list[Decision]:
    """The journal's events, through the journal's record form, into a fresh controller."""
    fresh = PaiGowTable("T1", APPROVED, driver.table.rules)
    out: list[Decision] = []
    for at, event in driver.steps:
        name, data = to_record(event)
        out += fresh.handle(from_record(name, json.loads(json.dumps(data))), at)
    return out


def test_replay_gives_identical_decisions_and_json_plain_data() -> None:
    driver = a_busy_evening()
    assert [r["status"] for r in driver.results()] == ["completed", "completed", "void", "completed"]
    assert replayed(driver) == driver.decisions
    for decision in driver.decisions:
        assert json.loads(json.dumps(decision.data)) == decision.data, decision
    assert json.loads(json.dumps(driver.table.view())) == driver.table.view()


def test_the_journal_reconstructs_each_round() -> None:
    """§ 535.10(l): every reading, the plan and every hand of the round are in its result."""
    driver = a_busy_evening()
    second = driver.results()[1]
    assert second["bank_seat"] == 3 and second["cut"] == {"to_right_end": [7, 8], "to_left_end": []}
    assert [r["reason"] for r in second["rolls"]] == ["lid_removed_by_bank", None]
    assert second["style"] == "dragon-head-phoenix-tail-from-the-left"
    assert second["settlement"]["hands"]["2"] == "void"
    first = driver.results()[0]
    assert [r["reason"] for r in first["rolls"]] == ["too_few_shakes", "invalid_reading", None]


# -- property: no exception, no start from an invalid reading ---------------------------------------

_FACES = st.one_of(st.integers(1, 6), st.sampled_from([0, 7, -1]))
_READINGS = st.builds(
    lambda dice, flats, count: reading(
        *dice, flat=flats[: len(dice)] + [True] * (len(dice) - len(flats)), in_shaker=count
    ),
    st.lists(_FACES, min_size=0, max_size=4),
    st.lists(st.booleans(), max_size=4),
    st.one_of(st.integers(0, 4), st.none()),
)
_COMMANDS = st.one_of(
    st.sampled_from(
        [
            command(name)
            for name in (
                "no_more_bets",
                "no_bank",
                "reveal",
                "delivered",
                "round_complete",
                "lid_removed_by_bank",
                "new_dice",
                "new_game",
                "void_round",
            )
        ]
    ),
    st.builds(
        lambda seat, co, ok: command("bank", seat=seat, co_bank=co, chips_confirmed=ok),
        st.one_of(st.integers(-1, 8), st.none()),
        st.booleans(),
        st.booleans(),
    ),
    st.builds(lambda n: command("cut", stacks=n), st.integers(-1, 9)),
    st.builds(lambda name: command("style", name=name), st.sampled_from(["standard", "jung-quat", "nope", ""])),
    st.builds(
        lambda holder, seat, void: command("tile_exposed", holder=holder, seat=seat, void=void),
        st.sampled_from(["player", "dealer", "bank", "ghost"]),
        st.integers(0, 7),
        st.booleans(),
    ),
    st.just(command("tiles", dealer=DEALER, hands={"3": "5-5,1-5/2-2,3-4"})),
)
#: Chunks of events: single odd events, and whole steps of a round so that rounds complete.
_CHUNKS = st.one_of(
    st.lists(
        st.one_of(
            _READINGS,
            _COMMANDS,
            st.builds(lid, st.booleans()),
            st.just(ClockTick(device="clock")),
            st.builds(wager, st.integers(0, 7), st.integers(-10, 5000)),
        ),
        min_size=1,
        max_size=2,
    ),
    st.builds(shakes, st.integers(1, 4)),
    st.builds(lambda faces: roll(*faces), st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6))),
    st.builds(lambda seat: [wager(seat), command("no_more_bets")], st.integers(1, 6)),
    st.just([command("delivered"), lid(False), *shakes(1)]),
    st.just([command("round_complete")]),
    st.builds(
        lambda seat, faces: [
            wager(seat),
            command("no_more_bets"),
            command("no_bank"),
            *roll(*faces),
            command("delivered"),
            lid(False),
            *shakes(1),
            command("round_complete"),
        ],
        st.integers(1, 6),
        st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6)),
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_CHUNKS, max_size=30))
def test_any_event_stream_never_raises_and_never_starts_from_an_invalid_reading(
    chunks: list[list[DeviceEvent]],
) -> None:
    driver = Driver(BANK_RULES)
    driver.open()
    driver.feed(*chunks)
    for result in driver.results():
        check_round(result)
    if driver.table.round.total is not None:
        assert driver.table.round.rolls[-1].valid


def check_round(result: dict[str, Any]) -> None:
    valid = [roll for roll in result["rolls"] if roll["valid"]]
    if result["start"] is None:
        assert valid == [] or result["status"] == "void"
        return
    assert len(valid) == 1 and result["rolls"][-1] is valid[0]
    assert all(face in range(1, 7) for face in valid[0]["dice"]) and len(valid[0]["dice"]) == 3
    assert sum(valid[0]["dice"]) == result["total"]
    assert result["start"] == str(starting_position(result["total"], result["bank_seat"]))
