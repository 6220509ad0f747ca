"""A table's Prometheus metrics (issue 22 item 4): counted from the journaled steps, served
through the hardened web layer, off unless configured."""

from __future__ import annotations

import http.client
import io
import threading
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from drivers.events.shoe import CardRead
from firmware_host.cli import main
from firmware_host.config.profiles import load_table
from firmware_host.host.journal import Journal
from firmware_host.metrics.table import TableMetrics
from firmware_host.tables.decisions import Decision
from firmware_host.tables.protection_policy import is_protection_alert
from firmware_host.web.server import WebError
from firmware_host.wiring import build_table
from tests.support.paths import REPO

PROFILE = REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml"


def _get(port: int, path: str = "/metrics", method: str = "GET", host: str | None = None) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Host": host} if host else {}
    connection.request(method, path, headers=headers)
    response = connection.getresponse()
    body = response.read().decode()
    connection.close()
    return response.status, body


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


@pytest.fixture
def scraped(tmp_path: Path) -> tuple[dict[tuple[str, tuple[tuple[str, str], ...]], float], Path, int]:
    """Three rounds of the simulated Baccarat table with ``/metrics`` on, scraped once they are done."""
    profile = load_table(PROFILE)
    table = build_table(
        profile,
        journal_path=tmp_path / "j.sqlite",
        seed=5,
        rounds=3,
        quiet=True,
        stream=io.StringIO(),
        metrics="127.0.0.1:0",
    )
    assert table.metrics is not None
    table.start()
    loop = threading.Thread(target=table.service.run)
    loop.start()
    loop.join(timeout=120)
    try:
        status, text = _get(table.metrics.port)
        assert status == 200
        return _samples(text), tmp_path / "j.sqlite", table.metrics.port
    finally:
        table.stop()


def test_the_counts_are_the_journals(scraped: tuple[dict, Path, int]) -> None:
    samples, path, _ = scraped
    journal = Journal.open(path)
    try:
        steps = list(journal.records())
    finally:
        journal.close()
    rounds = sum(1 for r in steps if r.kind == "decision" and r.type == "round_result")
    cards = sum(1 for r in steps if r.kind == "input" and r.type == "CardRead")
    alerts = sum(  # the public registry's: the protection alerts are surveillance's (test_metrics_access.py)
        1 for r in steps if r.kind == "decision" and r.type == "alert" and not is_protection_alert(r.data.get("code"))
    )
    assert rounds >= 3
    assert sum(v for (name, _), v in samples.items() if name == "tablehost_rounds_total") == rounds
    assert samples[("tablehost_cards_read_total", ())] == cards > 0
    assert sum(v for (name, _), v in samples.items() if name == "tablehost_alerts_total") == alerts
    assert samples[("tablehost_device_online", (("device", "shoe"),))] == 1
    assert samples[("tablehost_step_duration_seconds_count", ())] > rounds
    assert samples[("tablehost_journal_bytes", ())] > 0
    assert samples[("tablehost_face_file_failures_total", ())] == 0
    assert (
        samples[
            (
                "tablehost_table_info",
                (("game", "baccarat"), ("table_id", "SIM-BAC-1"), ("version", __import__("firmware_host").__version__)),
            )
        ]
        == 1
    )


def test_names_follow_prometheus_conventions(scraped: tuple[dict, Path, int]) -> None:
    samples, _, _ = scraped
    names = {name for name, _ in samples}
    assert all(name.startswith("tablehost_") for name in names)
    # No label whose values grow with play: no round, shoe or seq.
    labels = {key for _, pairs in samples for key, _ in pairs}
    assert labels <= {"status", "code", "severity", "device", "le", "game", "table_id", "version"}


def test_only_get_metrics_is_served(tmp_path: Path) -> None:
    profile = load_table(PROFILE)
    table = build_table(
        profile, journal_path=tmp_path / "j.sqlite", rounds=1, stream=io.StringIO(), metrics="127.0.0.1:0"
    )
    assert table.metrics is not None
    table.metrics.start()
    try:
        port = table.metrics.port
        assert _get(port, "/")[0] == 404
        assert _get(port, "/metrics/../state")[0] == 404
        assert _get(port, method="POST")[0] in (405, 415)
        assert _get(port, host="attacker.example")[0] == 400  # DNS rebinding: a Host not ours
        assert _get(port, method="HEAD")[0] == 200
    finally:
        table.stop()


def test_off_loopback_needs_tls(tmp_path: Path) -> None:
    with pytest.raises(WebError, match="metrics on 0.0.0.0, which other machines can reach, needs TLS"):
        build_table(
            load_table(PROFILE), journal_path=tmp_path / "j.sqlite", rounds=1, stream=io.StringIO(), metrics="0.0.0.0:0"
        )


