"""The pyusb transport against the simulated shuffler: finding, claiming, transfers, and every
pyusb error translated into a DriverError that names the device."""

from __future__ import annotations

import errno
import queue
import threading

import pytest
import usb.core
import usb.util

from drivers.codecs import shuffler as codec
from drivers.errors import DeviceNotFound, DeviceTimeout, DriverError
from drivers.usb import UsbError, UsbGone, UsbTransport
from sim.devices.shuffler import SimulatedShuffler

VID, PID = 0x1209, 0x7AB1


def transport(sim: SimulatedShuffler, **options: object) -> UsbTransport:
    return UsbTransport("shuffler", VID, PID, sim, **options)  # type: ignore[arg-type]


def test_pyusb_finds_the_simulated_device_with_its_descriptors_and_strings() -> None:
    sim = SimulatedShuffler(1, serial="SH16-000042")
    device = usb.core.find(idVendor=VID, idProduct=PID, backend=sim)
    assert device is not None
    try:
        assert (device.manufacturer, device.product, device.serial_number) == ("tablehost", "SH-16", "SH16-000042")
        assert device.bcdDevice == 0x0302
        interface = device[0][(0, 0)]
        assert interface.bInterfaceClass == 0xFF
        assert [(ep.bEndpointAddress, usb.util.endpoint_type(ep.bmAttributes)) for ep in interface] == [
            (0x01, usb.util.ENDPOINT_TYPE_BULK),
            (0x81, usb.util.ENDPOINT_TYPE_BULK),
        ]
    finally:
        usb.util.dispose_resources(device)


def test_open_detaches_a_kernel_driver_configures_and_claims() -> None:
    sim = SimulatedShuffler(1, kernel_driver_active=True)
    pipe = transport(sim)
    pipe.open()
    try:
        assert pipe.is_open
        identity = codec.unpack_identity(pipe.control_in(codec.GET_IDENTITY, length=codec.CONTROL_IN_LENGTH))
        assert identity.model == "SH-16"
        pipe.write(codec.TABLE.encode(codec.StartShuffle("A", 416)))  # the interface is claimed
    finally:
        pipe.close()
    assert not pipe.is_open


def test_a_device_not_on_the_bus_is_not_found() -> None:
    sim = SimulatedShuffler(1)
    sim.unplug()
    with pytest.raises(DeviceNotFound, match=r"^shuffler: no USB device 1209:7ab1 found"):
        transport(sim).open()
    with pytest.raises(DeviceNotFound, match="no USB device 1209:7ab2"):
        UsbTransport("shuffler", VID, PID + 1, SimulatedShuffler(1)).open()


class _Refusing(SimulatedShuffler):
    """A bus where opening the device fails with one errno."""

    def __init__(self, error_number: int) -> None:
        super().__init__(1)
        self.error_number = error_number

    def open_device(self, dev: object) -> object:
        raise usb.core.USBError("refused", -3, self.error_number)


def test_no_permission_names_the_udev_rule() -> None:
    with pytest.raises(DeviceNotFound, match="permission denied.*60-tablehost-shuffler.rules.*tablehost group") as info:
        transport(_Refusing(errno.EACCES)).open()
    assert isinstance(info.value.__cause__, usb.core.USBError)


def test_a_busy_interface_is_reported() -> None:
    with pytest.raises(DeviceNotFound, match="in use by another program"):
        transport(_Refusing(errno.EBUSY)).open()


class _Flaky(SimulatedShuffler):
    """Control transfers fail with a chosen pyusb error."""

    error: usb.core.USBError | None = None

    def ctrl_transfer(self, *args: object) -> int:
        if self.error is not None:
            raise self.error
        return super().ctrl_transfer(*args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "expected", "text"),
    [
        (usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT), DeviceTimeout, "timed out"),
        (usb.core.USBError("No such device", -4, errno.ENODEV), UsbGone, "disconnected"),
        (usb.core.USBError("Pipe error", -9, errno.EPIPE), UsbError, "failed: .*Pipe error"),
    ],
)
def test_transfer_errors_are_translated_with_the_device_name(
    error: usb.core.USBError, expected: type, text: str
) -> None:
    sim = _Flaky(1)
    pipe = transport(sim)
    pipe.open()
    try:
        sim.error = error
        with pytest.raises(expected, match=rf"^shuffler: control request 0x01.*{text}") as info:
            pipe.control_in(codec.GET_IDENTITY)
        assert isinstance(info.value, DriverError) and info.value.__cause__ is error
    finally:
        pipe.close()
    assert issubclass(DeviceTimeout, TimeoutError) and issubclass(UsbGone, ConnectionError)


def test_an_unknown_vendor_request_is_stalled() -> None:
    pipe = transport(SimulatedShuffler(1))
    pipe.open()
    try:
        with pytest.raises(UsbError, match="Pipe error"):
            pipe.control_in(0x7F)
    finally:
        pipe.close()


def test_the_reader_thread_hands_over_bytes_and_reports_an_unplug_once() -> None:
    sim = SimulatedShuffler(1)
    chunks: queue.Queue[bytes] = queue.Queue()
    lost: list[str] = []
    done = threading.Event()

    def on_lost(reason: str) -> None:
        lost.append(reason)
        done.set()

    pipe = transport(sim, on_bytes=chunks.put, on_lost=on_lost)
    pipe.open()
    try:
        pipe.write(codec.TABLE.encode(codec.StartShuffle("A", 416)))
        assert chunks.get(timeout=10)[:1] == b"\xa5"
        sim.unplug()
        assert done.wait(10)
        assert lost == ["bulk read: device 1209:7ab1 disconnected"]
        with pytest.raises(UsbGone):
            pipe.write(b"\xa5")
    finally:
        pipe.close()
        pipe.close()  # idempotent, and quiet although the device is gone
