"""USB transport on pyusb: find a device by its ids, claim its interface, move bytes.

:class:`UsbTransport` only moves bytes: bulk OUT and IN transfers on the interface's bulk
endpoints, and vendor control transfers on endpoint 0. It knows nothing of frames or
messages (the codec does) nor of reconnection (the driver does). It has the shape of
:class:`~drivers.transport.SerialTransport`, so :class:`~drivers.device.Device` drives
either: one reader thread blocks in bulk IN transfers with a timeout (in the kernel, never
busy-polling), hands each chunk to ``on_bytes``, and calls ``on_lost`` once when the device
goes away (ENODEV on an unplug).

The pyusb backend is injected: ``None`` means libusb-1.0 (the system package
``libusb-1.0-0`` on Raspberry Pi OS); tests and CI pass a simulated device's backend
(:class:`sim.devices.shuffler.SimulatedShuffler`), which pyusb drives through exactly the same
calls. Every pyusb error is translated into a :class:`~drivers.errors.DriverError`
subclass, with ``raise ... from`` and a message that starts with the device's name:

- :class:`UsbGone` (also a :class:`ConnectionError`): the device was unplugged (ENODEV);
- :class:`~drivers.errors.DeviceTimeout` (also a :class:`TimeoutError`): a transfer timed out;
- :class:`~drivers.errors.DeviceNotFound`: :meth:`UsbTransport.open` failed: no device with
  the ids on the bus, no permission (the udev rule), the interface busy, no libusb;
- :class:`UsbUnavailable`: no libusb on this machine;
- :class:`UsbError`: anything else (permissions, a stalled endpoint, a busy interface).
"""

from __future__ import annotations

import errno
import logging
import threading
from collections.abc import Callable

import usb.backend
import usb.core
import usb.util

from drivers.errors import DeviceNotFound, DeviceTimeout, DriverError

__all__ = ["UsbTransport", "UsbError", "UsbGone", "UsbUnavailable", "default_backend", "LIBUSB_PACKAGE"]

#: The Debian / Raspberry Pi OS package that provides libusb-1.0 for pyusb.
LIBUSB_PACKAGE = "libusb-1.0-0"
#: bConfigurationValue of the configuration we use (devices with one configuration number it 1).
DEFAULT_CONFIGURATION = 1
#: Bytes asked for by one bulk IN transfer: a multiple of every USB packet size, larger than
#: any burst of frames a device queues between two reads.
READ_SIZE = 512
#: Timeout of control transfers and bulk writes unless the caller gives one, in seconds.
DEFAULT_TIMEOUT_S = 1.0
#: How long one blocking bulk read of the reader thread waits, in seconds: bounds how quickly
#: :meth:`UsbTransport.close` is noticed (five wake-ups a second when idle).
READ_SLICE_S = 0.2

_log = logging.getLogger("tablehost.drivers.usb")


class UsbError(DriverError, OSError):
    """A USB operation failed for a reason other than an unplug or a timeout."""


class UsbGone(DriverError, ConnectionError):
    """The device disappeared from the bus (unplugged, powered off, reset)."""


class UsbUnavailable(DriverError):
    """pyusb has no backend: the libusb-1.0 library is not installed on this machine."""


def default_backend() -> usb.backend.IBackend:
    """The libusb-1.0 backend of pyusb.

    :raises UsbUnavailable: naming the system package to install when libusb is missing.
    """
    import usb.backend.libusb1

    backend = usb.backend.libusb1.get_backend()
    if backend is None:
        raise UsbUnavailable(f"usb: libusb-1.0 is not installed on this machine (install the package {LIBUSB_PACKAGE})")
    return backend


