"""Issue 28 item 6: the floor flags a table whose clock is wrong (``clock-skew``): its last
message's ``at`` differs from when the floor stored it by more than the bound (5 s unless
``--clock-skew-s`` says). ``floor status`` exits 1 and says so, the lag on screen is never
negative, and ``/metrics`` shows the table's clock offset."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import time
from pathlib import Path

import pytest

from bench.floor.records import RECORDS
from firmware_host.cli import main
from firmware_host.feed import schema
from firmware_host.feed.schema import FeedState
from firmware_host.floor.collector import CollectorStats
from firmware_host.floor.dashboard.floor import Floor
from firmware_host.floor.model import Outcome, TableStatus
from firmware_host.floor.store import FloorStore, open_store
from firmware_host.metrics.floor import FloorMetrics
from tests.support.feed_records import admit


def stamped(offset_s: float) -> list[bytes]:
    """The test records' messages, each stamped ``offset_s`` from now (a table clock that far off)."""
    at = time.time() + offset_s
    records = [dataclasses.replace(r, at=at) for r in RECORDS]
    return [schema.encode(m) for m, _ in schema.derive("T1", records, FeedState())]


def status_of(tmp_path: Path, offset_s: float, *bound: str) -> tuple[int, str, dict[str, object]]:
    db = tmp_path / f"floor{offset_s}.sqlite"
    store = open_store(db)
    try:
        store.ingest(admit(stamped(offset_s)))
    finally:
        store.close()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["floor", "status", "--db", str(db), *bound])
    with contextlib.redirect_stdout(io.StringIO()) as js:
        main(["floor", "status", "--db", str(db), "--json", *bound])
    return code, out.getvalue(), json.loads(js.getvalue())


@pytest.mark.parametrize(("offset_s", "skewed"), [(0.0, False), (259_200.0, True), (-3600.0, True), (-3.0, False)])
def test_a_table_clock_off_by_more_than_5_s_is_a_clock_skew_and_exit_1(
    tmp_path: Path, offset_s: float, skewed: bool
) -> None:
    code, out, js = status_of(tmp_path, offset_s)
    assert js["clock_skew"] is skewed and code == (1 if skewed else 0)
    assert ("CLOCK-SKEW" in out) is skewed
    assert "lag -" not in out  # never negative on screen
    if offset_s > 0:
        assert "ahead of the floor's" in out


def test_the_bound_is_an_option(tmp_path: Path) -> None:
    code, _, js = status_of(tmp_path, -30.0, "--clock-skew-s", "60")
    assert code == 0 and js["clock_skew"] is False
    with pytest.raises(SystemExit) as exited:
        main(["floor", "status", "--db", str(tmp_path / "x.sqlite"), "--clock-skew-s", "nan"])
    assert exited.value.code == 2


def test_the_status_shows_a_lag_never_below_zero() -> None:
    ahead = TableStatus("T1", 1, 1, 1.0, -7.5, True, None, None, [], 0, 0, 0)
    assert ahead.shown_lag_s == 0.0 and ahead.clock_skew() and not ahead.clock_skew(10)


def test_metrics_show_each_tables_clock_offset_and_skew() -> None:
    stats = CollectorStats()
    metrics = FloorMetrics(stats, "sqlite", "0", clock=lambda: 1000.0)
    stats.last_seq["T1"], stats.last_seq["T2"] = 4, 9
    metrics._written([Outcome("stored", "T1", 4, at=1000.0 + 3 * 86400), Outcome("stored", "T2", 9, at=999.0)], 0.0)
    registry = metrics.registry
    assert registry.get_sample_value("tablehost_floor_table_clock_offset_seconds", {"table": "T1"}) == 3 * 86400
    assert registry.get_sample_value("tablehost_floor_table_clock_skew", {"table": "T1"}) == 1
    assert registry.get_sample_value("tablehost_floor_table_clock_skew", {"table": "T2"}) == 0
    strict = FloorMetrics(stats, "sqlite", "0", clock=lambda: 1000.0, skew_bound_s=0.5)
    strict._written([Outcome("stored", "T2", 9, at=999.0)], 0.0)
    assert strict.registry.get_sample_value("tablehost_floor_table_clock_skew", {"table": "T2"}) == 1


@pytest.mark.parametrize(("bound_s", "skewed"), [(5.0, True), (60.0, False)])
def test_a_tile_flags_a_clock_off_by_more_than_the_collectors_bound(
    tmp_path: Path, bound_s: float, skewed: bool
) -> None:
    """Issue 28 item 6: the tile's ``clock-skew`` flag takes the bound ``--clock-skew-s`` gives;
    the lag it shows is never negative."""
    db = tmp_path / "floor.sqlite"
    store = open_store(db)
    try:
        store.ingest(admit(stamped(30.0)))  # the table's clock 30 s ahead of the floor's
    finally:
        store.close()
    floor = Floor(lambda: FloorStore(db, read_only=True), skew_bound_s=bound_s)
    floor.open()
    try:
        floor.poll()
        tile = floor._tiles["surveillance"]["T1"]
    finally:
        floor.stop()
    assert tile["clock_skew"] is skewed and tile["lag_s"] == 0.0
