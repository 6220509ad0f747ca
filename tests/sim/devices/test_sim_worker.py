"""The simulators' thread and wake-up pipe (sim/devices/worker.py)."""

from __future__ import annotations

import select
import threading

from sim.devices.worker import Worker


def test_a_wake_reaches_the_loop_and_stop_ends_it() -> None:
    worker, woken = Worker(), threading.Event()

    def loop() -> None:
        while not worker.stopping:
            readable, _, _ = select.select([worker.fd], [], [], 5.0)
            if readable:
                worker.drain()
                woken.set()

    worker.start(loop, "test-worker")
    worker.wake()
    assert woken.wait(5.0)
    worker.stop()
    assert worker.stopping
    worker.close()
    worker.wake()  # a wake after close is a no-op, not an error
