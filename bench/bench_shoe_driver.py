"""Shoe driver benchmark: codec decode rate, card latency through a real pseudo-terminal, idle CPU.

- decode: framed and ASCII card frames decoded per second (pure codec, one buffer);
- latency: from :meth:`SimShoe.draw` to the driver's ``CardRead`` on the event queue, over a
  pseudo-terminal, framed dialect (sim thread, tty, reader thread, driver thread), p50/p99/max;
- idle: CPU seconds used by the sim and the driver per wall second with only heartbeats flowing.

    .venv/bin/python bench/bench_shoe_driver.py [--cards N] [--idle SECONDS]
"""

from __future__ import annotations

import argparse
import queue
import statistics
import time

from drivers.codecs import Decoder, drain, framed, shoe_ascii
from drivers.codecs.shoe_framed import TABLE
from drivers.codecs.shoe_messages import Card
from drivers.device import Timing
from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shoe import CardRead
from drivers.shoe import shoe_driver
from sim.devices.shoe import SimShoe


def decode_rate(decode: Decoder, wire: bytes, count: int) -> float:
    buffer = bytearray(wire * count)
    start = time.perf_counter()
    decoded = sum(1 for _ in drain(decode, buffer))
    assert decoded == count
    return count / (time.perf_counter() - start)


def card_latency(cards: int) -> list[float]:
    events: queue.Queue[object] = queue.Queue()
    with SimShoe(seed=1, endpoint="pty") as sim:
        driver = shoe_driver("framed", "shoe", sim.url, events.put, timing=Timing(heartbeat=1.0))
        driver.start()
        try:
            assert isinstance(events.get(timeout=10), DeviceIdentified)
            latencies = []
            while len(latencies) < cards:
                start = time.perf_counter()
                if sim.draw().card is None:
                    sim.reload()
                    continue
                while not isinstance(events.get(timeout=10), CardRead):
                    pass
                latencies.append(time.perf_counter() - start)
            return latencies
        finally:
            driver.stop()


def idle_cpu(seconds: float) -> float:
    events: queue.Queue[object] = queue.Queue()
    with SimShoe(seed=1, endpoint="pty", heartbeat=1.0) as sim:
        driver = shoe_driver("framed", "shoe", sim.url, events.put, timing=Timing(heartbeat=1.0))
        driver.start()
        try:
            events.get(timeout=10)
            cpu, wall = time.process_time(), time.monotonic()
            time.sleep(seconds)
            return (time.process_time() - cpu) / (time.monotonic() - wall)
        finally:
            driver.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=5.0)
    args = parser.parse_args()
    framed_rate = decode_rate(framed.decode, TABLE.encode(Card("4", "S"), 7), 50_000)
    ascii_rate = decode_rate(shoe_ascii.decode, shoe_ascii.encode(Card("4", "S")), 50_000)
    print(f"decode: framed {framed_rate:,.0f} card frames/s, ascii {ascii_rate:,.0f} card frames/s")
    latencies = sorted(card_latency(args.cards))
    p50 = statistics.median(latencies) * 1e6
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1e6
    print(
        f"card latency draw -> CardRead over a pty (framed, {len(latencies)} cards): "
        f"p50 {p50:.0f} us, p99 {p99:.0f} us, max {latencies[-1] * 1e6:.0f} us"
    )
    print(f"idle CPU (sim + driver, heartbeat 1 s, {args.idle:.0f} s): {idle_cpu(args.idle) * 100:.2f} % of one core")


if __name__ == "__main__":
    main()
