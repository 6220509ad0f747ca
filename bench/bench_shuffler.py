"""Shuffler benchmark: USB command round trip through pyusb and the simulated backend, idle
CPU of the driver, and the end-of-shoe analysis (composition audit and quality watch).

- round trip: from :meth:`ShufflerDriver.start_shuffle` to ``ShuffleCompleted`` on the event
  queue (bulk OUT, the simulated firmware, five bulk IN frames, reader and driver threads),
  a shuffle taking no simulated time, p50/p99/max;
- idle CPU: process CPU time per wall second with the driver connected and nothing to do
  (the reader thread blocks in bulk reads of 0.2 s, the device heartbeats every second);
- end of shoe: audit of 416 cards and the watch against 64 earlier shoes, per shoe.

    .venv/bin/python bench/bench_shuffler.py [--shuffles N]
"""

from __future__ import annotations

import argparse
import queue
import random
import statistics
import time

from drivers.device import Timing
from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shuffler import BatchStatus, ShuffleCompleted
from drivers.shuffler import ShufflerDriver
from firmware_host.rules.baccarat.cards import full_shoe
from firmware_host.rules.shoe_audit import ShuffleWatch, audit_composition
from sim.devices.shuffler import SimulatedShuffler


def round_trips(shuffles: int) -> tuple[list[float], float]:
    events: queue.Queue[object] = queue.Queue()
    driver = ShufflerDriver("shuffler", events.put, backend=SimulatedShuffler(1), timing=Timing(heartbeat=1.0))
    driver.start()
    try:
        while not isinstance(events.get(timeout=10), DeviceIdentified):
            pass
        while not (isinstance(ev := events.get(timeout=10), BatchStatus) and ev.batch == "B"):
            pass
        latencies = []
        for i in range(shuffles):
            start = time.perf_counter()
            driver.start_shuffle("AB"[i % 2], 416)
            while not isinstance(events.get(timeout=10), ShuffleCompleted):
                pass
            latencies.append(time.perf_counter() - start)
        wall, cpu = time.perf_counter(), time.process_time()
        time.sleep(3.0)
        idle = (time.process_time() - cpu) / (time.perf_counter() - wall)
        return latencies, idle
    finally:
        driver.stop()


def end_of_shoe(shoes: int) -> float:
    rng = random.Random(3)
    watch = ShuffleWatch(8)
    elapsed = 0.0
    for shoe in range(1, shoes + 1):
        cards = [str(c) for c in full_shoe(8)]
        rng.shuffle(cards)
        start = time.perf_counter()
        audit_composition(8, cards)
        watch, _ = watch.observe(shoe, cards[:400])
        if shoe > 64:  # the history is full from here on
            elapsed += time.perf_counter() - start
    return elapsed / (shoes - 64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shuffles", type=int, default=300)
    args = parser.parse_args()
    latencies, idle = round_trips(args.shuffles)
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    print(
        f"round trip start_shuffle -> ShuffleCompleted over pyusb + sim backend ({len(latencies)} shuffles): "
        f"p50 {statistics.median(latencies) * 1e6:.0f} us, p99 {p99 * 1e6:.0f} us, max {latencies[-1] * 1e6:.0f} us"
    )
    print(f"idle CPU, driver connected (reader, driver and sim in one process): {idle * 100:.2f} % of one core")
    print(
        f"end of shoe: composition audit + quality watch (64 earlier shoes): {end_of_shoe(100) * 1e3:.1f} ms per shoe"
    )


if __name__ == "__main__":
    main()
