"""The two clocks' cost (issue 28): what the service reads at every step (the wall clock,
``CLOCK_BOOTTIME``, the kernel's synchronisation through ``adjtimex``) and what the controller
computes (a span, the wall-minus-monotonic offset of the clock-step check), and a Pai Gow table's
steps decided with and without the monotonic stamp, in microseconds.

    .venv/bin/python bench/bench_clock.py [--steps N]
"""

from __future__ import annotations

import argparse
import time
import timeit

from drivers.events.lifecycle import DeviceIdentified
from firmware_host.host.clock import SystemClock
from firmware_host.rules.clock import NS, Instant, offset_ns, span
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.tables.events import ClockStatus, ClockTick, DealerCommand
from firmware_host.tables.paigow import PaiGowTable, PaiGowTableRules

REPEAT = 20_000


def per_call_us(function: object, number: int = REPEAT) -> float:
    return timeit.timeit(function, number=number) / number * 1e6  # type: ignore[arg-type]


def table_steps_us(steps: int, stamped: bool) -> float:
    """Microseconds per step of a Pai Gow table fed ticks and refused commands (the dice clock and,
    when ``stamped``, the clock-step check run at every one)."""
    approved = {"shaker": ApprovedIdentities(models=("DS-3",), firmware=("1.0",))}
    table = PaiGowTable("T1", approved, PaiGowTableRules())
    mono = 5 * NS
    table.handle(ClockStatus(device="clock", boot="b", synced=True), 1.75e9, mono if stamped else None)
    table.handle(DeviceIdentified(device="shaker", model="DS-3", serial="1", firmware="1.0"), 1.75e9, mono)
    table.handle(DealerCommand(device="buttons", command="new_dice"), 1.75e9, mono if stamped else None)
    events = [ClockTick(device="clock"), DealerCommand(device="buttons", command="noop")]
    started = time.perf_counter()
    for i in range(steps):
        mono += NS
        table.handle(events[i % 2], 1.75e9 + i, mono if stamped else None)
    return (time.perf_counter() - started) / steps * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    args = parser.parse_args()
    clock = SystemClock()
    start, end = Instant(1.75e9, 10, "b", True), Instant(1.75e9 + 5, 5 * NS, "b", True)
    print(f"time.time():                   {per_call_us(time.time):7.2f} us")
    print(f"CLOCK_BOOTTIME (ns):           {per_call_us(clock.monotonic_ns):7.2f} us")
    print(f"adjtimex (synchronised?):      {per_call_us(clock.synchronised):7.2f} us")
    print(f"span, one boot (monotonic):    {per_call_us(lambda: span(start, end)):7.2f} us")
    print(f"span, wall stamps (0.3.0):     {per_call_us(lambda: span(Instant(1.75e9), Instant(1.75e9 + 5))):7.2f} us")
    print(f"offset (clock-step check):     {per_call_us(lambda: offset_ns(end)):7.2f} us")
    print(f"Pai Gow step, stamped:         {table_steps_us(args.steps, True):7.2f} us")
    print(f"Pai Gow step, wall stamp only: {table_steps_us(args.steps, False):7.2f} us")


if __name__ == "__main__":
    main()
