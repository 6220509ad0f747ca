"""The shoe driver against the simulated shoe over a real pseudo-terminal and a real socket."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from drivers.codecs.shoe_messages import SetBurnMode
from drivers.codecs.shoe_messages import ShoeEmpty as ShoeEmptyMessage
from drivers.device import Device, Identity, Timing
from drivers.errors import DeviceNotFound
from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceFault, DeviceIdentified, DeviceLost, ProtocolError
from drivers.events.shoe import CardFaceUp, CardRead, CardUnreadable, CutCard, IdentityUnverified, ShoeEmpty
from drivers.shoe import FramedShoe, shoe_driver
from drivers.transport import SerialTransport
from sim.devices.faults import ShoeFaults
from sim.devices.link import FramedSimLink
from sim.devices.shoe import CUT, SimShoe
from tests.support.device_events import FAST, Events, eventually

ASCII_IDENTITY = Identity("ASCII-SHOE", "PROFILE-SN", "unknown")
SCRIPT = ["4S", "KD", "9H", CUT, "AC", "TD"]
COMBOS = [("framed", "pty"), ("framed", "socket"), ("ascii", "pty"), ("ascii", "socket")]


@contextlib.contextmanager
def shoe_and_driver(dialect: str, endpoint: str, **sim_options: Any) -> Iterator[tuple[SimShoe, Device, Events]]:
    events = Events()
    sim_options.setdefault("cards", SCRIPT)
    sim_options.setdefault("ack_timeout", FAST.ack)
    with SimShoe(dialect=dialect, endpoint=endpoint, seed=7, **sim_options) as sim:
        driver = shoe_driver(dialect, "shoe", sim.url, events.queue.put, timing=FAST, identity=ASCII_IDENTITY)
        driver.start()
        try:
            yield sim, driver, events
        finally:
            driver.stop()


def game_events(evs: list[DeviceEvent]) -> list[DeviceEvent]:
    return [ev for ev in evs if isinstance(ev, (CardRead, CutCard, CardUnreadable, CardFaceUp, ShoeEmpty))]


EXPECTED = [CardRead("shoe", "4", "S"), CardRead("shoe", "K", "D"), CardRead("shoe", "9", "H"), CutCard("shoe"),
            CardRead("shoe", "A", "C"), CardRead("shoe", "T", "D"), ShoeEmpty("shoe")]  # fmt: skip


@pytest.mark.parametrize(("dialect", "endpoint"), COMBOS)
def test_handshake_then_cards_in_order(dialect: str, endpoint: str) -> None:
    with shoe_and_driver(dialect, endpoint) as (sim, driver, events):
        identified = events.next(DeviceIdentified)
        if dialect == "framed":
            assert identified == DeviceIdentified("shoe", "TS-8", "SIM-0001", "2.1.0")
        else:
            assert identified == DeviceIdentified("shoe", "ASCII-SHOE", "PROFILE-SN", "unknown")
            assert isinstance(events.next(IdentityUnverified), IdentityUnverified)
        for _ in range(len(SCRIPT) + 1):
            sim.draw()
        assert game_events(events.until(lambda ev: isinstance(ev, ShoeEmpty))) == EXPECTED
        assert driver.state == "running"


@pytest.mark.parametrize("endpoint", ["pty", "socket"])
def test_corrupt_frames_are_nakked_and_retransmitted_no_card_lost(endpoint: str) -> None:
    cards = [f"{r}{s}" for r in "A23456789" for s in "CD"]
    with shoe_and_driver("framed", endpoint, cards=cards, faults=ShoeFaults(corrupt_byte=0.5)) as (sim, _, events):
        events.next(DeviceIdentified)
        for _ in range(len(cards) + 1):
            sim.draw()
        got = events.until(lambda ev: isinstance(ev, ShoeEmpty))
    assert [f"{ev.rank}{ev.suit}" for ev in got if isinstance(ev, CardRead)] == cards
    assert any(isinstance(ev, ProtocolError) for ev in got)


def test_duplicated_frames_are_dropped_by_sequence_number() -> None:
    with shoe_and_driver("framed", "pty", faults=ShoeFaults(duplicate_frame=1.0)) as (sim, _, events):
        events.next(DeviceIdentified)
        for _ in range(len(SCRIPT) + 1):
            sim.draw()
        assert game_events(events.until(lambda ev: isinstance(ev, ShoeEmpty))) == EXPECTED


def test_dropped_frames_are_retransmitted_after_the_ack_timeout() -> None:
    with shoe_and_driver("framed", "socket", faults=ShoeFaults(drop_frame=0.5)) as (sim, _, events):
        events.next(DeviceIdentified)
        for _ in range(len(SCRIPT) + 1):
            sim.draw()
        assert game_events(events.until(lambda ev: isinstance(ev, ShoeEmpty))) == EXPECTED


def test_heartbeat_loss_is_device_lost_then_reconnect_identifies_again_pty() -> None:
    with shoe_and_driver("framed", "pty") as (sim, driver, events):
        events.next(DeviceIdentified)
        sim.draw()
        sim.link.begin_outage(0.6)
        lost = events.next(DeviceLost)
        assert "heartbeat" in lost.reason
        sim.draw()  # drawn while the shoe is silent: delivered once it is back
        later = events.until(lambda ev: isinstance(ev, CardRead) and ev.rank == "K")
        assert any(isinstance(ev, DeviceIdentified) for ev in later)
        assert [ev for ev in events.seen if isinstance(ev, CardRead)] == [
            CardRead("shoe", "4", "S"),
            CardRead("shoe", "K", "D"),
        ]


@pytest.mark.parametrize("dialect", ["framed", "ascii"])
def test_socket_disconnect_then_reconnect_identifies_again(dialect: str) -> None:
    with shoe_and_driver(dialect, "socket") as (sim, driver, events):
        events.next(DeviceIdentified)
        sim.link.begin_outage(0.5)
        assert isinstance(events.next(DeviceLost), DeviceLost)
        sim.draw()
        events.next(DeviceIdentified)
        assert events.next(CardRead) == CardRead("shoe", "4", "S")


def test_ascii_garbage_is_skipped_and_reported() -> None:
    with shoe_and_driver("ascii", "pty") as (sim, _, events):
        events.next(DeviceIdentified)
        sim.link.endpoint.write(b"\x00\x13zz~ [Game]<Card:QQ> ")
        sim.draw()
        got = events.until(lambda ev: isinstance(ev, CardRead))
    errors = [ev for ev in got if isinstance(ev, ProtocolError)]
    assert errors and all("garbage" in ev.text for ev in errors[:-1]) and "Card:QQ" in errors[-1].text
    assert got[-1] == CardRead("shoe", "4", "S")


@pytest.mark.parametrize("dialect", ["framed", "ascii"])
def test_unreadable_face_up_and_empty_faults(dialect: str) -> None:
    with shoe_and_driver(dialect, "pty", faults=ShoeFaults(unreadable_card=1.0)) as (sim, _, events):
        events.next(DeviceIdentified)
        sim.draw()
        assert events.next(CardUnreadable) == CardUnreadable("shoe", False)
    with shoe_and_driver(dialect, "pty", faults=ShoeFaults(face_up_card=1.0)) as (sim, _, events):
        events.next(DeviceIdentified)
        sim.draw()
        expected = CardFaceUp("shoe", "4", "S") if dialect == "framed" else CardFaceUp("shoe")
        assert events.next(CardFaceUp) == expected  # § 541.14(d)
    with shoe_and_driver(dialect, "pty", faults=ShoeFaults(empty_early=1.0)) as (sim, _, events):
        events.next(DeviceIdentified)
        assert isinstance(sim.draw().message, ShoeEmptyMessage)
        assert events.next(ShoeEmpty) == ShoeEmpty("shoe")  # § 541.14(e): too few cards


def test_burn_mode_command_is_acked_and_flags_cards() -> None:
    with shoe_and_driver("framed", "pty") as (sim, driver, events):
        events.next(DeviceIdentified)
        assert isinstance(driver, FramedShoe)
        driver.set_burn_mode(True)
        driver.send(SetBurnMode(True))  # a second identical command is a new frame, not a duplicate
        eventually(lambda: sim.burn_mode)
        sim.draw()
        assert events.next(CardRead) == CardRead("shoe", "4", "S", burn=True)  # § 541.5(g) burn card


@pytest.mark.parametrize("suit_first_burns", [0.0, 0.5, 1.0], ids=["rank-first", "mixed", "suit-first"])
def test_541_5_g_ascii_driver_reads_burn_cards_in_either_order(suit_first_burns: float) -> None:
    # PRODUCT.md: the market shoe writes burn cards rank first and has been seen to write them
    # suit first (<Card:H3>); the driver takes both.
    cards = [f"{r}{s}" for r in "A23456789TJQK" for s in "CH"]
    with shoe_and_driver("ascii", "pty", cards=cards, suit_first_burns=suit_first_burns) as (sim, _, events):
        events.next(DeviceIdentified)
        sim.burn_mode = True  # the shoe's burn button
        for _ in cards:
            sim.draw()
        read = [events.next(CardRead) for _ in cards]
    assert read == [CardRead("shoe", card[0], card[1], burn=True) for card in cards]


class _DeafToCommands(FramedSimLink):
    """A shoe that answers the handshake but never acknowledges a command."""

    #: Commands this link was sent (counted per link: no state shared between tests).
    commands_seen = 0

    def _on_frame(self, frame: Any) -> None:
        if frame.type == 0x81:
            self.commands_seen += 1
            return
        super()._on_frame(frame)


def test_unacked_command_is_retransmitted_up_to_the_limit_then_the_device_is_lost() -> None:
    events = Events()
    with SimShoe(dialect="framed", endpoint="pty", cards=SCRIPT) as sim:
        sim.link.__class__ = _DeafToCommands
        driver = shoe_driver("framed", "shoe", sim.url, events.queue.put, timing=FAST)
        driver.start()
        try:
            events.next(DeviceIdentified)
            driver.set_burn_mode(True)  # type: ignore[attr-defined]
            lost = events.next(DeviceLost)
        finally:
            driver.stop()
    assert "no ack for SEQ 1" in lost.reason
    assert sim.link.commands_seen >= FAST.retries + 1  # type: ignore[union-attr]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_missing_port_is_reported_once_and_retried_until_it_appears() -> None:
    port = _free_port()
    events = Events()
    driver = shoe_driver("framed", "shoe", f"socket://127.0.0.1:{port}", events.queue.put, timing=FAST)
    driver.start()
    try:
        fault = events.next(DeviceFault)
        assert fault.code == "port_missing" and f"127.0.0.1:{port}" in fault.text and fault.text.startswith("shoe: ")
        with SimShoe(dialect="framed", endpoint="socket", port=port, cards=SCRIPT):
            got = events.until(lambda ev: isinstance(ev, DeviceIdentified))
        assert not any(isinstance(ev, DeviceFault) for ev in got)  # reported once, not per attempt
    finally:
        driver.stop()


def test_refused_identity_is_a_fault_and_no_identification() -> None:
    events = Events()
    with SimShoe(dialect="framed", endpoint="pty", cards=SCRIPT) as sim:
        driver = shoe_driver(
            "framed",
            "shoe",
            sim.url,
            events.queue.put,
            timing=FAST,
            refusal=lambda model, serial, firmware: f"firmware {firmware!r} is not approved",
        )
        driver.start()
        try:
            fault = events.next(DeviceFault)
        finally:
            driver.stop()
    assert fault.code == "unapproved" and "'2.1.0' is not approved" in fault.text
    assert not any(isinstance(ev, DeviceIdentified) for ev in events.seen)


def test_transport_open_error_names_device_and_port() -> None:
    transport = SerialTransport("shoe", "/dev/does-not-exist-42", lambda data: None, lambda why: None)
    with pytest.raises(DeviceNotFound, match=r"^shoe: cannot open port /dev/does-not-exist-42"):
        transport.open()


def test_unknown_dialect_and_missing_identity_are_clear_errors() -> None:
    from drivers.errors import DriverError

    with pytest.raises(DriverError, match="unknown shoe dialect 'morse'"):
        shoe_driver("morse", "shoe", "loop://", lambda ev: None)
    with pytest.raises(DriverError, match="needs the identity"):
        shoe_driver("ascii", "shoe", "loop://", lambda ev: None)


@pytest.mark.slow
@pytest.mark.parametrize(("dialect", "endpoint"), [("framed", "pty"), ("ascii", "socket")])
def test_whole_eight_deck_shoe_with_wire_faults_loses_no_card(dialect: str, endpoint: str) -> None:
    faults = (
        ShoeFaults(corrupt_byte=0.02, drop_frame=0.02, duplicate_frame=0.02) if dialect == "framed" else ShoeFaults()
    )
    with shoe_and_driver(dialect, endpoint, cards=None, decks=8, faults=faults) as (sim, _, events):
        events.next(DeviceIdentified)
        drawn = []
        while not isinstance((draw := sim.draw()).message, ShoeEmptyMessage):
            drawn.append(draw.card or CUT)
        got = events.until(lambda ev: isinstance(ev, ShoeEmpty), timeout=60)
    read = [f"{ev.rank}{ev.suit}" if isinstance(ev, CardRead) else CUT for ev in game_events(got)[:-1]]
    assert read == drawn and len([c for c in drawn if c != CUT]) == 416


class _CorruptFirstCommand(SerialTransport):
    """A transport that damages the first SET_BURN_MODE frame the driver writes."""

    damaged = 0

    def write(self, data: bytes) -> None:
        if data[3:4] == b"\x81" and _CorruptFirstCommand.damaged == 0:
            _CorruptFirstCommand.damaged += 1
            data = data[:-1] + bytes([data[-1] ^ 0xFF])
        super().write(data)


def test_command_damaged_on_the_way_is_nakked_by_the_shoe_and_sent_again() -> None:
    events = Events()
    with SimShoe(dialect="framed", endpoint="pty", cards=SCRIPT, ack_timeout=FAST.ack) as sim:
        slow_acks = Timing(ack=30.0, retries=3, heartbeat=0.1, handshake=0.15)  # only a NAK can resend in time
        driver = shoe_driver(
            "framed", "shoe", sim.url, events.queue.put, timing=slow_acks, transport_factory=_CorruptFirstCommand
        )
        driver.start()
        try:
            events.next(DeviceIdentified)
            driver.set_burn_mode(True)  # type: ignore[attr-defined]
            eventually(lambda: sim.burn_mode)
        finally:
            driver.stop()
    assert _CorruptFirstCommand.damaged == 1
