"""The USB side of a simulated shuffler, as a pyusb backend.

:class:`SimulatedUsbDevice` implements :class:`usb.backend.IBackend`, so the production
driver finds it with ``usb.core.find(idVendor=..., idProduct=..., backend=sim)`` and drives
it through pyusb's own API: descriptors, configuration, claiming the interface, bulk
transfers on endpoints 0x01 and 0x81, vendor control requests, string descriptors, kernel
driver detach, and the cable (an unplugged device enumerates as nothing and every transfer
on a handle opened before fails with ENODEV, as libusb reports it).

What the device *does* is a subclass's: the simulated shuffler's firmware
(:class:`sim.devices.shuffler_protocol.ShufflerProtocol`) or a capture's replay
(:class:`sim.devices.replay_usb.ReplayedShuffler`). It queues bytes for the host on
:attr:`SimulatedUsbDevice._in`, schedules what it does later with
:meth:`SimulatedUsbDevice._at` (carried out as the host next touches the bus), and answers
through the hooks :class:`SimulatedUsbDevice` lists, all called with :attr:`SimulatedUsbDevice._cond` held.
"""

from __future__ import annotations

import array
import dataclasses
import errno
import heapq
import itertools
import threading
import time
import types
from collections.abc import Callable, Iterable

import usb.backend
import usb.core

from drivers.codecs import shuffler as codec

__all__ = ["SimulatedUsbDevice", "EP_IN", "EP_OUT", "LIBUSB_ERROR_PIPE", "LIBUSB_ERROR_TIMEOUT", "usb_error"]

#: libusb's error codes, as pyusb's libusb1 backend reports them in ``backend_error_code``.
_LIBUSB_ERROR_NOT_FOUND, _LIBUSB_ERROR_NO_DEVICE = -5, -4
_LIBUSB_ERROR_BUSY, LIBUSB_ERROR_TIMEOUT, LIBUSB_ERROR_PIPE = -6, -7, -9

#: Standard request GET_DESCRIPTOR and the string descriptor type (USB 2.0 § 9.4.3, § 9.6.7).
_GET_DESCRIPTOR, _DESC_TYPE_STRING = 0x06, 0x03
#: Language id US English, the only one this device's strings are in.
_LANGID_EN_US = 0x0409
#: String descriptor indexes of the device descriptor.
_I_MANUFACTURER, _I_PRODUCT, _I_SERIAL = 1, 2, 3
#: Bulk endpoint addresses: OUT 1 and IN 1.
EP_OUT, EP_IN = 0x01, 0x81
#: libusb's speed code for high speed (480 Mbit/s), and its bulk packet size.
_HIGH_SPEED, _BULK_PACKET = 3, 512
#: Vendor-specific interface class.
_VENDOR_CLASS = 0xFF


def usb_error(text: str, libusb_code: int, error_number: int) -> usb.core.USBError:
    """The error pyusb's libusb backend raises for ``libusb_code`` (a timeout is its own class)."""
    if libusb_code == LIBUSB_ERROR_TIMEOUT:
        return usb.core.USBTimeoutError(text, libusb_code, error_number)
    return usb.core.USBError(text, libusb_code, error_number)


def _gone() -> usb.core.USBError:
    return usb_error("No such device (it may have been disconnected)", _LIBUSB_ERROR_NO_DEVICE, errno.ENODEV)


def _stall() -> usb.core.USBError:
    """What the device answers a request it does not know with (a STALL)."""
    return usb_error("Pipe error", LIBUSB_ERROR_PIPE, errno.EPIPE)


@dataclasses.dataclass(frozen=True)
class _DeviceId:
    """What enumeration yields: one appearance of the device on the bus."""

    generation: int
    address: int


@dataclasses.dataclass(frozen=True)
class _Handle:
    """What open_device returns; dead once the device was unplugged after it was opened."""

    generation: int


