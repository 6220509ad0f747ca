"""Issue 6 item 1: hard kills of the real ``tablehost run`` lose nothing and duplicate nothing.

The service process runs a simulated Baccarat table (6 decks, so the runs cross shoes: the
burn, the cover card, the last hand and the reshuffle, § 541.5(g), § 541.10(e)) with a
keyed journal. :func:`~bench.soak.killloop.kill_loop` SIGKILLs it at seeded moments
and restarts it with the same arguments until the journal holds N rounds; ``--rounds N``
counts from the start of the journal, so the last process stops at exactly N.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bench.soak.audit import audit, compare_runs, seeded_shoe
from bench.soak.killloop import (
    FOREVER,
    KillLoopReport,
    Run,
    Tracker,
    follow,
    kill,
    kill_loop,
    played_alongside,
    run_to_end,
)
from bench.soak.profiles import PAIGOW_SEED, paigow_profile, quick_links, write_profile
from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shoe import CardRead, CardUnreadable
from firmware_host.config.profiles import load_table
from firmware_host.tables.events import DealerCommand
from firmware_host.wiring import build_table

#: The sim profile's link faults, raised so that every run retransmits.
LINK_FAULTS = "corrupt_byte = 0.01, drop_frame = 0.01, duplicate_frame = 0.01"
#: Card faults: unreadable (keyed in by the dealer) and face-up cards (§ 541.14(d)), a shoe that runs out early (§ 541.14(e)).
CARD_FAULTS = "unreadable_card = 0.04, face_up_card = 0.005, empty_early = 0.001"
#: Dealer errors (§ 541.14(a), (c)).
DEALER_ERRORS = "card_drawn_in_error = 0.02\ncard_disclosed = 0.5"
#: Where the long loop's kills must land (the shoe's own moments included).
MUST_LAND = {"startup", "burn", "after_cover_card", "betting", "mid_round"}


def kill_and_audit(directory: Path, key_file: Path, rounds: int, kills: int, seed: int) -> KillLoopReport:
    """Kill a keyed run with every fault ``kills`` times over ``rounds`` rounds; the audit must find nothing."""
    profile = write_profile(directory, faults=f"{LINK_FAULTS}, {CARD_FAULTS}", dealer=DEALER_ERRORS, key_file=key_file)
    quick_links(directory)  # audited, not compared with an uninterrupted run: less waiting for each dropped frame
    run = Run(profile, directory / "journal.sqlite", rounds=rounds, seed=seed)
    report = kill_loop(run, kills=kills, seed=seed)
    assert len(report.kills) == kills, report.kills
    found = audit(run, key_file.read_bytes())
    assert found.problems == []
    assert found.steps_replayed > 0
    return report


def test_541_12_c_thirty_kills_with_every_fault_lose_and_duplicate_nothing(ram_path: Path, key_file: Path) -> None:
    report = kill_and_audit(ram_path, key_file, rounds=100, kills=30, seed=11)
    assert {"burn", "cover_card"} <= {aim for aim, _ in report.kills}, report.kills
    assert {"betting", "mid_round"} <= set(report.moments()), report.moments()  # the shoe's moments are timing's luck


@pytest.mark.parametrize(
    "faults",
    [
        pytest.param(LINK_FAULTS, id="link-faults"),
        pytest.param(f"{LINK_FAULTS}, {CARD_FAULTS}", id="card-faults"),
    ],
)
def test_killed_run_plays_the_same_rounds_as_an_uninterrupted_run_of_the_same_seed(ram_path: Path, faults: str) -> None:
    # No dealer errors: the simulated dealer draws its card in error without waiting for the
    # table, so where it lands depends on timing even in an uninterrupted run (docs/recovery.md).
    profile = write_profile(ram_path, faults=faults)
    uninterrupted = Run(profile, ram_path / "uninterrupted.sqlite", rounds=70, seed=5)
    with played_alongside(uninterrupted) as uninterrupted_end:
        killed = Run(profile, ram_path / "killed.sqlite", rounds=70, seed=5)
        report = kill_loop(killed, kills=15, seed=5)
        assert len(report.kills) == 15, report.kills
        assert uninterrupted_end() == 0
    assert audit(killed).problems == []
    assert compare_runs(killed.journal, uninterrupted.journal) == []


def test_541_14_kills_while_an_unread_card_waits_to_be_keyed_in_lose_no_card(ram_path: Path) -> None:
    # The restarted dealer still holds the card the shoe could not read and keys it in.
    profile = write_profile(ram_path, faults="unreadable_card = 0.3")
    run = Run(profile, ram_path / "journal.sqlite", rounds=30, seed=3)
    landed = 0
    for _ in range(30):  # the dealer keys the card in within a millisecond: many tries to land on it
        proc, tracker = run.fork(), Tracker(run)
        tracker.poll()
        since = tracker.seq
        follow(proc, tracker, FOREVER, lambda: tracker.seq > since and tracker.prompt == "enter_card")
        kill(proc)
        tracker.settle()
        landed += tracker.moment(since) == "card_entry"
        if landed == 2:
            break
    assert landed == 2
    assert run_to_end(run) == 0
    assert audit(run).problems == []


@pytest.mark.slow
def test_541_12_c_hundred_kills_over_several_shoes(ram_path: Path, key_file: Path) -> None:
    report = kill_and_audit(ram_path, key_file, rounds=350, kills=100, seed=23)
    assert MUST_LAND | {"paused", "between_rounds"} <= set(report.moments()), report.moments()


@pytest.mark.parametrize("table", ["sim-paigow.toml", "sim-paigow-gpio-lid.toml"])
def test_535_twenty_kills_of_a_paigow_table_lose_and_duplicate_nothing(ram_path: Path, table: str) -> None:
    # make run-paigow's table, faults included, with the lid on the shaker or on a reed switch;
    # the seed is the one whose tile shuffles the integration tests' check replays.
    run = Run(paigow_profile(ram_path, table), ram_path / "journal.sqlite", rounds=40, seed=PAIGOW_SEED)
    report = kill_loop(run, kills=20, seed=PAIGOW_SEED)
    assert len(report.kills) == 20, report.kills
    assert {"rolling", "mid_round", "betting"} <= set(report.moments()), report.moments()
    assert audit(run).problems == []


@pytest.mark.slow
@pytest.mark.parametrize("table", ["sim-paigow.toml", "sim-paigow-gpio-lid.toml"])
def test_535_a_killed_paigow_run_plays_the_same_rounds_as_an_uninterrupted_run_of_the_same_seed(
    ram_path: Path, table: str
) -> None:
    # The shaker's dice are seeded by covering and shake, and a restarted dealer finishes the
    # shaking (and the bank's choices) the kill cut short. No link outages: a pause makes the
    # simulated people wait, and how long is timing's.
    profile = paigow_profile(ram_path, table)
    profile.write_text(profile.read_text().replace(", disconnect = 0.001", ""))
    uninterrupted = Run(profile, ram_path / "uninterrupted.sqlite", rounds=40, seed=PAIGOW_SEED)
    with played_alongside(uninterrupted) as uninterrupted_end:
        killed = Run(profile, ram_path / "killed.sqlite", rounds=40, seed=PAIGOW_SEED)
        report = kill_loop(killed, kills=15, seed=5)
        assert len(report.kills) == 15 and "rolling" in report.moments(), report.kills
        assert uninterrupted_end() == 0
    assert audit(killed).problems == []
    assert compare_runs(killed.journal, uninterrupted.journal) == []


def test_541_14_a_restarted_dealer_keys_in_the_unread_card_even_with_a_card_drawn_after_it(ram_path: Path) -> None:
    # The banker's second card comes out unread; a card drawn in error follows it (§ 541.14(a))
    # and waits, in shoe order, behind it. Then the host dies.
    profile = load_table(write_profile(ram_path))
    journal, seed = ram_path / "journal.sqlite", 3
    shoe = iter(enumerate(seeded_shoe(seed, profile.decks, 1, 60)))
    table = build_table(profile, journal_path=journal, seed=seed, stream=io.StringIO())
    service, unread = table.service, None
    service.step(DeviceIdentified(device="shoe", model="TS-8", serial="SIM-0001", firmware="2.1.1"))
    service.step(DealerCommand(device="console", command="shoe_loaded"))
    while unread is None:
        prompt = service.controller.prompt()
        if prompt["action"] == "place_bets":
            service.step(DealerCommand(device="buttons", command="no_more_bets"))
            continue
        index, card = next(shoe)
        if prompt["action"] == "deal" and prompt["to"] == "banker" and prompt["card"] == 2:
            unread = index
            service.step(CardUnreadable(device="shoe"))
            index, card = next(shoe)
        assert card is not None
        service.step(CardRead(device="shoe", rank=card[0], suit=card[1], burn=prompt["action"] == "burn"))
    table.journal.close()
    restarted = build_table(profile, journal_path=journal, seed=seed, stream=io.StringIO())
    restarted.journal.close()
    prompt = restarted.service.controller.prompt()
    assert prompt["action"] == "enter_card"
    assert restarted.dealer is not None
    keyed: list[DeviceEvent] = []
    restarted.dealer.emit = keyed.append
    restarted.dealer.act(prompt)
    physical = seeded_shoe(seed, profile.decks, 1, 60)[unread]
    assert keyed == [DealerCommand(device="console", command="card_entered", args={"card": physical})]