def _is_bulk(direction: int) -> Callable[[usb.core.Endpoint], bool]:
    def match(endpoint: usb.core.Endpoint) -> bool:
        return bool(
            usb.util.endpoint_type(endpoint.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK
            and usb.util.endpoint_direction(endpoint.bEndpointAddress) == direction
        )

    return match


class UsbTransport:
    """One interface of one USB device, found by vendor and product id.

    :param name: the device's name in the table profile; starts every error message.
    :param vendor_id: ``idVendor`` to look for.
    :param product_id: ``idProduct`` to look for.
    :param backend: the pyusb backend; ``None`` for libusb-1.0 (:func:`default_backend`).
    :param on_bytes: called from the reader thread with each chunk received; ``None``: no
        reader thread (control requests only, as ``tablehost devices`` does).
    :param on_lost: called once from the reader thread when the device fails, with the reason.
    :param interface: ``bInterfaceNumber`` of the interface to claim.
    :param configuration: ``bConfigurationValue`` to set if the device is not in it already.
    :param timeout_s: timeout of control transfers and bulk writes.
    :param location: ``(bus, address)`` of one device, when several share the ids.
    :param claim: configure and claim the interface; ``False`` opens the device for vendor
        control requests only, which works while another program (the service) holds it.
    """

    def __init__(
        self,
        name: str,
        vendor_id: int,
        product_id: int,
        backend: usb.backend.IBackend | None = None,
        *,
        on_bytes: Callable[[bytes], None] | None = None,
        on_lost: Callable[[str], None] | None = None,
        interface: int = 0,
        configuration: int = DEFAULT_CONFIGURATION,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        location: tuple[int, int] | None = None,
        claim: bool = True,
    ) -> None:
        self.name = name
        self.vendor_id, self.product_id = vendor_id, product_id
        self.interface, self.configuration = interface, configuration
        self.timeout_s = timeout_s
        self.location, self.claim = location, claim
        self._backend = backend
        self._on_bytes, self._on_lost = on_bytes, on_lost
        self._device: usb.core.Device | None = None
        self._ep_out = self._ep_in = 0
        self._lock = threading.Lock()  # open() and close() only; transfers run concurrently
        self._reader: threading.Thread | None = None
        self._closing = threading.Event()

    @property
    def ids(self) -> str:
        """``vvvv:pppp`` in hex, as ``lsusb`` shows it."""
        return f"{self.vendor_id:04x}:{self.product_id:04x}"

    @property
    def is_open(self) -> bool:
        """Whether :meth:`open` succeeded and :meth:`close` was not called since."""
        return self._device is not None

    def backend(self) -> usb.backend.IBackend:
        """The injected backend, or libusb-1.0 (:class:`UsbUnavailable` when missing)."""
        if self._backend is None:
            self._backend = default_backend()
        return self._backend

    def open(self) -> None:
        """Find the device, detach a kernel driver from the interface, set the configuration,
        claim the interface, and start the reader thread (if ``on_bytes`` was given).

        :raises DeviceNotFound: naming the device and why it cannot be opened (not on the
            bus, unplugged while opening, no permission, interface busy, no libusb).
        """
        with self._lock:
            if self._device is not None:
                return
            try:
                backend = self.backend()
            except UsbUnavailable as exc:
                raise DeviceNotFound(f"{self.name}: {exc}") from exc
            try:
                device = usb.core.find(
                    idVendor=self.vendor_id, idProduct=self.product_id, backend=backend,
                    custom_match=None if self.location is None else lambda d: (d.bus, d.address) == self.location,
                )  # fmt: skip
            except usb.core.USBError as exc:
                raise DeviceNotFound(str(self._translate(exc, "enumerating the bus"))) from exc
            if device is None:
                where = "" if self.location is None else f" at bus {self.location[0]} address {self.location[1]}"
                raise DeviceNotFound(f"{self.name}: no USB device {self.ids}{where} found (plugged in? powered?)")
            try:
                if self.claim:
                    self._claim(device)
            except usb.core.USBError as exc:
                usb.util.dispose_resources(device)
                raise DeviceNotFound(str(self._translate(exc, "claiming the interface"))) from exc
            except ValueError as exc:  # pyusb: no such configuration, interface or endpoint
                usb.util.dispose_resources(device)
                raise DeviceNotFound(
                    f"{self.name}: USB device {self.ids} does not have the expected layout: {exc}"
                ) from exc
            self._device = device
            if self._on_bytes is not None:
                self._closing.clear()
                self._reader = threading.Thread(target=self._read_loop, name=f"{self.name}-usb-reader", daemon=True)
                self._reader.start()

    def _read_loop(self) -> None:
        assert self._on_bytes is not None
        while not self._closing.is_set():
            try:
                data = self.read(READ_SLICE_S)
            except DriverError as exc:
                if not self._closing.is_set() and self._on_lost is not None:
                    self._on_lost(str(exc).removeprefix(f"{self.name}: "))
                return
            if data:
                self._on_bytes(data)

    def _claim(self, device: usb.core.Device) -> None:
        try:
            if device.is_kernel_driver_active(self.interface):
                device.detach_kernel_driver(self.interface)
        except NotImplementedError:  # backends without kernel drivers (not Linux)
            pass
        try:
            active = device.get_active_configuration().bConfigurationValue
        except usb.core.USBError:  # unconfigured
            active = None
        if active != self.configuration:
            device.set_configuration(self.configuration)
        config = device.get_active_configuration()
        interface = usb.util.find_descriptor(config, bInterfaceNumber=self.interface)
        if interface is None:
            raise ValueError(f"no interface {self.interface}")
        ep_out = usb.util.find_descriptor(interface, custom_match=_is_bulk(usb.util.ENDPOINT_OUT))
        ep_in = usb.util.find_descriptor(interface, custom_match=_is_bulk(usb.util.ENDPOINT_IN))
        if ep_out is None or ep_in is None:
            raise ValueError(f"interface {self.interface} lacks a bulk OUT or a bulk IN endpoint")
        usb.util.claim_interface(device, self.interface)
        self._ep_out, self._ep_in = ep_out.bEndpointAddress, ep_in.bEndpointAddress

    def close(self) -> None:
        """Stop the reader thread, release the interface and close the device (idempotent;
        never raises: the device may be gone)."""
        self._closing.set()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=READ_SLICE_S + 2.0)
        self._reader = None
        with self._lock:
            device, self._device = self._device, None
            if device is not None:
                try:
                    usb.util.release_interface(device, self.interface)
                except usb.core.USBError as exc:  # unplugged: nothing to release
                    _log.debug("%s: releasing the interface: %s", self.name, exc)
                usb.util.dispose_resources(device)

    def _open_device(self) -> usb.core.Device:
        device = self._device
        if device is None:
            raise UsbGone(f"{self.name}: not connected")
        return device

    def _ms(self, timeout_s: float | None) -> int:
        return max(1, round(1000 * (self.timeout_s if timeout_s is None else timeout_s)))

    def write(self, data: bytes, timeout_s: float | None = None) -> None:
        """Send ``data`` on the bulk OUT endpoint."""
        device = self._open_device()
        try:
            written = device.write(self._ep_out, data, self._ms(timeout_s))
        except usb.core.USBError as exc:
            raise self._translate(exc, f"bulk write of {len(data)} bytes") from exc
        if written != len(data):
            raise UsbError(f"{self.name}: bulk write sent {written} of {len(data)} bytes")

    def read(self, timeout_s: float) -> bytes:
        """Wait up to ``timeout_s`` for a bulk IN transfer; ``b""`` if nothing came."""
        device = self._open_device()
        try:
            return bytes(device.read(self._ep_in, READ_SIZE, self._ms(timeout_s)))
        except usb.core.USBTimeoutError:
            return b""
        except usb.core.USBError as exc:
            raise self._translate(exc, "bulk read") from exc

    def control_in(self, request: int, value: int = 0, index: int = 0, length: int = 64,
                   timeout_s: float | None = None) -> bytes:  # fmt: skip
        """A vendor control request to the device with a data stage towards the host."""
        device = self._open_device()
        request_type = usb.util.build_request_type(
            usb.util.CTRL_IN, usb.util.CTRL_TYPE_VENDOR, usb.util.CTRL_RECIPIENT_DEVICE
        )
        try:
            return bytes(device.ctrl_transfer(request_type, request, value, index, length, self._ms(timeout_s)))
        except usb.core.USBError as exc:
            raise self._translate(exc, f"control request 0x{request:02X}") from exc

    def control_out(self, request: int, value: int = 0, index: int = 0, data: bytes = b"",
                    timeout_s: float | None = None) -> None:  # fmt: skip
        """A vendor control request to the device with ``data`` (possibly none) towards it."""
        device = self._open_device()
        request_type = usb.util.build_request_type(
            usb.util.CTRL_OUT, usb.util.CTRL_TYPE_VENDOR, usb.util.CTRL_RECIPIENT_DEVICE
        )
        try:
            device.ctrl_transfer(request_type, request, value, index, data or None, self._ms(timeout_s))
        except usb.core.USBError as exc:
            raise self._translate(exc, f"control request 0x{request:02X}") from exc

    def _translate(self, exc: usb.core.USBError, action: str) -> DriverError:
        """The :class:`DriverError` for a pyusb error during ``action``."""
        if isinstance(exc, usb.core.USBTimeoutError) or exc.errno == errno.ETIMEDOUT:
            return DeviceTimeout(f"{self.name}: {action} timed out")
        if exc.errno == errno.ENODEV:
            return UsbGone(f"{self.name}: {action}: device {self.ids} disconnected")
        if exc.errno == errno.EACCES:
            return UsbError(
                f"{self.name}: {action}: permission denied on USB device {self.ids}: install "
                "deploy/udev/60-tablehost-shuffler.rules and run as a member of the tablehost group"
            )
        if exc.errno == errno.EBUSY:
            return UsbError(f"{self.name}: {action}: the interface is in use by another program")
        return UsbError(f"{self.name}: {action} failed: {exc}")