class SimulatedUsbDevice(usb.backend.IBackend):
    """A vendor-class device with one interface on a simulated USB bus: pass it as pyusb's ``backend``.

    :param identity: its model and serial number (its product and serial number strings).
    :param firmware: its firmware version (the device descriptor's ``bcdDevice``).
    :param manufacturer: its manufacturer string.
    :param vendor_id, product_id: the ids it enumerates with.
    :param kernel_driver_active: a kernel driver holds the interface until detached.

    Hooks for the firmware (each a no-op, or a stall, here): :meth:`_received` (bulk OUT
    bytes), :meth:`_before_read` and :meth:`_on_read` (the host reading bulk IN),
    :meth:`_vendor_in` and :meth:`_vendor_out` (vendor control requests), :meth:`_reset`
    (a reset of the device), :meth:`_on_unplug` and :meth:`_on_replug` (the cable).
    """

    def __init__(self, *, identity: codec.DeviceIdentity, firmware: str, manufacturer: str, vendor_id: int,
                 product_id: int, kernel_driver_active: bool = False) -> None:  # fmt: skip
        self.identity, self.firmware, self.manufacturer = identity, firmware, manufacturer
        self.vendor_id, self.product_id = vendor_id, product_id
        self._cond = threading.Condition(threading.RLock())
        self._plugged, self._generation, self._address = True, 1, 1
        self._configuration = 0
        self._claimed: set[int] = set()
        self._kernel_driver = kernel_driver_active
        self._in = bytearray()  # bytes queued on the bulk IN endpoint
        self._actions: list[tuple[float, int, Callable[[], None]]] = []
        self._action_ids = itertools.count()

    # -- the cable ----------------------------------------------------------------------

    @property
    def plugged(self) -> bool:
        """Whether the device is on the bus."""
        with self._cond:
            self._advance()
            return self._plugged

    def unplug(self) -> None:
        """Pull the USB cable: enumeration finds nothing, open handles fail with ENODEV."""
        with self._cond:
            self._unplug()

    def replug(self) -> None:
        """Plug the cable back in: the device enumerates again at a new address."""
        with self._cond:
            if not self._plugged:
                self._plugged = True
                self._generation += 1
                self._address += 1
                self._configuration, self._claimed, self._in = 0, set(), bytearray()
                self._on_replug()
                self._cond.notify_all()

    def _unplug(self) -> None:
        if self._plugged:
            self._plugged = False
            self._in = bytearray()
            self._cond.notify_all()
            self._on_unplug()

    # -- the device's clock ---------------------------------------------------------------

    def _at(self, delay: float, action: Callable[[], None]) -> None:
        """Have the device do ``action`` in ``delay`` seconds."""
        heapq.heappush(self._actions, (time.monotonic() + delay, next(self._action_ids), action))
        self._cond.notify_all()

    def _advance(self, until: float | None = None) -> None:
        """Do what is due by ``until`` (``None``: now; ``math.inf``: all that is scheduled)."""
        until = time.monotonic() if until is None else until
        while self._actions and self._actions[0][0] <= until:
            heapq.heappop(self._actions)[2]()

    def _next_action_time(self) -> float:
        return self._actions[0][0] if self._actions else float("inf")

    # -- hooks for the firmware -----------------------------------------------------------

    def _received(self, data: bytes) -> None:
        """Bytes the host wrote to the bulk OUT endpoint."""

    def _before_read(self, now: float) -> float:
        """The host waits on the bulk IN endpoint: queue what is due; when to look again."""
        return float("inf")

    def _on_read(self, count: int) -> None:
        """The host read ``count`` bytes of :attr:`_in`."""

    def _vendor_in(self, request: int) -> bytes | None:
        """The data stage of vendor request ``request`` (device to host); ``None``: stall."""
        return None

    def _vendor_out(self, request: int, value: int) -> None:
        """Carry out vendor request ``request`` (host to device, ``wValue`` ``value``)."""
        raise _stall()

    def _reset(self) -> None:
        """The host reset the device (a port reset, or a vendor request)."""
        self._in = bytearray()

    def _on_unplug(self) -> None:
        """The cable was pulled."""

    def _on_replug(self) -> None:
        """The cable is back in (before the host is told)."""

    # -- usb.backend.IBackend ------------------------------------------------------------

    def enumerate_devices(self) -> Iterable[_DeviceId]:
        with self._cond:
            self._advance()
            return [_DeviceId(self._generation, self._address)] if self._plugged else []

    def get_device_descriptor(self, dev: _DeviceId) -> types.SimpleNamespace:
        major, minor = (int(part) for part in (self.firmware.split(".") + ["0", "0"])[:2])
        return types.SimpleNamespace(
            bLength=18, bDescriptorType=0x01, bcdUSB=0x0200, bDeviceClass=0, bDeviceSubClass=0,
            bDeviceProtocol=0, bMaxPacketSize0=64, idVendor=self.vendor_id, idProduct=self.product_id,
            bcdDevice=(major << 8) | minor, iManufacturer=_I_MANUFACTURER, iProduct=_I_PRODUCT,
            iSerialNumber=_I_SERIAL, bNumConfigurations=1, address=dev.address, bus=1, port_number=1,
            port_numbers=(1,), speed=_HIGH_SPEED,
        )  # fmt: skip

    def get_configuration_descriptor(self, dev: _DeviceId, config: int) -> types.SimpleNamespace:
        if config != 0:
            raise IndexError(f"configuration index {config}")
        return types.SimpleNamespace(
            bLength=9, bDescriptorType=0x02, wTotalLength=9 + 9 + 7 + 7, bNumInterfaces=1,
            bConfigurationValue=1, iConfiguration=0, bmAttributes=0xC0, bMaxPower=50, extra_descriptors=[],
        )  # fmt: skip

    def get_interface_descriptor(self, dev: _DeviceId, intf: int, alt: int, config: int) -> types.SimpleNamespace:
        if (intf, alt, config) != (0, 0, 0):
            raise IndexError(f"interface {intf} alt {alt} of configuration {config}")
        return types.SimpleNamespace(
            bLength=9, bDescriptorType=0x04, bInterfaceNumber=0, bAlternateSetting=0, bNumEndpoints=2,
            bInterfaceClass=_VENDOR_CLASS, bInterfaceSubClass=0, bInterfaceProtocol=0, iInterface=0,
            extra_descriptors=[],
        )  # fmt: skip

    def get_endpoint_descriptor(
        self, dev: _DeviceId, ep: int, intf: int, alt: int, config: int
    ) -> types.SimpleNamespace:
        if (intf, alt, config) != (0, 0, 0) or ep not in (0, 1):
            raise IndexError(f"endpoint {ep} of interface {intf}")
        return types.SimpleNamespace(
            bLength=7, bDescriptorType=0x05, bEndpointAddress=(EP_OUT, EP_IN)[ep], bmAttributes=0x02,
            wMaxPacketSize=_BULK_PACKET, bInterval=0, bRefresh=0, bSynchAddress=0, extra_descriptors=[],
        )  # fmt: skip

    def _check(self, handle: _Handle) -> None:
        self._advance()
        if not self._plugged or handle.generation != self._generation:
            raise _gone()

    def open_device(self, dev: _DeviceId) -> _Handle:
        with self._cond:
            self._check(_Handle(dev.generation))
            return _Handle(dev.generation)

    def close_device(self, dev_handle: _Handle) -> None:
        with self._cond:
            if dev_handle.generation == self._generation:
                self._claimed.clear()

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        with self._cond:
            self._check(dev_handle)
            if self._kernel_driver:
                raise usb_error("Resource busy", _LIBUSB_ERROR_BUSY, errno.EBUSY)
            if config_value not in (0, 1):
                raise usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)
            self._configuration = config_value

    def get_configuration(self, dev_handle: _Handle) -> int:
        with self._cond:
            self._check(dev_handle)
            return self._configuration

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self._cond:
            self._check(dev_handle)
            if self._kernel_driver:
                raise usb_error("Resource busy", _LIBUSB_ERROR_BUSY, errno.EBUSY)
            if intf != 0 or self._configuration != 1:
                raise usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)
            self._claimed.add(intf)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self._cond:
            self._check(dev_handle)
            self._claimed.discard(intf)

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        with self._cond:
            self._check(dev_handle)
            return self._kernel_driver

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        with self._cond:
            self._check(dev_handle)
            self._kernel_driver = False

    def _check_bulk(self, handle: _Handle, ep: int, expected: int) -> None:
        self._check(handle)
        if ep != expected or 0 not in self._claimed:
            raise usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)

    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array[int], timeout: int) -> int:
        with self._cond:
            self._check_bulk(dev_handle, ep, EP_OUT)
            self._received(bytes(data))
            return len(data)

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        deadline = time.monotonic() + timeout / 1000
        with self._cond:
            while True:
                self._check_bulk(dev_handle, ep, EP_IN)
                now = time.monotonic()
                look_again = self._before_read(now)
                if self._in:
                    count = min(len(buff) * buff.itemsize, len(self._in))
                    buff[:count] = array.array("B", self._in[:count])
                    del self._in[:count]
                    self._on_read(count)
                    return count
                if now >= deadline:
                    raise usb_error("Operation timed out", LIBUSB_ERROR_TIMEOUT, errno.ETIMEDOUT)
                self._cond.wait(min(deadline, look_again, self._next_action_time()) - now)

    def ctrl_transfer(self, dev_handle: _Handle, bmRequestType: int, bRequest: int, wValue: int,
                      wIndex: int, data: array.array[int], timeout: int) -> int:  # fmt: skip
        with self._cond:
            self._check(dev_handle)
            if bmRequestType == codec.REQUEST_OUT:
                self._vendor_out(bRequest, wValue)
                return len(data)
            if bmRequestType == codec.REQUEST_IN:
                answer = self._vendor_in(bRequest)
            elif bmRequestType == 0x80 and bRequest == _GET_DESCRIPTOR and wValue >> 8 == _DESC_TYPE_STRING:
                answer = self._string_descriptor(wValue & 0xFF)
            else:
                answer = None
            if answer is None:  # the device stalls a request it does not know
                raise _stall()
            count = min(len(data), len(answer))
            data[:count] = array.array("B", answer[:count])
            return count

    def _string_descriptor(self, index: int) -> bytes | None:
        if index == 0:
            body = _LANGID_EN_US.to_bytes(2, "little")
        else:
            text = {_I_MANUFACTURER: self.manufacturer, _I_PRODUCT: self.identity.model,
                    _I_SERIAL: self.identity.serial}.get(index)  # fmt: skip
            if text is None:
                return None
            body = text.encode("utf-16-le")
        return bytes((2 + len(body), _DESC_TYPE_STRING)) + body

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        with self._cond:
            self._check(dev_handle)

    def reset_device(self, dev_handle: _Handle) -> None:
        with self._cond:
            self._check(dev_handle)
            self._reset()
            self._configuration, self._claimed = 0, set()
