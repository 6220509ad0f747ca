"""``/metrics`` in the web face (issue 30): the service's exposition relayed, asked at most once a
second however many scrape, the protection counts in a registry of their own, nothing of the
service's while it cannot be asked."""

from __future__ import annotations

import types
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, Counter, generate_latest

from firmware_host.metrics import relay as relay_module
from firmware_host.metrics.relay import CACHE_S, MetricsRelay, exposition


def service_registries() -> tuple[CollectorRegistry, CollectorRegistry]:
    public, protection = CollectorRegistry(), CollectorRegistry()
    Counter("tablehost_rounds_total", "Rounds.", ["status"], registry=public).labels("completed").inc(3)
    Counter("tablehost_protection_alerts_total", "Protection.", registry=protection).inc(2)
    return public, protection


def test_a_flood_of_scrapes_asks_the_service_once_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    # The relay's own monotonic clock, stood still and then moved: 500 scrapes may take over a
    # second on a loaded machine, and the count must not depend on how fast they run.
    now = [1000.0]
    monkeypatch.setattr(relay_module, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    public, protection = service_registries()
    answer = {"ok": True, "public": exposition(public), "protection": exposition(protection)}
    relay = MetricsRelay(lambda: answer)
    texts = [generate_latest(relay.registry).decode() for _ in range(500)]
    assert relay.asked == 1
    now[0] += CACHE_S * 0.99
    generate_latest(relay.registry)
    assert relay.asked == 1
    now[0] += CACHE_S * 0.02
    generate_latest(relay.registry)
    assert relay.asked == 2  # a second later it asks again
    assert 'tablehost_rounds_total{status="completed"} 3.0' in texts[-1]
    assert "protection" not in texts[-1]  # the protection counts are surveillance's registry only
    assert "tablehost_protection_alerts_total 2.0" in generate_latest(relay.protection).decode()


def test_a_service_that_cannot_be_asked_serves_nothing_of_its_counts() -> None:
    def unreachable() -> dict[str, Any]:
        raise OSError("no such socket")

    relay = MetricsRelay(unreachable, cache_s=0.0)
    assert generate_latest(relay.registry) == b"" and relay.asked == 1
    relay.fetch = lambda: {"ok": False, "error": "this table serves no metrics"}
    assert generate_latest(relay.registry) == b"" and relay.asked == 2
