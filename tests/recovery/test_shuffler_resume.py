"""Issue 6 item 1: a restarted simulated shuffler holds its batches as the journal shows them.

A physical shuffler keeps its batches over a restart of the Pi: which is in the shoe, which
is shuffled and ready, loaded or being shuffled, and in which order their cards lie. A
simulator restarted with the host rebuilds them from its seed and the journal's facts
(:func:`sim.devices.resume.shuffler_resume_point`, :meth:`SimulatedShuffler.resume`).

:class:`Host` plays the host against a reference simulator over pyusb, one command at a
time, and writes down the facts its journal would hold; a new simulator of the same seed
resumed from them must hold the same batches and the same random stream (the next shuffle
gives the same order), whatever fault the reference suffered (§ 541.3(b)(4)).
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import usb.core
import usb.util

from drivers.codecs import drain, framed
from drivers.codecs import shuffler as codec
from drivers.events.lifecycle import DeviceIdentified, DeviceLost
from drivers.events.shoe import CardRead
from drivers.events.shuffler import BatchLoaded, BatchReleased, BatchStatus, ShuffleCompleted, ShuffleStarted
from firmware_host.config.profiles import load_table
from firmware_host.host.journal import Journal
from firmware_host.rules.baccarat.cards import full_shoe
from firmware_host.tables.events import DealerCommand
from firmware_host.wiring import build_table
from sim.devices.resume import RESTARTED, ShufflerFact, ShufflerResumePoint, resume_shuffler, shuffler_resume_point
from sim.devices.shoe import SimShoe
from sim.devices.shuffler import EP_IN, EP_OUT, FAULTS, SimulatedShuffler
from sim.errors import SimError
from tests.support.sim_runs import shuffler_table

SEED = 7
#: § 541.3(b): the smallest batches, 6 decks each (12 in all).
DECKS = 6
CARDS = DECKS * 52
VID, PID = 0x1209, 0x7AB1


def shuffler(seed: int = SEED, faults: dict[str, float] | None = None) -> SimulatedShuffler:
    """A simulated shuffler with both batches loaded, suffering ``faults`` at random (seeded)."""
    return SimulatedShuffler(seed, decks_per_batch=DECKS, fault_rates=faults)


class Host:
    """The host's side of a simulated shuffler, over pyusb, and the facts its journal would hold."""

    def __init__(self, sim: SimulatedShuffler, facts: list[ShufflerFact] | None = None) -> None:
        self.sim = sim
        self.facts = [] if facts is None else facts
        self.device: usb.core.Device | None = None
        #: The latched fault (jam, door) each handshake's status reported.
        self.status_faults: list[int] = []
        self.connect()

    def connect(self) -> None:
        """Find the device and take its status (the driver's handshake)."""
        if self.device is not None:
            usb.util.dispose_resources(self.device)
        self.device = usb.core.find(idVendor=VID, idProduct=PID, backend=self.sim)
        assert self.device is not None
        self.device.set_configuration()
        self.facts.append(ShufflerFact("found"))
        answer = self.device.ctrl_transfer(codec.REQUEST_IN, codec.GET_STATUS, 0, 0, codec.CONTROL_IN_LENGTH)
        status = codec.unpack_status(bytes(answer))
        self.status_faults.append(status.fault | (codec.FAULT_DOOR_OPEN if status.door_open else 0))
        for batch in status.batches:
            digest = "" if batch.digest == codec.NO_DIGEST else batch.digest.hex()
            self.facts.append(ShufflerFact("status", batch.batch, batch.state, digest))

    def shuffle(self, batch: str) -> None:
        """Ask for a shuffle of ``batch`` (the controller's ``start_shuffle``) and read what comes."""
        self.facts.append(ShufflerFact("asked_shuffle", batch, cards=CARDS))
        self._send(codec.StartShuffle(batch, CARDS))

    def release(self, batch: str) -> None:
        """Ask for ``batch`` to be lifted out (``release_batch``)."""
        self.facts.append(ShufflerFact("asked_release", batch))
        self._send(codec.ReleaseBatch(batch))

    def put_back(self, batch: str, replace: bool = False) -> None:
        """The dealer puts ``batch`` back (its own cards, or new decks), as prompted."""
        self.facts.append(ShufflerFact("returned", batch, replace=replace))
        self.sim.load(batch, None if replace else self.sim.order(batch))
        self.read()

    def shoe(self, batch: str) -> tuple[str, ...]:
        """A shoe is loaded from the released ``batch``: the cards it holds, in order."""
        self.facts.append(ShufflerFact("shoe", batch))
        return self.sim.order(batch)

    def replug(self) -> None:
        """The attendant plugs the cable back in; the driver finds the device again."""
        self.sim.replug()
        self.connect()

    def read(self) -> None:
        """Read the device's reports until it is quiet (a pulled cable: the device is lost)."""
        buffer = bytearray()
        assert self.device is not None
        while True:
            try:
                buffer += bytes(self.device.read(EP_IN, 512, timeout=20))
            except usb.core.USBTimeoutError:
                break
            except usb.core.USBError:
                self.facts.append(ShufflerFact("lost"))
                break
        for frame in drain(framed.decode, buffer):
            self.facts.extend(_facts(codec.TABLE.message(frame)))

    def _send(self, message: object) -> None:
        assert self.device is not None
        try:
            self.device.write(EP_OUT, codec.TABLE.encode(message))
        except usb.core.USBError:  # the cable is out: the command is lost
            return
        self.read()


