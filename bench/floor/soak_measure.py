"""The floor soak's measurements: CPU and RSS of processes from /proc, and what the store says.

- :class:`CpuMeter`: CPU seconds of a role (a collector, Mosquitto) across the processes that
  played it in turn (a restart is a new pid), and its peak RSS;
- :func:`postgres_cpu`: PostgreSQL's own CPU, the postmaster's and its backends': the
  postmaster's ``cutime + cstime`` count every child it has reaped, so a backend that came and
  went during the soak is in the sum, and the live ones are added from their own ``stat``;
- :func:`stored_rows` reads ``(table, seq, hash, at, received_at)`` of every stored message;
- :func:`percentiles` and :func:`per_second`: the figures of the report.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

from bench.bench_feed import pct, proc_stats

__all__ = [
    "CpuMeter",
    "postgres_cpu",
    "postmaster_pid",
    "stored_rows",
    "stored_count",
    "percentiles",
    "per_second",
    "Row",
]

#: Clock ticks per second of /proc/<pid>/stat (USER_HZ).
TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command (field 3, the state, is ``[0]``)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


@dataclasses.dataclass
class CpuMeter:
    """CPU seconds and peak RSS (MB) of one role, summed over the pids it had."""

    name: str
    _last: dict[int, tuple[float, float]] = dataclasses.field(default_factory=dict)

    def sample(self, pid: int | None) -> None:
        """Read ``pid`` now (sample just before killing or stopping it, too)."""
        if pid is None:
            return
        try:
            self._last[pid] = proc_stats(pid)
        except (OSError, StopIteration):
            pass  # it is gone: its last sample stands

    @property
    def cpu_s(self) -> float:
        return sum(cpu for cpu, _ in self._last.values())

    @property
    def peak_rss_mb(self) -> float:
        return max((rss for _, rss in self._last.values()), default=0.0)


def _children(pid: int) -> list[int]:
    """The live children of ``pid`` (a scan of /proc: not every kernel has ``task/*/children``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat(int(entry.name))[1]) == pid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def postgres_cpu(postmaster: int) -> float:
    """CPU seconds of the PostgreSQL server so far: the postmaster, its reaped and its live children."""
    fields = _stat(postmaster)
    total = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    for child in _children(postmaster):
        try:
            total += sum(int(value) for value in _stat(child)[11:13])
        except OSError:
            continue  # reaped meanwhile: in cutime next time
    return total / TICKS


def postmaster_pid(data: Path) -> int:
    """The server's pid (first line of ``postmaster.pid``)."""
    return int((data / "postmaster.pid").read_text().split()[0])


@dataclasses.dataclass(frozen=True)
class Row:
    table: str
    seq: int
    hash: str
    at: float
    received_at: float


def stored_rows(dsn_with_password: str) -> list[Row]:
    """Every stored message of the floor's PostgreSQL store."""
    import psycopg

    with psycopg.connect(dsn_with_password) as conn:
        rows = conn.execute("SELECT table_id, seq, hash, at, received_at FROM messages").fetchall()
    return [Row(*row) for row in rows]


def stored_count(dsn_with_password: str, but: list[str]) -> int:
    """How many messages the store holds of the tables not in ``but``."""
    import psycopg

    with psycopg.connect(dsn_with_password) as conn:
        row = conn.execute("SELECT count(*) FROM messages WHERE NOT (table_id = ANY(%s))", (but,)).fetchone()
    return int(row[0]) if row else 0


def percentiles(values: Iterable[float]) -> dict[str, float]:
    """``n``, p50, p99 and max of ``values`` (zeros for none)."""
    ordered = list(values)
    if not ordered:
        return {"n": 0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    return {"n": len(ordered), "p50": pct(ordered, 0.5), "p99": pct(ordered, 0.99), "max": max(ordered)}


def per_second(times: Iterable[float], start: float, bucket_s: float = 1.0) -> list[int]:
    """How many of ``times`` fall in each ``bucket_s`` from ``start``."""
    counts: list[int] = []
    for moment in times:
        index = int((moment - start) // bucket_s)
        if index < 0:
            continue
        if index >= len(counts):
            counts += [0] * (index + 1 - len(counts))
        counts[index] += 1
    return counts
