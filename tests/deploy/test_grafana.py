"""deploy/grafana: the floor dashboard asks only for metrics tablehost serves (issue 22 item 4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client import generate_latest

from firmware_host.floor.collector import CollectorStats
from firmware_host.metrics.floor import FloorMetrics
from firmware_host.metrics.table import TableMetrics
from tests.support.paths import REPO

DASHBOARD = REPO / "deploy" / "grafana" / "tablehost-floor.json"


def _served(tmp_path: Path) -> set[str]:
    """Every series name a table's and a collector's /metrics give (with a sample of each)."""
    table = TableMetrics("T1", "baccarat", "0")
    table.watch_journal(tmp_path / "j.sqlite")
    table.watch_feed(lambda: 0, lambda: 0, lambda: 0)
    table.watch_face_file(lambda: 0)
    table.rounds.labels("complete").inc()
    table.alerts.labels("x", "fault").inc()
    table.online.labels("shoe").set(1)
    floor = FloorMetrics(CollectorStats(last_seq={"T1": 3}), "sqlite", "0")
    floor.stored_at["T1"] = 1.0
    text = generate_latest(table.registry).decode() + generate_latest(floor.registry).decode()
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}


def test_every_panel_asks_for_a_served_metric(tmp_path: Path) -> None:
    served = _served(tmp_path)
    dashboard = json.loads(DASHBOARD.read_text())
    asked = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"\btablehost_[a-z_]+", target["expr"])
    }
    assert len(dashboard["panels"]) >= 10 and asked
    assert asked <= served, sorted(asked - served)


def test_names_follow_prometheus_conventions(tmp_path: Path) -> None:
    served = _served(tmp_path)
    assert all(name.startswith("tablehost_") for name in served)
    counters = {name for name in served if name.endswith("_total")}
    assert {"tablehost_rounds_total", "tablehost_floor_messages_total", "tablehost_cards_read_total"} <= counters
    assert not any(name.endswith(("_ms", "_milliseconds", "_kb", "_mb")) for name in served)  # base units only