def _facts(message: object) -> list[ShufflerFact]:
    """The fact a report of the device makes in the journal (progress makes none)."""
    match message:
        case codec.BatchLoaded(batch=batch):
            return [ShufflerFact("loaded", batch)]
        case codec.ShuffleStarted(batch=batch):
            return [ShufflerFact("started", batch)]
        case codec.ShuffleComplete(batch=batch, digest=digest):
            return [ShufflerFact("completed", batch, digest=digest.hex())]
        case codec.BatchReleased(batch=batch):
            return [ShufflerFact("released", batch)]
        case codec.Fault(code=code, batch=str(batch)):
            return [ShufflerFact("fault", batch, codec.fault_name(code))]
    return []


def shuffled(host: Host, batch: str) -> None:
    """Ask for shuffles of ``batch`` until one completes; the attendant plugs the cable back
    in, clears a jam and closes the door in between."""
    for _ in range(20):
        host.shuffle(batch)
        if host.facts[-1] == ShufflerFact("lost"):
            host.replug()
        host.sim.clear_jam()
        host.sim.close_door()
        host.read()
        if host.sim.state(batch) == "shuffled":
            return
    raise AssertionError(f"batch {batch} never shuffled")


def first_shoe(host: Host) -> tuple[str, ...]:
    """Both batches shuffled, A released into the first shoe and, after it, put back."""
    shuffled(host, "A")
    shuffled(host, "B")
    host.release("A")
    cards = host.shoe("A")
    host.put_back("A")
    return cards


def two_shoes(host: Host) -> None:
    """:func:`first_shoe`, then A shuffled again while B is dealt, and B put back and shuffled."""
    first_shoe(host)
    shuffled(host, "A")
    host.release("B")
    host.shoe("B")
    host.put_back("B")
    shuffled(host, "B")


def resumed(facts: list[ShufflerFact], seed: int = SEED, faults: dict[str, float] | None = None) -> SimulatedShuffler:
    """A new simulator like the reference resumed from ``facts``; it must account for every one."""
    sim = shuffler(seed, faults)
    assert sim.resume(ShufflerResumePoint(tuple(facts))).unexplained == ()
    return sim


def batches(sim: SimulatedShuffler) -> list[tuple[str, tuple[str, ...]]]:
    """Each batch's state and order."""
    return [(sim.state(batch), sim.order(batch)) for batch in "AB"]


