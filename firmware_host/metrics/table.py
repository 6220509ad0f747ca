"""A table's metrics: what its service loop did, read from each journaled step.

:class:`TableMetrics` is a step observer of :class:`~firmware_host.host.service.Service`
(``observer=``): after each durable step it is handed the step's event, its decisions and the
seconds the step took, and it only counts (no I/O, no lock the loop could wait on but
``prometheus_client``'s own, held for a counter's increment). Gauges that read other parts
(the feed's backlog, the journal's size) are read when Prometheus scrapes, in the server's
thread, from values those parts keep for other threads, never from the journal's connection.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

from drivers.events import DeviceEvent
from drivers.events.dice import DiceRead
from drivers.events.shoe import CardRead
from firmware_host.tables.decisions import Decision
from firmware_host.tables.protection_policy import is_protection_alert

__all__ = ["TableMetrics", "STEP_BUCKETS_S"]

#: Buckets of the step latency histogram (seconds): a step is a decision and one fsync'd
#: SQLite transaction, a few milliseconds on a Pi's SD card, up to a stalled card's seconds.
STEP_BUCKETS_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class TableMetrics:
    """The metrics of one table, in a registry of its own.

    :param table_id: the table's id (in ``tablehost_table_info``, not a label of every series:
        one table's endpoint serves one table).
    :param game: ``"baccarat"`` or ``"paigow"``.
    :param version: the running tablehost version.
    """

    def __init__(self, table_id: str, game: str, version: str) -> None:
        self.registry = CollectorRegistry()
        info = Info("tablehost_table", "The table this endpoint serves.", registry=self.registry)
        info.info({"table_id": table_id, "game": game, "version": version})
        self.rounds = Counter(
            "tablehost_rounds_total", "Rounds finished (a void round included).", ["status"], registry=self.registry
        )
        self.cards = Counter("tablehost_cards_read_total", "Cards the shoe read.", registry=self.registry)
        self.dice = Counter("tablehost_dice_reads_total", "Dice readings from the dice sensor.", registry=self.registry)
        self.alerts = Counter(
            "tablehost_alerts_total",
            "Alerts raised, by code and severity (the protection alerts are not among them).",
            ["code", "severity"],
            registry=self.registry,
        )
        self.clock_steps = Counter(
            "tablehost_clock_steps_total",
            "Steps of the wall clock (its offset from the monotonic clock changed), by direction.",
            ["direction"],
            registry=self.registry,
        )
        self.synchronised = Gauge(
            "tablehost_clock_synchronised",
            "1 while the kernel says the wall clock is synchronised, 0 while not (as last journaled).",
            registry=self.registry,
        )
        #: The game-protection alerts' counts, in a registry served to surveillance's scraper only
        #: (:mod:`firmware_host.tables.protection_policy`; :mod:`firmware_host.metrics.server`).
        self.protection = CollectorRegistry()
        self.protection_alerts = Counter(
            "tablehost_protection_alerts_total",
            "Game-protection alerts raised (advantage-window, advantage-play), by code and severity.",
            ["code", "severity"],
            registry=self.protection,
        )
        self.online = Gauge(
            "tablehost_device_online",
            "1 while the device is connected and identified.",
            ["device"],
            registry=self.registry,
        )
        self.steps = Histogram(
            "tablehost_step_duration_seconds",
            "Seconds from an event's decision to its durable journaling and outputs.",
            buckets=STEP_BUCKETS_S,
            registry=self.registry,
        )

    # -- the service's step observer --------------------------------------------------------

    def __call__(self, event: DeviceEvent, decisions: Sequence[Decision], seconds: float) -> None:
        """Count one durable step (the :class:`~firmware_host.host.service.Service` observer)."""
        self.steps.observe(seconds)
        if isinstance(event, CardRead):
            self.cards.inc()
        elif isinstance(event, DiceRead):
            self.dice.inc()
        for decision in decisions:
            data = decision.data
            if decision.type == "round_result":
                self.rounds.labels(str(data.get("status", "complete"))).inc()
            elif decision.type == "alert":
                counter = self.protection_alerts if is_protection_alert(data.get("code")) else self.alerts
                counter.labels(str(data.get("code", "")), str(data.get("severity", ""))).inc()
                if data.get("code") == "clock-step":
                    self.clock_steps.labels("forward" if data.get("step_ns", 0) > 0 else "back").inc()
            elif decision.type == "clock":
                self.synchronised.set(1 if data.get("synced") else 0)
            elif decision.type == "device" and "device" in data:
                self.online.labels(str(data["device"])).set(1 if data.get("online") else 0)

    # -- gauges read at scrape time ------------------------------------------------------------

    def watch_journal(self, path: Path) -> None:
        """``tablehost_journal_bytes``: the live journal's file and its write-ahead log, on disk."""
        gauge = Gauge(
            "tablehost_journal_bytes",
            "Bytes of the live journal segment on disk (with its WAL).",
            registry=self.registry,
        )
        gauge.set_function(lambda: float(_file_bytes(path) + _file_bytes(Path(f"{path}-wal"))))

    def watch_feed(self, backlog: Callable[[], int], acked: Callable[[], int], taken: Callable[[], int]) -> None:
        """The floor feed's backlog (journal records after the one the last acknowledged message
        came from), the seq of the last message acknowledged (by the floor's signed
        acknowledgement; by the broker for a table that names no floor key) and of the last the
        broker took (PUBACK)."""
        Gauge(
            "tablehost_feed_backlog_records",
            "Journal records the floor has not acknowledged yet.",
            registry=self.registry,
        ).set_function(lambda: float(backlog()))
        Gauge(
            "tablehost_feed_acked_seq",
            "The seq up to which the floor acknowledged storing the feed (the broker, without a floor key).",
            registry=self.registry,
        ).set_function(lambda: float(acked()))
        Gauge(
            "tablehost_feed_broker_acked_seq",
            "The seq of the last feed message the broker took (PUBACK), since the table started.",
            registry=self.registry,
        ).set_function(lambda: float(taken()))

    def watch_face_file(self, failures: Callable[[], int]) -> None:
        """``tablehost_face_file_failures_total``: failures of the face file the web face reads
        (:class:`~firmware_host.display.face_file.FaceWriter` ``failures``: each counted, logged at
        a rate limit and mended by a rebuild; the table deals on). Not protection data: the
        public registry."""
        self.registry.register(
            _Count(
                "tablehost_face_file_failures",
                "Failures of the web face's face file since start, each mended by a rebuild.",
                failures,
            )
        )


class _Count(Collector):
    """A counter whose value another part keeps (read at scrape time)."""

    def __init__(self, name: str, documentation: str, value: Callable[[], int]) -> None:
        self.name, self.documentation, self.value = name, documentation, value

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(self.name, self.documentation, value=float(self.value()))


def _file_bytes(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
