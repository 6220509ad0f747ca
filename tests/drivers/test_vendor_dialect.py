"""A second vendor's shoe dialect with acks is a frame layout and a registry entry (issue 31, item 4).

The layout (``tests/support/vendor_dialect.py``) is not ours: another start byte (0x7E), the
header in another order (TYPE, SEQ, LEN) and a CRC-32 trailer (little-endian) instead of our
CRC-16. Registered as a dialect by each test, it is spoken by the real driver's ack/retry
layer (handshake, ack, NAK and retransmission, duplicates dropped, commands acked) against the
simulated link, with no change to either.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers import dialects
from drivers.codecs import GARBAGE, BadFrame, drain
from drivers.codecs import shoe_framed as shoe
from drivers.codecs.framed import Frame
from drivers.codecs.framer import Framer
from drivers.codecs.shoe_messages import Card, SetBurnMode
from drivers.device import Identity
from drivers.dialects import ShoeDialect, UnknownDialect
from drivers.errors import DriverError
from drivers.events.lifecycle import DeviceIdentified, ProtocolError
from drivers.events.shoe import CardRead, CutCard, ShoeEmpty
from drivers.shoe import FramedShoe, shoe_driver
from sim.devices.faults import ShoeFaults
from sim.devices.shoe import CUT, SimShoe
from tests.support.device_events import FAST, Events, eventually
from tests.support.vendor_dialect import MAX_LEN, START, VendorLayout, registered

SCRIPT = ["4S", "KD", "9H", CUT, "AC", "TD"]
EXPECTED = [CardRead("shoe", "4", "S"), CardRead("shoe", "K", "D"), CardRead("shoe", "9", "H"), CutCard("shoe"),
            CardRead("shoe", "A", "C"), CardRead("shoe", "T", "D"), ShoeEmpty("shoe")]  # fmt: skip


@pytest.fixture
def vendor() -> Iterator[VendorLayout]:
    """The vendor's dialect, registered as ``vendor-crc32`` for the test."""
    with registered() as layout:
        yield layout


@contextlib.contextmanager
def vendor_shoe(faults: ShoeFaults) -> Iterator[tuple[SimShoe, FramedShoe, Events]]:
    events = Events()
    with SimShoe(dialect="vendor-crc32", endpoint="pty", cards=SCRIPT, faults=faults, ack_timeout=FAST.ack) as sim:
        driver = shoe_driver("vendor-crc32", "shoe", sim.url, events.queue.put, timing=FAST)
        assert isinstance(driver, FramedShoe)
        driver.start()
        try:
            assert events.next(DeviceIdentified) == DeviceIdentified("shoe", "TS-8", "SIM-0001", "2.1.0")
            yield sim, driver, events
        finally:
            driver.stop()


def deal_all(sim: SimShoe, events: Events) -> list[object]:
    for _ in range(len(SCRIPT) + 1):
        sim.draw()
    return events.until(lambda ev: isinstance(ev, ShoeEmpty))


@pytest.mark.parametrize(
    "faults",
    [ShoeFaults(duplicate_frame=1.0), ShoeFaults(corrupt_byte=0.4), ShoeFaults(drop_frame=0.4)],
    ids=["duplicates-dropped", "corrupt-nakked-and-resent", "dropped-resent-after-ack-timeout"],
)
def test_vendor_framed_dialect_runs_the_ack_retry_layer_unchanged(vendor: VendorLayout, faults: ShoeFaults) -> None:
    with vendor_shoe(faults) as (sim, _, events):
        got = deal_all(sim, events)
    assert [ev for ev in got if isinstance(ev, (CardRead, CutCard, ShoeEmpty))] == EXPECTED
    assert vendor.frames > len(SCRIPT)  # both ends spoke the vendor's layout
    if faults.corrupt_byte:
        assert any(isinstance(ev, ProtocolError) for ev in got)


def test_vendor_dialect_command_is_acked_and_flags_burn_cards(vendor: VendorLayout) -> None:
    with vendor_shoe(ShoeFaults()) as (sim, driver, events):
        driver.set_burn_mode(True)
        eventually(lambda: sim.burn_mode)
        sim.draw()
        assert events.next(CardRead) == CardRead("shoe", "4", "S", burn=True)  # § 541.5(g) burn card


def test_unknown_dialect_raises_past_where_it_enters_naming_it() -> None:
    with pytest.raises(UnknownDialect, match=r"^shoe: unknown shoe dialect 'vendor-crc32' \(known: framed, ascii"):
        shoe_driver("vendor-crc32", "shoe", "loop://", lambda ev: None, identity=Identity("m", "s", "f"))
    with pytest.raises(ValueError, match="'morse'"):
        dialects.shoe_dialect("morse")


def test_a_dialect_name_is_registered_once_and_talk_only_needs_a_codec(vendor: VendorLayout) -> None:
    with pytest.raises(DriverError, match="'framed' is registered already"):
        dialects.register(ShoeDialect("framed", framer=shoe.FRAMER))
    with pytest.raises(DriverError, match="needs decode and encode"):
        dialects.register(ShoeDialect("mute"))
    assert dialects.names() == ("framed", "ascii", "vendor-crc32")


frames = st.builds(Frame, st.integers(0, 255), st.integers(0, 255), st.binary(max_size=MAX_LEN))


@given(st.lists(frames, max_size=5), st.binary(max_size=8))
def test_vendor_layout_decodes_what_it_encodes_after_garbage(sent: list[Frame], noise: bytes) -> None:
    layout = VendorLayout()
    noise = noise.replace(bytes((START,)), b"")
    buffer = bytearray(noise + b"".join(layout.encode(frame) for frame in sent))
    got = list(drain(layout.decode, buffer))
    assert [item for item in got if isinstance(item, Frame)] == sent
    assert all(item.kind == GARBAGE for item in got if isinstance(item, BadFrame))
    assert not buffer


@given(st.binary(max_size=120))
def test_vendor_layout_never_fails_on_noise_and_always_progresses(data: bytes) -> None:
    layout, buffer = VendorLayout(), bytearray(data)
    consumed, _ = layout.decode(buffer)
    assert 0 <= consumed <= len(buffer)
    if consumed == 0 and buffer:
        assert buffer[0] == START  # only an incomplete frame waits


@given(st.sampled_from([Card("4", "S"), Card("K", "D", burn=True), SetBurnMode(True)]), st.integers(1, 255))
def test_vendor_framer_round_trips_shoe_messages(message: object, seq: int) -> None:
    framer = Framer(VendorLayout(), shoe.TABLE)
    consumed, frame = framer.decode(framer.encode(message, seq))
    assert isinstance(frame, Frame) and frame.seq == seq
    assert framer.message(frame) == message
    assert framer.decode(framer.ack(seq))[1] == Frame(seq, 0x03)