def assert_same_device(rebuilt: SimulatedShuffler, reference: SimulatedShuffler) -> None:
    """The same batches, and the same random stream: the next shuffle of each gives the same order."""
    assert batches(rebuilt) == batches(reference)
    for sim in (rebuilt, reference):
        sim.clear_jam()
        sim.close_door()
        host = Host(sim)
        for batch in "AB":
            if sim.state(batch) == "released":
                host.put_back(batch)
            host.shuffle(batch)
    assert batches(rebuilt) == batches(reference)


def test_541_3_b_4_a_resumed_shuffler_holds_its_batches_with_the_orders_the_seed_gave() -> None:
    reference = shuffler()
    host = Host(reference)
    in_first_shoe = first_shoe(host)
    host.shuffle("A")  # A is shuffled and stored while B is in play (§ 541.3(b)(4))
    host.release("B")
    in_second_shoe = host.shoe("B")
    rebuilt = shuffler()
    resume = rebuilt.resume(ShufflerResumePoint(tuple(host.facts)))
    assert resume.shoes == (in_first_shoe, in_second_shoe) and resume.unexplained == ()
    assert [state for state, _ in batches(rebuilt)] == ["shuffled", "released"]
    assert_same_device(rebuilt, reference)


def _reported_fault(code: str) -> Callable[[Host], bool]:
    return lambda host: any(fact.kind == "fault" and fact.detail == code for fact in host.facts)


def _status_showed(code: int) -> Callable[[Host], bool]:
    """A jam or an open door found at a handshake: it happened while the cable was out."""
    return lambda host: any(fault & code for fault in host.status_faults)


def _wrong_cards_right_count(host: Host) -> bool:
    full = Counter(str(card) for card in full_shoe(DECKS))
    return any(len(order) == CARDS and Counter(order) != full for order in (host.sim.order(b) for b in "AB"))


def _an_order_repeated(host: Host) -> bool:
    digests = [fact.digest for fact in host.facts if fact.kind == "completed"]
    return len(set(digests)) < len(digests)


@pytest.mark.parametrize(
    ("faults", "seed", "happened"),
    [
        pytest.param({"jam": 0.5}, 0, _reported_fault("jam"), id="jam"),
        pytest.param({"door_open": 0.5}, 0, _reported_fault("door_open"), id="door-open"),
        pytest.param({"unplug": 0.5}, 0, lambda host: ShufflerFact("lost") in host.facts, id="cable-pulled"),
        pytest.param({"unplug": 0.5, "jam": 0.5}, 0, _status_showed(codec.FAULT_JAM), id="cable-pulled-and-jam"),
        pytest.param(
            {"unplug": 0.5, "door_open": 0.5}, 0, _status_showed(codec.FAULT_DOOR_OPEN), id="cable-pulled-and-door-open"
        ),
        pytest.param({"missing_card": 0.5, "extra_card": 0.5}, 0, _wrong_cards_right_count, id="missing-and-extra"),
        pytest.param({"extra_card": 0.5}, 0, _reported_fault("card_count"), id="extra-card"),
        pytest.param({"same_order": 0.5}, 1, _an_order_repeated, id="same-order"),
    ],
)
def test_541_3_b_4_every_shuffler_fault_is_replayed_as_the_device_suffered_it(
    faults: dict[str, float], seed: int, happened: Callable[[Host], bool]
) -> None:
    # A shuffle that pulled its own cable and then jammed (or had its door opened) leaves its
    # slot as it was: only its random draws tell, and the replay must draw them too.
    reference = shuffler(seed, faults)
    host = Host(reference)
    two_shoes(host)
    assert happened(host), "the seed no longer gives the fault: pick another"
    assert_same_device(resumed(host.facts, seed, faults), reference)


