"""``tablehost devices``: the serial ports and USB devices this machine can see, for the bench.

Serial ports come from :func:`serial.tools.list_ports.comports`. USB devices come from
pyusb on libusb-1.0; a device whose ids match a device model in ``hardware-profiles/devices``
is named after it and, for a model whose driver can ask (the shuffler), asked for its
identity and firmware with vendor control requests (which work while the service holds the
device), then checked against the model's allow-list. ``--sim`` adds a simulated shuffler
on its own simulated bus, so the command can be tried (and tested) without hardware. A
machine without libusb gets one line saying so, and the serial ports all the same.

Output: readable lines, or with ``--json`` one JSON object: ``serial`` (list of ports:
``port``, ``description``, ``hwid``, ``vendor_id``, ``product_id``, ``serial_number``),
``usb`` (list of devices: ``source`` (``libusb`` or ``sim``), ``bus``, ``address``, ``vendor_id``, ``product_id`` as
``"1209"``-style hex, ``manufacturer``, ``product``, ``serial_number``, ``profile``,
``identity`` (``model``, ``serial``, ``firmware``, ``approved``, ``refusal``) or
``null``, ``error``) and ``usb_unavailable`` (why USB was not listed, or ``null``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import serial.tools.list_ports
import usb.backend
import usb.core
import usb.util

from drivers.device import Identity
from drivers.errors import DriverError
from drivers.shuffler import read_identity
from drivers.usb import UsbTransport, UsbUnavailable, default_backend
from firmware_host.cli import checks
from firmware_host.config.profiles import DeviceModel, load_device_model
from firmware_host.errors import ProfileError
from sim.devices.shuffler import SimulatedShuffler

#: Where device models live when ``--devices-dir`` is not given, first found: the repository's
#: (a checkout), then where ``deploy/install.sh`` puts them (a Pi).
DEVICES_DIRS = (Path(__file__).resolve().parents[2] / "hardware-profiles" / "devices", Path("/etc/tablehost/devices"))
#: Timeout of each identity request, in seconds.
IDENTITY_TIMEOUT_S = 1.0
#: How to ask a device of each dialect who it is, given an open transport.
IDENTITY_READERS: dict[str, Callable[[UsbTransport, float], Identity]] = {"usb-framed": read_identity}


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add the ``devices`` command."""
    parser = groups.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    parser.add_argument("--sim", action="store_true", help="also list a simulated shuffler (no hardware needed)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of readable lines")
    parser.add_argument(
        "--devices-dir",
        type=checks.directory_to_read,
        default=None,
        metavar="DIR",
        help="device models to recognise devices by (default: hardware-profiles/devices "
        "of this checkout, else /etc/tablehost/devices)",
    )
    parser.set_defaults(func=run_devices)


def _models(directory: Path) -> list[DeviceModel]:
    """Every readable USB device model in ``directory`` (a broken file is skipped, not fatal)."""
    models = []
    for path in sorted(directory.glob("*.toml")):
        try:
            model = load_device_model(path)
        except ProfileError:
            continue
        if model.usb_vendor_id is not None:
            models.append(model)
    return models


def _serial_ports() -> list[dict[str, Any]]:
    return [
        {"port": port.device, "description": port.description, "hwid": port.hwid,
         "vendor_id": None if port.vid is None else f"{port.vid:04x}",
         "product_id": None if port.pid is None else f"{port.pid:04x}", "serial_number": port.serial_number}
        for port in sorted(serial.tools.list_ports.comports(), key=lambda p: p.device)
    ]  # fmt: skip


def _string(device: usb.core.Device, attribute: str) -> str | None:
    """A string descriptor, or ``None`` when it cannot be read (permissions, no strings)."""
    try:
        value = getattr(device, attribute)
    except (usb.core.USBError, ValueError, NotImplementedError):
        return None
    return None if value is None else str(value)


