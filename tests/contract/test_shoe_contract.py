"""The card-reading shoe's contract, in both dialects: identity, every event, errors, reconnection.

§ 541.7 (the shoe), § 541.5(g) (burn cards), § 541.10(e) (cut card), § 541.14(d)-(e) (card
face up, too few cards): the controller relies on the driver reporting each of these.
"""

from __future__ import annotations

from drivers.codecs.shoe_messages import RANKS, SUITS, Fault, Warning
from drivers.codecs.shoe_messages import CutCard as CutCardMessage
from drivers.events.lifecycle import DeviceFault, DeviceIdentified, ProtocolError
from drivers.events.shoe import (
    CardFaceUp,
    CardRead,
    CardUnreadable,
    CutCard,
    IdentityUnverified,
    ShoeEmpty,
    ShoeWarning,
)
from sim.devices.faults import LinkFaults, ShoeFaults
from tests.contract.bench import Rig, needs_person, sim_only
from tests.contract.common import (
    OUTAGE_S,
    check_identity,
    check_missing_device_is_reported_once,
    check_refused_identity_is_a_fault,
    check_unplug_and_replug,
)  # fmt: skip
from tests.support.device_events import eventually


def _pull(rig: Rig, **faults: float) -> None:
    """The simulated dealer pulls the next card, the shoe suffering ``faults`` for that pull."""
    rig.sim.faults = ShoeFaults(**faults)
    rig.sim.draw()
    rig.sim.faults = ShoeFaults()


def test_identity(shoe: Rig) -> None:
    check_identity(shoe)
    if shoe.target.dialect == "ascii":
        assert "no identity message" in shoe.expect(IdentityUnverified).why


@needs_person
def test_541_7_card_read(shoe: Rig) -> None:
    shoe.expect(DeviceIdentified)
    shoe.bench.do("Pull one card from the shoe now", lambda: _pull(shoe))
    card = shoe.expect(CardRead)
    assert card.rank in RANKS and card.suit in SUITS and not card.burn


@needs_person
def test_541_10_e_cut_card(shoe: Rig) -> None:
    shoe.expect(DeviceIdentified)

    def pull_to_the_cut_card() -> None:
        while not isinstance(shoe.sim.draw().message, CutCardMessage):
            pass

    shoe.bench.do("Put the cut card at the front of the shoe and pull it now", pull_to_the_cut_card)
    assert isinstance(shoe.expect(CutCard), CutCard)


@needs_person
def test_card_unreadable(shoe: Rig) -> None:
    shoe.expect(DeviceIdentified)
    shoe.bench.do(
        "Pull a card the reader cannot read (cover its index with a blank sticker) now",
        lambda: _pull(shoe, unreadable_card=1.0),
    )
    assert shoe.expect(CardUnreadable).burn is False


@needs_person
def test_541_14_d_card_face_up(shoe: Rig) -> None:
    shoe.expect(DeviceIdentified)
    shoe.bench.do("Put a card face up at the front of the shoe and pull it now", lambda: _pull(shoe, face_up_card=1.0))
    face_up = shoe.expect(CardFaceUp)
    if shoe.target.dialect == "framed":
        assert face_up.rank in RANKS and face_up.suit in SUITS
    else:
        assert face_up == CardFaceUp("shoe")  # the ASCII dialect only raises an alarm


@needs_person
def test_541_14_e_shoe_empty(shoe: Rig) -> None:
    shoe.expect(DeviceIdentified)
    shoe.bench.do(
        "Pull every card left in the shoe until it reports itself empty", lambda: _pull(shoe, empty_early=1.0)
    )
    assert shoe.expect(ShoeEmpty) == ShoeEmpty("shoe")


@needs_person
def test_541_5_g_burn_cards_are_flagged(shoe: Rig) -> None:
    shoe.expect(DeviceIdentified)
    if shoe.target.dialect == "framed":
        shoe.driver.set_burn_mode(True)  # type: ignore[attr-defined]
        instruction = "Pull one card now (the host has put the shoe in burn mode)"

        def simulate() -> None:
            eventually(lambda: shoe.sim.burn_mode)  # the command reaches the shoe before the pull
            shoe.sim.draw()

    else:
        instruction = "Press the shoe's burn button, then pull one card now"

        def simulate() -> None:
            shoe.sim.burn_mode = True
            shoe.sim.draw()

    shoe.bench.do(instruction, simulate)
    assert shoe.expect(CardRead).burn is True


@needs_person
def test_alarm_is_a_device_fault_and_warning_codes_pass_through(shoe: Rig) -> None:
    shoe.expect(DeviceIdentified)
    shoe.bench.do(
        "Make the shoe raise an alarm (e.g. jam a card in the reader) now",
        lambda: shoe.sim.link.send(Fault("E3", "Card Not Read")),
    )
    fault = shoe.expect(DeviceFault)
    assert fault.code and fault.text
    shoe.bench.do("Make the shoe raise a warning (e.g. low card stock) now", lambda: shoe.sim.link.send(Warning(7)))
    assert shoe.expect(ShoeWarning).code >= 0


@needs_person
def test_unplug_is_device_lost_and_replug_identifies_again(shoe: Rig) -> None:
    check_unplug_and_replug(shoe, lambda: shoe.sim.link.begin_outage(OUTAGE_S), lambda: None)


def test_refused_identity_is_a_fault(shoe: Rig) -> None:
    check_refused_identity_is_a_fault(shoe)


def test_missing_port_is_reported_once(shoe: Rig) -> None:
    check_missing_device_is_reported_once(shoe, port="/dev/serial/by-id/no-such-shoe")


@sim_only("it corrupts the wire on purpose")
def test_damaged_bytes_are_reported_and_no_card_is_lost(shoe: Rig) -> None:
    shoe.expect(DeviceIdentified)
    if shoe.target.dialect == "framed":
        # Five frames through a line damaging 70 %: at least one is damaged (1 - 0.3**5 of the time).
        shoe.sim.link.faults = LinkFaults(corrupt_byte=0.7, duplicate_frame=0.3)
    else:
        eventually(lambda: shoe.sim.link.endpoint.connected)
        shoe.sim.link.endpoint.write(b"\x00\x13zz~ [Game]<Card:QQ> ")  # no checksum: resynchronise on garbage
    for _ in range(5):
        shoe.sim.draw()
    got = shoe.events.until(lambda ev: isinstance(ev, CardRead) and ev.rank == "A")
    read = [(ev.rank, ev.suit) for ev in got if isinstance(ev, CardRead)]
    assert read == [("4", "S"), ("K", "D"), ("9", "H"), ("A", "C")] and any(isinstance(ev, CutCard) for ev in got)
    assert any(isinstance(ev, ProtocolError) for ev in got)
