"""Dice shaker benchmark: reading-frame decode rate and reveal latency through a real pseudo-terminal.

- decode: READING frames decoded and turned into messages per second (pure codec);
- latency: from :meth:`SimShaker.open_lid` to the driver's ``DiceRead`` on the event queue
  (LID open and READING, two acked frames: sim thread, tty, reader thread, driver thread),
  p50/p99/max. Idle CPU is the shoe's figure (same link layer): see ``bench_shoe_driver.py``.

    .venv/bin/python bench/bench_shaker.py [--reveals N]
"""

from __future__ import annotations

import argparse
import queue
import statistics
import time
from typing import Any

from bench_shoe_driver import decode_rate  # bench/ is the script's directory, so on sys.path

from drivers.codecs import framed
from drivers.codecs.shaker import TABLE, Die, Reading
from drivers.device import Timing
from drivers.events.dice import DiceRead
from drivers.events.lifecycle import DeviceIdentified
from drivers.shaker import Shaker
from sim.devices.shaker import SimShaker


def decode_message(buffer: bytearray) -> tuple[int, Any]:
    """Framed decode, then the shaker's message table: what the driver does per frame."""
    consumed, frame = framed.decode(buffer)
    return consumed, TABLE.message(frame) if isinstance(frame, framed.Frame) else frame


def reveal_latency(reveals: int) -> list[float]:
    events: queue.Queue[object] = queue.Queue()
    with SimShaker(seed=1) as sim:
        driver = Shaker("shaker", sim.url, events.put, timing=Timing(heartbeat=1.0))
        driver.start()
        try:
            assert isinstance(events.get(timeout=10), DeviceIdentified)
            latencies = []
            for _ in range(reveals):
                for _ in range(3):
                    sim.shake()
                while sim.pending:  # the shakes are through: time the reveal alone
                    time.sleep(0.001)
                start = time.perf_counter()
                sim.open_lid()
                while not isinstance(events.get(timeout=10), DiceRead):
                    pass
                latencies.append(time.perf_counter() - start)
                sim.close_lid()
            return latencies
        finally:
            driver.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reveals", type=int, default=300)
    args = parser.parse_args()
    wire = TABLE.encode(Reading((Die(3), Die(5), Die(6)), 3), 5)
    rate = decode_rate(decode_message, wire, 50_000)
    print(f"decode: {rate:,.0f} READING frames/s (frame and message)")
    latencies = sorted(reveal_latency(args.reveals))
    p50 = statistics.median(latencies) * 1e6
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1e6
    print(
        f"reveal latency open_lid -> DiceRead over a pty ({len(latencies)} reveals): "
        f"p50 {p50:.0f} us, p99 {p99:.0f} us, max {latencies[-1] * 1e6:.0f} us"
    )


if __name__ == "__main__":
    main()
