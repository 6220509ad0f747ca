"""The card shuffler's contract: identity and status, every event, commands, faults, unplugging.

§ 541.3(b) (two batches, one shuffled while the other plays), § 541.15 (the shuffler's
faults are reported, and cleared): the controller relies on the driver reporting each.
"""

from __future__ import annotations

from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shuffler import (
    BatchLoaded,
    BatchReleased,
    BatchStatus,
    ShuffleCompleted,
    ShuffleProgress,
    ShufflerFault,
    ShufflerFaultCleared,
    ShuffleStarted,
)  # fmt: skip
from tests.contract.bench import Rig, needs_person
from tests.contract.common import (
    check_identity,
    check_missing_device_is_reported_once,
    check_refused_identity_is_a_fault,
    check_unplug_and_replug,
)  # fmt: skip

#: Cards in one deck: the simulated batches hold one deck each.
DECK = 52


def test_identity_and_both_batches_status_at_handshake(shuffler: Rig) -> None:
    check_identity(shuffler)
    statuses = [shuffler.expect(BatchStatus), shuffler.expect(BatchStatus)]
    assert {status.batch for status in statuses} == {"A", "B"}  # § 541.3(b)(2)


@needs_person
def test_541_3_b_shuffle_reports_start_progress_completion_then_release(shuffler: Rig) -> None:
    shuffler.expect(DeviceIdentified)
    expected = DECK if shuffler.sim is not None else 0  # 0: the bench's batch size is not known
    shuffler.bench.do("Make sure batch A is loaded and the door closed (the host starts the shuffle)", lambda: None)
    shuffler.driver.start_shuffle("A", expected)  # type: ignore[attr-defined]
    assert shuffler.expect(ShuffleStarted).batch == "A"
    assert 0 < shuffler.expect(ShuffleProgress).percent < 100
    completed = shuffler.expect(ShuffleCompleted)
    assert completed.batch == "A" and completed.cards > 0 and completed.order_digest
    shuffler.driver.release_batch("A")  # type: ignore[attr-defined]
    assert shuffler.expect(BatchReleased) == BatchReleased("shuffler", "A", completed.cards)


@needs_person
def test_541_3_b_batch_put_back_after_release_is_reported_loaded(shuffler: Rig) -> None:
    shuffler.expect(DeviceIdentified)
    shuffler.bench.do(
        "Make sure batch B is loaded and the door closed (the host shuffles and releases it)", lambda: None
    )
    shuffler.driver.start_shuffle("B", DECK if shuffler.sim is not None else 0)  # type: ignore[attr-defined]
    shuffler.expect(ShuffleCompleted)
    shuffler.driver.release_batch("B")  # type: ignore[attr-defined]
    shuffler.expect(BatchReleased)
    shuffler.bench.do("Put batch B back into its slot now", lambda: shuffler.sim.load("B"))
    loaded = shuffler.expect(BatchLoaded)
    assert loaded.batch == "B" and loaded.decks > 0 and loaded.back_colour


@needs_person
def test_541_15_jam_is_a_fault_and_clearing_it_is_reported(shuffler: Rig) -> None:
    shuffler.expect(DeviceIdentified)

    def jam_the_next_shuffle() -> None:
        shuffler.sim.arm("jam")
        shuffler.driver.start_shuffle("A", DECK)  # type: ignore[attr-defined]

    shuffler.bench.do("Start a shuffle and jam it (hold the cards back) now", jam_the_next_shuffle)
    assert shuffler.expect(ShufflerFault).code == "jam"
    shuffler.bench.do("Clear the jam now", shuffler.sim and shuffler.sim.clear_jam)
    assert shuffler.expect(ShufflerFaultCleared).code == "jam"


@needs_person
def test_541_15_door_open_is_a_fault_and_closing_it_is_reported(shuffler: Rig) -> None:
    shuffler.expect(DeviceIdentified)
    shuffler.bench.do("Open the shuffler's door now", shuffler.sim and shuffler.sim.open_door)
    assert shuffler.expect(ShufflerFault).code == "door_open"
    shuffler.bench.do("Close the door now", shuffler.sim and shuffler.sim.close_door)
    assert shuffler.expect(ShufflerFaultCleared).code == "door_open"


@needs_person
def test_unplug_is_device_lost_and_replug_identifies_again(shuffler: Rig) -> None:
    check_unplug_and_replug(shuffler, shuffler.sim and shuffler.sim.unplug, shuffler.sim and shuffler.sim.replug)


def test_refused_identity_is_a_fault(shuffler: Rig) -> None:
    check_refused_identity_is_a_fault(shuffler)


def test_missing_device_is_reported_once(shuffler: Rig) -> None:
    check_missing_device_is_reported_once(shuffler, product_id=0xFFFE)  # nothing with these ids on the bus
