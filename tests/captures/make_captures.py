"""Regenerate the capture fixtures of this folder from simulated sessions (seeded).

Run from the repository root: ``.venv/bin/python -m tests.captures.make_captures``. Each
fixture is a device misbehaving, recorded by :mod:`drivers.capture` while the real driver
handled it; ``tests/capture_replay/test_capture_fixtures.py`` replays them.
"""

from __future__ import annotations

import queue
import time
from pathlib import Path

from drivers.events import DeviceEvent
from drivers.events.shoe import ShoeEmpty
from sim.devices.faults import ShoeFaults
from sim.devices.shoe import CUT
from tests.capture_replay.sessions import captured_shoe

HERE = Path(__file__).parent
#: Cards of the fixtures' scripted shoe, in draw order.
SCRIPT = ["4S", "KD", "9H", "2C", "7D", CUT, "AC", "TD", "QS", "5H", "3D", "8C"]
#: Bytes an ASCII shoe with a failing line sends between two frames.
ASCII_GARBAGE = (b"\x00\x13zz~", b"\xff\xfe [Game]<Card:QQ> ", b"[Ga", b" <W0x07> ")


def _until_empty(events: queue.Queue[DeviceEvent]) -> None:
    deadline = time.monotonic() + 30
    while not isinstance(events.get(timeout=max(0.0, deadline - time.monotonic())), ShoeEmpty):
        pass


def framed_shoe_corrupt(path: Path) -> None:
    """A framed shoe whose line corrupts, drops and duplicates frames (the driver naks, the shoe resends)."""
    events: queue.Queue[DeviceEvent] = queue.Queue()
    faults = ShoeFaults(corrupt_byte=0.3, drop_frame=0.1, duplicate_frame=0.2, unreadable_card=0.1)
    with captured_shoe(path, "framed", events.put, seed=4, cards=SCRIPT, faults=faults) as (sim, _, _):
        for _ in range(len(SCRIPT) + 1):
            sim.draw()
        _until_empty(events)


def ascii_shoe_garbage(path: Path) -> None:
    """An ASCII shoe sending garbage, a broken frame and a warning code between its cards."""
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with captured_shoe(path, "ascii", events.put, seed=5, cards=SCRIPT, faults=ShoeFaults(face_up_card=0.1)) as (
        sim,
        _,
        _,
    ):
        time.sleep(0.2)  # the driver has the port open: bytes before that would be flushed
        for index in range(len(SCRIPT) + 1):
            if index < len(ASCII_GARBAGE):
                sim.link.endpoint.write(ASCII_GARBAGE[index])
            sim.draw()
            time.sleep(0.01)
        _until_empty(events)


FIXTURES = {"framed-shoe-corrupt.jsonl": framed_shoe_corrupt, "ascii-shoe-garbage.jsonl": ascii_shoe_garbage}

if __name__ == "__main__":
    for name, make in FIXTURES.items():
        make(HERE / name)
        print(f"wrote {HERE / name}")
