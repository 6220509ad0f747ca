"""Which CPUs the table's service and its web face run on: the loop keeps a core to itself.

Any process busy on the loop's CPU slows it by about half, whatever that process's priority: the
loop is bound by the latency of its many wake-ups (device thread, driver, loop, journal), not by a
share of the CPU. Measured on 2 Dec 2026 (``tablehost run`` of ``sim-baccarat.toml``, 60 rounds at
pace 0, pinned to one CPU; 2 vCPUs, Linux 6.18): 2.7 s alone, 4.6-5.1 s beside a busy loop at nice
19 in an autogroup at nice 19, 5.3 s beside one under ``SCHED_IDLE``, 2.9 s with the busy loop on
the other CPU. So where the service may use two CPUs or more and has a web face, the service runs
on the lowest of them and the web face on the rest (``bench/bench_webface.py --split-cpus``: the
loop under a wrong-PIN flood at 101% of its quiet rate with the web face on the other CPU, 58%
beside it). On one CPU nothing is placed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Set

__all__ = ["split", "keep_to", "kept_to", "parse_cpus"]


def split(allowed: Set[int]) -> tuple[frozenset[int], frozenset[int]] | None:
    """The service's CPUs and the web face's, out of those ``allowed``; None with fewer than two."""
    if len(allowed) < 2:
        return None
    first = min(allowed)
    return frozenset({first}), frozenset(allowed) - {first}


def keep_to(cpus: Set[int]) -> None:
    """Run every thread of this process, and every thread they start, on ``cpus`` only (Linux keeps
    an affinity per thread; a new thread takes its creator's)."""
    for name in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # the thread ended meanwhile
            os.sched_setaffinity(int(name), cpus)


@contextlib.contextmanager
def kept_to(cpus: Set[int]) -> Iterator[None]:
    """:func:`keep_to` ``cpus`` for a while, then every thread back to the CPUs it may use now (a
    ``tablehost run`` called in a process that goes on: the tests)."""
    before = os.sched_getaffinity(0)
    keep_to(cpus)
    try:
        yield
    finally:
        keep_to(before)


def parse_cpus(text: str, allowed: Set[int], present: Set[int]) -> frozenset[int]:
    """``"auto"`` (the web face's part of the CPUs ``allowed`` now: :func:`split`; all of them on
    one CPU) or a comma-separated list of CPU numbers, each one ``present`` (the child of a service
    that keeps a core has only that core when it starts, and is given the others).

    :raises ValueError: naming what is wrong.
    """
    if text == "auto":
        placed = split(allowed)
        return placed[1] if placed is not None else frozenset(allowed)
    parts = text.split(",")
    if len(parts) > 1024 or not all(part.isascii() and part.isdigit() and len(part) <= 4 for part in parts):
        raise ValueError(f"{text[:40]!r}: 'auto' or CPU numbers separated by commas")
    cpus = frozenset(int(part) for part in parts)
    if not cpus <= present:
        raise ValueError(f"{text[:40]!r}: this machine's CPUs are {sorted(present)}")
    return cpus
