"""``tablehost capture``: record the raw traffic of every device of a table profile, standalone.

Each device of the profile gets its production driver (built by the wiring, so the ports,
dialects, timing and allow-lists are the service's own), with every byte it reads and writes,
every open, close and failure of its port, and every event it reports written to ``--out``
in the capture format (``docs/protocols/capture-format.md``). The events are also printed as
they come, so the person at the bench sees what the device said. A device whose port is
``sim`` gets its simulator, which nobody handles: only its handshake and heartbeats are
recorded. Stops after ``--seconds``, or on Ctrl-C / SIGTERM; then prints a summary.

Do not run it while the service holds the same ports: one program per port.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from typing import Any

from drivers.capture import RX, TX, CaptureWriter
from drivers.events import DeviceEvent, to_record
from firmware_host.cli import checks
from firmware_host.config.profiles import DeviceSlot, load_table
from firmware_host.errors import TablehostError
from firmware_host.wiring.devices import DeviceContext, build_device

__all__ = ["register", "run_capture"]


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add ``tablehost capture``."""
    parser = groups.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--profile", required=True, type=checks.file_to_read, help="table profile whose devices to record"
    )
    parser.add_argument("--out", required=True, type=checks.file_to_write, help="capture file to write (JSON lines)")
    parser.add_argument("--seconds", type=checks.positive_number, help="stop after this many seconds (default: Ctrl-C)")
    parser.add_argument(
        "--device",
        action="append",
        metavar="NAME",
        help="record only this device of the profile (repeatable; default: all)",
    )
    parser.set_defaults(func=run_capture)


def _printer(started: float) -> Any:
    def show(ev: DeviceEvent) -> None:
        name, data = to_record(ev)
        fields = " ".join(f"{key}={value}" for key, value in data.items() if key != "device")
        print(f"{time.monotonic() - started:9.3f} {ev.device} {name} {fields}".rstrip(), flush=True)

    return show


def run_capture(args: argparse.Namespace) -> int:
    """Record until ``--seconds`` or a signal; 0 when the capture was written."""
    profile = load_table(args.profile)
    slots = [slot for name, slot in profile.devices.items() if not args.device or name in args.device]
    unknown = sorted(set(args.device or ()) - set(profile.devices))
    if unknown:
        raise TablehostError(f"{args.profile}: no device {', '.join(unknown)} (it has: {', '.join(profile.devices)})")
    stop = threading.Event()
    previous = {signum: signal.signal(signum, lambda *_: stop.set()) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        return _record(args, profile, slots, stop)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _record(args: argparse.Namespace, profile: Any, slots: list[DeviceSlot], stop: threading.Event) -> int:
    started = time.monotonic()
    with CaptureWriter(args.out) as writer:
        context = DeviceContext(profile.path, seed=0, decks=profile.decks, capture=writer)
        emit = writer.tap_events(_printer(started))
        devices = [build_device(slot, emit, context) for slot in slots]
        print(
            f"recording {', '.join(slot.name for slot in slots)} into {args.out}"
            f"{f' for {args.seconds:g}s' if args.seconds else ' (Ctrl-C stops)'}",
            flush=True,
        )
        try:
            for parts in devices:
                parts.start_sim()
                parts.driver.start()
            stop.wait(args.seconds)
        finally:
            for parts in devices:
                parts.driver.stop()
                parts.stop_sim()
        counts = dict(writer.counts)
    for slot in slots:
        name = slot.name
        print(
            f"{name}: {counts.get((name, RX), 0)} bytes received, {counts.get((name, TX), 0)} sent, "
            f"{counts.get((name, 'control'), 0)} control transfers, {counts.get((name, 'events'), 0)} events",
            file=sys.stdout,
        )
    return 0
