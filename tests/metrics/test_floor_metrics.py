"""The floor collector's Prometheus metrics (issue 22 item 4): read from its counters, served
with ``tablehost floor --metrics HOST:PORT``, against a real Mosquitto."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bench.feed.broker import Broker, floor_command, have_mosquitto
from bench.floor.tables import floor_keys, run_table, table_profile
from firmware_host.floor.collector import CollectorStats
from firmware_host.floor.model import Outcome
from firmware_host.metrics.floor import FloorMetrics
from tests.support.floor_run import wait_for
from tests.support.paths import REPO


def test_the_counters_are_the_collectors() -> None:
    now = [100.0]
    stats = CollectorStats()
    counted = FloorMetrics(stats, "sqlite", "0", clock=lambda: now[0])
    stats.written(
        [
            Outcome("stored", "T1", 1),
            Outcome("stored", "T1", 3, gap=(2, 2)),
            Outcome("duplicate", "T1", 1),
            Outcome("refused", None, None, "bad"),
        ],
        0.02,
    )
    now[0] = 130.0
    value = counted.registry.get_sample_value
    assert value("tablehost_floor_messages_total", {"outcome": "stored"}) == 2
    assert value("tablehost_floor_messages_total", {"outcome": "duplicate"}) == 1
    assert value("tablehost_floor_messages_total", {"outcome": "refused"}) == 1
    assert value("tablehost_floor_gaps_total") == 1
    assert value("tablehost_floor_store_write_duration_seconds_count") == 1
    assert value("tablehost_floor_table_last_seq", {"table": "T1"}) == 3
    assert value("tablehost_floor_table_last_stored_timestamp_seconds", {"table": "T1"}) == 100.0
    assert value("tablehost_floor_table_lag_seconds", {"table": "T1"}) == 30.0


@pytest.mark.skipif(not have_mosquitto(), reason="needs the Debian package mosquitto (make deps)")
def test_floor_metrics_serves_what_the_collector_stored(tmp_path: Path) -> None:
    with Broker(tmp_path / "broker") as broker:
        profile = table_profile(tmp_path, feed=f'broker = "{broker.url}"')
        collector = subprocess.Popen(
            floor_command(broker.url, tmp_path / "f.sqlite", "--metrics", "127.0.0.1:0", keys=floor_keys(tmp_path)),
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            line = collector.stdout.readline() if collector.stdout else ""
            url = re.search(r"metrics on (http://\S+)", line)
            assert url, line
            run_table(profile, tmp_path / "j.sqlite", rounds=2, feed_url=broker.url)

            def stored() -> float:
                import urllib.request

                text = urllib.request.urlopen(url.group(1), timeout=10).read().decode()
                found = re.search(r'^tablehost_floor_messages_total\{outcome="stored"\} (\S+)$', text, re.M)
                return float(found.group(1)) if found else 0.0

            wait_for(lambda: stored() > 0, what="the collector's stored count")
            assert stored() > 0
        finally:
            collector.terminate()
            collector.wait(30)
        assert collector.returncode == 0, collector.stderr.read() if collector.stderr else ""


def test_floor_metrics_off_loopback_needs_tls(tmp_path: Path) -> None:
    done = subprocess.run(
        floor_command("mqtt://127.0.0.1:1", tmp_path / "f.sqlite", "--metrics", "0.0.0.0:0"),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "metrics on 0.0.0.0, which other machines can reach, needs TLS" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_failure_of_the_admission_checks_is_counted_by_kind_never_by_what_it_carried(monkeypatch) -> None:
    """A defect of ours in the checks is refused (``outcome="refused"``) and counted under its kind,
    from a bounded set (an unlisted exception is ``other``); no label holds the topic, payload or text."""
    from firmware_host.feed import schema
    from firmware_host.feed.broker import BrokerSettings
    from firmware_host.floor.admission import FAILURE_KINDS
    from firmware_host.floor.collector import Collector

    class Odd(Exception):
        pass

    raised: list[BaseException] = [UnicodeEncodeError("utf-8", "\ud800", 0, 1, "secret AS"), Odd("KH"), KeyError("x")]

    def broken(payload: bytes, *, signed: bool = False) -> dict[str, object]:
        raise raised.pop(0)

    monkeypatch.setattr(schema, "check_message", broken)
    collector = Collector(None, BrokerSettings.__new__(BrokerSettings), None)  # type: ignore[arg-type]  # no store used
    counted = FloorMetrics(collector.stats, "sqlite", "0")
    verdicts = [collector.admission.admit("tablehost/T1/events", b"{}") for _ in range(3)]
    assert [type(v).__name__ for v in verdicts] == ["Refusal"] * 3
    value = counted.registry.get_sample_value
    assert value("tablehost_floor_admission_failures_total", {"kind": "UnicodeError"}) == 1
    assert value("tablehost_floor_admission_failures_total", {"kind": "KeyError"}) == 1
    assert value("tablehost_floor_admission_failures_total", {"kind": "other"}) == 1
    assert value("tablehost_floor_admission_failures_total", {"kind": "ValueError"}) == 0
    samples = [
        s for m in counted.registry.collect() if m.name == "tablehost_floor_admission_failures" for s in m.samples
    ]
    assert {s.labels["kind"] for s in samples} == set(FAILURE_KINDS)
    assert not any("secret" in str(s.labels) or "KH" in str(s.labels) for s in samples)