def test_a_bad_address_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:  # refused by the argument's parser, before the journal opens
        main(
            [
                "run",
                "--profile",
                str(PROFILE),
                "--rounds",
                "1",
                "--journal",
                str(tmp_path / "j.sqlite"),
                "--metrics",
                "nowhere",
            ]
        )
    err = capsys.readouterr().err
    assert exited.value.code == 2 and not (tmp_path / "j.sqlite").exists()
    assert "listen address 'nowhere': expected HOST:PORT" in err and "Traceback" not in err


def test_an_observer_that_fails_never_stops_the_table() -> None:
    # The observer runs in the service loop: a bad decision shape is counted or ignored, never raised.
    counted = TableMetrics("T", "baccarat", "0")
    counted(
        CardRead(device="shoe", rank="A", suit="S"), [Decision("alert", {"code": "x"}), Decision("device", {})], 0.01
    )
    assert counted.registry.get_sample_value("tablehost_alerts_total", {"code": "x", "severity": ""}) == 1
    assert counted.registry.get_sample_value("tablehost_cards_read_total") == 1


@pytest.mark.skipif(
    not __import__("bench.feed.broker", fromlist=["have_mosquitto"]).have_mosquitto(),
    reason="needs the Debian package mosquitto (make deps)",
)
def test_the_feed_gauges_follow_the_floors_and_the_brokers_acknowledgements(tmp_path: Path) -> None:
    from bench.feed.broker import Broker
    from bench.floor.tables import table_profile
    from tests.support.floor_run import collecting, wait_for

    with Broker(tmp_path / "broker") as broker, collecting(tmp_path / "floor.sqlite", broker.url):
        profile = load_table(table_profile(tmp_path, feed=f'broker = "{broker.url}"'))
        table = build_table(
            profile,
            journal_path=tmp_path / "j.sqlite",
            seed=2,
            rounds=2,
            quiet=True,
            stream=io.StringIO(),
            metrics="127.0.0.1:0",
        )
        assert table.metrics is not None and table.feed is not None
        table.start()
        loop = threading.Thread(target=table.service.run)
        loop.start()
        try:
            loop.join(timeout=120)

            feed = table.feed
            wait_for(lambda: feed.acked.seq > 0 and feed.in_flight == 0, what="the floor acknowledging the feed")
            assert feed.floor_keys is not None  # the fixture's profile names the floor's key
            # The feed may still drain while the scrape runs: the gauges lie between the states before and after.
            before = feed.acked
            samples = _samples(_get(table.metrics.port)[1])
            after = feed.acked
            assert 0 < before.seq <= samples[("tablehost_feed_acked_seq", ())] <= after.seq
            assert samples[("tablehost_feed_broker_acked_seq", ())] >= before.seq  # the broker took what the floor has
            # What the floor has not acknowledged: the records after the last acknowledged message's
            # (the latest prompt is held back until the table moves on, so it is never 0 mid-shoe).
            last = table.journal.last_seq
            backlog = samples[("tablehost_feed_backlog_records", ())]
            assert last - before.journal_seq >= backlog >= last - after.journal_seq >= 0
        finally:
            table.stop()


def test_clock_steps_and_synchronisation_are_counted() -> None:
    metrics = TableMetrics("T1", "paigow", "0")
    step = {"code": "clock-step", "severity": "attention", "text": "", "step_ns": -3_600_000_000_000}
    metrics(
        CardRead(device="shoe", rank="A", suit="S"),
        [Decision("clock", {"synced": False}), Decision("alert", step)],
        0.0,
    )
    assert metrics.registry.get_sample_value("tablehost_clock_steps_total", {"direction": "back"}) == 1
    assert metrics.registry.get_sample_value("tablehost_clock_synchronised") == 0


def test_the_face_files_failures_are_counted_on_the_public_registry(tmp_path: Path) -> None:
    # FaceWriter.failures was kept but served nowhere.
    from prometheus_client import generate_latest

    from firmware_host.display.face_file import FaceWriter

    with Journal.open(tmp_path / "j.sqlite") as journal:
        writer = FaceWriter(journal)
        counted = TableMetrics("T1", "baccarat", "0")
        counted.watch_face_file(lambda: writer.failures)
        before = _samples(generate_latest(counted.registry).decode())
        writer.path.mkdir()  # a directory where the file goes: it cannot be made
        assert not writer.rebuild() and not writer.rebuild()
        after = _samples(generate_latest(counted.registry).decode())
    assert before[("tablehost_face_file_failures_total", ())] == 0
    assert after[("tablehost_face_file_failures_total", ())] == writer.failures == 2
    assert "face_file" not in generate_latest(counted.protection).decode()  # not protection data