def _identity(model: DeviceModel, device: usb.core.Device, backend: usb.backend.IBackend) -> dict[str, Any]:
    """Ask ``device`` who it is; raises :class:`DriverError` if it cannot."""
    reader = IDENTITY_READERS[model.dialect]
    transport = UsbTransport(model.name, device.idVendor, device.idProduct, backend,
                             location=(device.bus, device.address), claim=False)  # fmt: skip
    transport.open()
    try:
        identity = reader(transport, IDENTITY_TIMEOUT_S)
    finally:
        transport.close()
    refusal = model.approved.refusal(identity.model, identity.serial, identity.firmware)
    return {"model": identity.model, "serial": identity.serial, "firmware": identity.firmware,
            "approved": refusal is None, "refusal": refusal}  # fmt: skip


def _usb_devices(backend: usb.backend.IBackend, models: list[DeviceModel], source: str) -> list[dict[str, Any]]:
    found = []
    for device in usb.core.find(find_all=True, backend=backend):
        model = next(
            (m for m in models if (m.usb_vendor_id, m.usb_product_id) == (device.idVendor, device.idProduct)), None
        )
        entry: dict[str, Any] = {
            "source": source, "bus": device.bus, "address": device.address,
            "vendor_id": f"{device.idVendor:04x}", "product_id": f"{device.idProduct:04x}",
            "manufacturer": _string(device, "manufacturer"), "product": _string(device, "product"),
            "serial_number": _string(device, "serial_number"),
            "profile": model.name if model else None, "identity": None, "error": None,
        }  # fmt: skip
        if model is not None and model.dialect in IDENTITY_READERS:
            try:
                entry["identity"] = _identity(model, device, backend)
            except DriverError as exc:
                entry["error"] = str(exc)
        usb.util.dispose_resources(device)
        found.append(entry)
    return found


def survey(sim: bool, devices_dir: Path | None = None) -> dict[str, Any]:
    """What ``tablehost devices`` reports, as a JSON-ready object."""
    directory = devices_dir or next((d for d in DEVICES_DIRS if d.is_dir()), DEVICES_DIRS[0])
    models = _models(directory)
    report: dict[str, Any] = {"serial": _serial_ports(), "usb": [], "usb_unavailable": None}
    try:
        report["usb"] += _usb_devices(default_backend(), models, "libusb")
    except UsbUnavailable as exc:
        report["usb_unavailable"] = str(exc).removeprefix("usb: ")
    except (usb.core.USBError, OSError) as exc:
        report["usb_unavailable"] = f"the USB bus cannot be listed: {exc}"
    if sim:
        report["usb"] += _usb_devices(SimulatedShuffler(), models, "sim")
    return report


def _print(report: dict[str, Any]) -> None:
    print("serial ports:")
    for port in report["serial"]:
        ids = f"  {port['vendor_id']}:{port['product_id']}" if port["vendor_id"] else ""
        print(f"  {port['port']}{ids}  {port['description']}")
    if not report["serial"]:
        print("  (none)")
    print("usb devices:")
    if report["usb_unavailable"]:
        print(f"  usb: {report['usb_unavailable']}; no real USB device is listed")
    for dev in report["usb"]:
        names = " ".join(v for v in (dev["manufacturer"], dev["product"]) if v) or "(no strings)"
        where = "simulated bus" if dev["source"] == "sim" else "bus"
        line = f"  {where} {dev['bus']} address {dev['address']}  {dev['vendor_id']}:{dev['product_id']}  {names}"
        if dev["profile"]:
            line += f"  [{dev['profile']}]"
        print(line)
        identity = dev["identity"]
        if identity is not None:
            verdict = "approved" if identity["approved"] else f"NOT APPROVED: {identity['refusal']}"
            print(
                f"      model {identity['model']}, serial {identity['serial']}, firmware {identity['firmware']} ({verdict})"
            )
        elif dev["error"]:
            print(f"      identity not read: {dev['error']}")
    if not report["usb"] and not report["usb_unavailable"]:
        print("  (none)")


def run_devices(args: argparse.Namespace) -> int:
    """``tablehost devices [--sim] [--json] [--devices-dir DIR]``."""
    report = survey(args.sim, args.devices_dir)
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        _print(report)
    return 0
