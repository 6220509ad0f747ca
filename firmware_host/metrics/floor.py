"""The floor collector's metrics: read from its :class:`~firmware_host.floor.collector.CollectorStats`.

The counters are the collector's own (they only grow while it runs) and are read when
Prometheus scrapes, so counting costs the collector nothing more than it already does; the
store's write latency is observed by a listener after each committed transaction. Per table
(one label, bounded by the tables whose keys are provisioned: a made-up table id never gets
a series) the last seq stored and when the floor last stored a message of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Histogram, Info
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from firmware_host.floor.model import DEFAULT_SKEW_BOUND_S

if TYPE_CHECKING:
    from firmware_host.floor.collector import CollectorStats
    from firmware_host.floor.model import Outcome

__all__ = ["FloorMetrics", "WRITE_BUCKETS_S"]

#: Buckets of the store's write latency (seconds): one transaction of up to 500 messages.
WRITE_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
#: The outcomes a received message can have (:class:`~firmware_host.floor.model.Outcome`).
OUTCOMES = ("stored", "duplicate", "refused", "conflict", "status")


class FloorMetrics(Collector):
    """The metrics of one collector, in a registry of its own.

    :param stats: the collector's counters.
    :param store_kind: ``"sqlite"`` or ``"postgresql"``.
    :param clock: wall-clock seconds (when a table's message was stored).
    :param skew_bound_s: a table whose newest message's time differs from when it was stored by more
        than this has a wrong clock (``tablehost_floor_table_clock_skew``).
    """

    def __init__(
        self,
        stats: CollectorStats,
        store_kind: str,
        version: str,
        clock: Callable[[], float] = time.time,
        *,
        skew_bound_s: float = DEFAULT_SKEW_BOUND_S,
    ) -> None:
        self.stats, self.clock, self.skew_bound_s = stats, clock, skew_bound_s
        self.registry = CollectorRegistry()
        Info("tablehost_floor", "The collector this endpoint serves.", registry=self.registry).info(
            {"store": store_kind, "version": version}
        )
        self.writes = Histogram(
            "tablehost_floor_store_write_duration_seconds",
            "Seconds one store transaction of received messages took to commit.",
            buckets=WRITE_BUCKETS_S,
            registry=self.registry,
        )
        self.stored_at: dict[str, float] = {}
        #: Each table's last stored message: its ``at`` less when it was stored (positive: the
        #: table's clock is ahead of the floor's).
        self.clock_offset: dict[str, float] = {}
        stats.listeners.append(self._written)
        self.registry.register(self)

    def _written(self, outcomes: Sequence[Outcome], seconds: float) -> None:
        self.writes.observe(seconds)
        now = self.clock()
        for outcome in outcomes:
            if outcome.kind == "stored" and outcome.table is not None:
                self.stored_at[outcome.table] = now
                if outcome.at is not None and outcome.seq == self.stats.last_seq.get(outcome.table):
                    self.clock_offset[outcome.table] = outcome.at - now

    def collect(self) -> Iterator[Metric]:
        """The collector's counters and per-table gauges, as they stand (Prometheus's scrape)."""
        stats = self.stats
        messages = CounterMetricFamily(
            "tablehost_floor_messages",
            "Messages received, by what became of them (duplicate: dropped; refused: failed the checks).",
            labels=["outcome"],
        )
        for outcome in OUTCOMES:
            messages.add_metric([outcome], stats.counts.get(outcome, 0))
        yield messages
        failures = CounterMetricFamily(
            "tablehost_floor_admission_failures",
            "Messages whose checks failed in the collector's own code (each refused), by the failure's kind.",
            labels=["kind"],
        )
        for kind, count in stats.admission_failures.items():
            failures.add_metric([kind], count)
        yield failures
        ack_failures = CounterMetricFamily(
            "tablehost_floor_ack_failures",
            "Reading back the floor's acknowledgements: refused (not under the floor's key), store (the "
            "store unreadable to check or say one; retried), unsettled (the read-back marker never came).",
            labels=["kind"],
        )
        for kind, count in stats.ack_failures.items():
            ack_failures.add_metric([kind], count)
        yield ack_failures
        yield CounterMetricFamily(
            "tablehost_floor_gaps", "Stored messages that left seqs missing below them.", value=stats.gaps
        )
        yield CounterMetricFamily(
            "tablehost_floor_store_write_failures",
            "Store transactions the database refused (retried).",
            value=stats.write_failures,
        )
        last_seq = GaugeMetricFamily(
            "tablehost_floor_table_last_seq", "The highest seq stored of the table.", labels=["table"]
        )
        for table, seq in sorted(stats.last_seq.items()):
            last_seq.add_metric([table], seq)
        yield last_seq
        now = self.clock()
        stored = GaugeMetricFamily(
            "tablehost_floor_table_last_stored_timestamp_seconds",
            "When this collector last stored a message of the table (Unix time).",
            labels=["table"],
        )
        lag = GaugeMetricFamily(
            "tablehost_floor_table_lag_seconds",
            "Seconds since this collector last stored a message of the table.",
            labels=["table"],
        )
        for table, at in sorted(self.stored_at.items()):
            stored.add_metric([table], at)
            lag.add_metric([table], max(0.0, now - at))
        yield stored
        yield lag
        offset = GaugeMetricFamily(
            "tablehost_floor_table_clock_offset_seconds",
            "The table's clock less the floor's: its newest message's time less when it was stored.",
            labels=["table"],
        )
        skew_bound_s = self.skew_bound_s
        skew = GaugeMetricFamily(
            "tablehost_floor_table_clock_skew",
            f"1 while the table's clock differs from the floor's by more than {skew_bound_s:g} s (clock-skew).",
            labels=["table"],
        )
        for table, seconds in sorted(self.clock_offset.items()):
            offset.add_metric([table], seconds)
            skew.add_metric([table], 1 if abs(seconds) > self.skew_bound_s else 0)
        yield offset
        yield skew