def test_a_device_rebuilt_after_a_kill_anywhere_accounts_for_every_fact() -> None:
    # A kill can cut the journal after any record: whatever the cut, the replay explains it.
    faults = dict.fromkeys(FAULTS, 0.3)
    host = Host(shuffler(3, faults))
    two_shoes(host)
    assert {"lost", "fault"} <= {fact.kind for fact in host.facts}
    for cut in range(len(host.facts) + 1):
        resumed(host.facts[:cut], 3, faults)


def test_a_slow_shuffle_that_pulled_its_cable_after_its_first_reports_is_replayed_once() -> None:
    # The shuffle takes time: its start reaches the host, the other batch is released, then the
    # cable goes; the driver finds the device again while it still shuffles, and its end comes
    # after the handshake. The replay finishes a shuffle at once, cable and all.
    faults = {"unplug": 1.0}
    reference = SimulatedShuffler(SEED, decks_per_batch=DECKS, shuffle_seconds=0.4, fault_rates=faults)
    host = Host(reference)
    for batch in "AB":
        host.shuffle(batch)
        if batch == "B":
            host.release("A")
        while ShufflerFact("lost") not in host.facts[-3:]:
            host.read()
        host.replug()
        while reference.state(batch) == "shuffling":
            host.read()
        host.read()
    kinds = [(fact.kind, fact.batch, fact.detail) for fact in host.facts]
    lost, shuffling = kinds.index(("lost", None, "")), kinds.index(("status", "A", "shuffling"))
    assert kinds.index(("started", "A", "")) < lost < shuffling
    released = kinds.index(("released", "A", ""))
    assert kinds.index(("started", "B", "")) < released < kinds.index(("status", "B", "shuffling"))
    assert kinds[-1] == ("completed", "B", "")
    assert batches(resumed(host.facts, faults=faults)) == batches(reference)


def test_a_shuffle_asked_but_not_reported_before_the_host_died_is_shuffled_again_alike() -> None:
    # The host died right after deciding start_shuffle: the journal shows the command, not
    # that the device took it. The rebuilt device has not shuffled; asked again, it shuffles
    # as the seeded device did.
    reference = shuffler()
    host = Host(reference)
    first_shoe(host)
    asked = len(host.facts)
    host.shuffle("A")
    rebuilt = resumed(host.facts[: asked + 1])
    assert rebuilt.state("A") == "loaded"
    Host(rebuilt).shuffle("A")
    assert rebuilt.order("A") == reference.order("A")


def test_a_shuffle_reported_started_but_not_finished_before_the_host_died_is_finished() -> None:
    reference = shuffler()
    host = Host(reference)
    first_shoe(host)
    host.shuffle("A")
    started = host.facts.index(ShufflerFact("started", "A"), len(host.facts) - 3)
    rebuilt = resumed(host.facts[: started + 1])
    assert batches(rebuilt) == batches(reference)


def test_a_resumed_device_and_its_own_restart_rebuild_alike() -> None:
    # The kill loop's case in small: a device rebuilt from the journal after a kill plays on;
    # a later restart rebuilds from the whole journal, the first restart included.
    reference = shuffler()
    host = Host(reference)
    first_shoe(host)
    host.shuffle("A")
    facts = host.facts[:-1] + [ShufflerFact("restarted")]  # killed before the completion was journaled
    first = resumed(facts)
    again = Host(first, facts)
    again.release("B")
    again.shoe("B")
    assert batches(resumed(again.facts)) == batches(first)
    assert first.order("A") == reference.order("A")


def test_a_refused_command_changes_nothing() -> None:
    reference = shuffler()
    host = Host(reference)
    host.release("A")  # not shuffled: refused
    assert host.facts[-1] == ShufflerFact("fault", "A", "not_ready")
    host.shuffle("A")
    assert_same_device(resumed(host.facts), reference)


