"""The table's metrics as the web face serves them: asked of the service, at most once a second.

The service keeps the counts (:class:`~firmware_host.metrics.table.TableMetrics`, a step
observer of its loop) and hands their exposition over its control socket (the ``metrics`` op,
built on the socket server's thread, never the loop's); the web face serves them at ``/metrics``
(:class:`~firmware_host.metrics.server.MetricsServer`) as two collectors, the public counts and
the protection counts (surveillance's scrape only). One answer is kept :data:`CACHE_S`
seconds, so a flood of scrapes asks the service once a second at most.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector

__all__ = ["MetricsRelay", "CACHE_S", "exposition"]

log = logging.getLogger("tablehost.metrics")

#: Seconds an answer of the service is served again before it is asked anew.
CACHE_S = 1.0


def exposition(registry: CollectorRegistry | None) -> str | None:
    """A registry's metrics in Prometheus's text format (the service's side of the relay)."""
    if registry is None:
        return None
    from prometheus_client import generate_latest

    return generate_latest(registry).decode()


class MetricsRelay:
    """The service's metrics for the web face's ``/metrics``.

    :param fetch: asks the service (the ``metrics`` op): ``{"ok": True, "public": text,
        "protection": text}``; raises or answers ``ok: False`` when the service cannot answer.
    """

    def __init__(self, fetch: Callable[[], dict[str, Any]], cache_s: float = CACHE_S) -> None:
        self.fetch = fetch
        self.cache_s = cache_s
        self._lock = threading.Lock()
        self._kept: tuple[float, dict[str, Any]] | None = None
        self.registry = CollectorRegistry()
        self.registry.register(_Part(self, "public"))
        self.protection = CollectorRegistry()
        self.protection.register(_Part(self, "protection"))
        #: Times the service was asked (a test counts them).
        self.asked = 0

    def texts(self) -> dict[str, Any]:
        """The service's latest answer (at most :attr:`cache_s` old); empty when it cannot be reached."""
        with self._lock:  # one scrape asks; the others wait for its answer
            now = time.monotonic()
            if self._kept is not None and now - self._kept[0] < self.cache_s:
                return self._kept[1]
            self.asked += 1
            try:
                answer = self.fetch()
            except Exception as exc:  # the service is restarting: serve nothing of its counts meanwhile
                log.warning("metrics: the service cannot be asked: %s", exc)
                answer = {}
            if not answer.get("ok"):
                answer = {}
            self._kept = (time.monotonic(), answer)
            return answer


class _Part(Collector):
    """One of the service's registries, as its text came over the socket."""

    def __init__(self, relay: MetricsRelay, part: str) -> None:
        self.relay, self.part = relay, part

    def collect(self) -> Iterator[Metric]:
        text = self.relay.texts().get(self.part)
        if isinstance(text, str):
            yield from text_string_to_metric_families(text)