def test_another_seed_cannot_account_for_the_journal() -> None:
    host = Host(shuffler())
    first_shoe(host)
    problems = shuffler(SEED + 1).resume(ShufflerResumePoint(tuple(host.facts))).unexplained
    assert problems and "completed A" in problems[0]


def test_only_a_new_simulator_resumes() -> None:
    sim = shuffler()
    first_shoe(Host(sim))
    with pytest.raises(SimError, match="resume a new simulator"):
        sim.resume(ShufflerResumePoint())


def test_541_5_d_e_the_shoe_resumes_the_batch_cut_as_it_was_cut_at_the_journaled_draw() -> None:
    reference = shuffler()
    host = Host(reference)
    in_shoe = first_shoe(host)
    played = SimShoe(seed=SEED, decks=DECKS, endpoint="socket")
    restarted = SimShoe(seed=SEED, decks=DECKS, endpoint="socket")
    try:
        played.load(in_shoe)  # the simulator's shoe 2: its first batch
        drawn = [played.draw().card for _ in range(40)]
        resume_shuffler(restarted, shuffler(), ShufflerResumePoint(tuple(host.facts)), draws=40)
        assert (restarted.shoe_number, restarted.position) == (2, 40)
        assert [restarted.card_at(index) for index in range(40)] == drawn
        assert restarted.draw().card == played.draw().card
        with pytest.raises(SimError, match="position 400 is outside a shoe of 313 draws"):
            restarted.load(in_shoe, position=400)
    finally:
        played.stop()
        restarted.stop()


def test_the_resume_point_lists_what_the_journal_shows_of_the_shuffler(tmp_path: Path) -> None:
    profile = load_table(shuffler_table(tmp_path, decks=DECKS, shoe_faults=""))
    slot = profile.devices["shuffler"]
    approved = slot.model.approved
    journal_path = tmp_path / "journal.sqlite"
    table = build_table(profile, journal_path=journal_path, seed=SEED, stream=io.StringIO())
    step = table.service.step
    step(DeviceIdentified(device="shoe", model="TS-8", serial="SIM-0001", firmware="2.1.1"))
    step(DeviceIdentified(device="shuffler", model=approved.models[0], serial="SH16-SIM-0001",
                          firmware=approved.firmware[-1]))  # fmt: skip
    for batch, colour in (("A", "red"), ("B", "blue")):
        step(BatchStatus(device="shuffler", batch=batch, state="loaded", decks=DECKS, back_colour=colour, cards=0,
                         percent=0, order_digest=""))  # fmt: skip
    step(ShuffleStarted(device="shuffler", batch="A"))
    step(ShuffleCompleted(device="shuffler", batch="A", cards=CARDS, order_digest="ab" * 32))
    step(BatchReleased(device="shuffler", batch="A", cards=CARDS))
    step(DealerCommand(device="console", command="shoe_loaded", args={"batch": "A"}))
    step(CardRead(device="shoe", rank="4", suit="S", burn=True))
    step(DeviceLost(device="shuffler", reason="unplugged"))
    step(DeviceLost(device="shuffler", reason=RESTARTED))
    step(BatchLoaded(device="shuffler", batch="B", decks=DECKS, back_colour="blue"))
    table.journal.close()
    with Journal.open(journal_path) as journal:
        facts = shuffler_resume_point(journal.steps()).facts
        other = shuffler_resume_point(journal.steps(), device="other").facts
    assert [fact.kind for fact in other] == ["shoe"], "another device's reports and commands are not this one's"
    assert [(f.kind, f.batch) for f in facts] == [
        ("found", None), ("status", "A"), ("status", "B"), ("asked_shuffle", "A"), ("started", "A"),
        ("completed", "A"), ("asked_shuffle", "B"), ("asked_release", "A"), ("released", "A"), ("shoe", "A"),
        ("lost", None), ("restarted", None), ("loaded", "B"),
    ]  # fmt: skip
    assert facts[3].cards == CARDS and facts[1].detail == "loaded" and facts[5].digest == "ab" * 32
