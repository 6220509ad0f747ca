"""``tablehost run --feed URL`` to ``tablehost floor``, and ``floor status`` / ``floor export``."""

from __future__ import annotations

import contextlib
import io
import json
import signal
import subprocess
from pathlib import Path

import pytest

from bench.feed.broker import Broker, floor_command, have_mosquitto
from bench.floor.tables import floor_keys, run_table, table_profile
from firmware_host.cli import main
from tests.support.floor_run import wait_for, wait_for_the_floor
from tests.support.paths import REPO

pytestmark = pytest.mark.skipif(not have_mosquitto(), reason="needs the Debian package mosquitto (make deps)")


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue()


def test_a_table_run_with_feed_reaches_the_floor_collector(tmp_path: Path) -> None:
    db, journal = tmp_path / "floor.sqlite", tmp_path / "journal.sqlite"
    with Broker(tmp_path / "broker") as broker:
        collector = subprocess.Popen(
            floor_command(broker.url, db, "-v", keys=floor_keys(tmp_path)),
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            wait_for(lambda: db.exists() and "session new" in (collector.stderr.readline() or ""), 20, "subscribed")
            profile = table_profile(tmp_path, feed='broker = "mqtt://127.0.0.1:1"')
            run_table(profile, journal, 6, broker.url)
            wait_for_the_floor(db, journal, profile, broker.url, 6)
        finally:
            collector.send_signal(signal.SIGTERM)
            _, err = collector.communicate(timeout=20)
    assert collector.returncode == 0
    # A loaded machine may store a message seconds after the table journaled it: a clock skew only
    # past a minute here (tests/floor/test_floor_clock_skew.py tests the bound).
    status, out = cli("floor", "status", "--db", str(db), "--json", "--clock-skew-s", "60")
    table = json.loads(out)
    assert status == 0 and (table["table"], table["online"], table["gaps"], table["breaks"]) == (
        "SIM-BAC-1",
        False,
        [],
        0,
    )  # a clean stop says offline
    assert table["last_seq"] == table["max_seq"] > 6 and table["game"] == "baccarat"
    status, out = cli("floor", "status", "--db", str(db))
    assert out.startswith("SIM-BAC-1: offline, last seq ")
    status, out = cli("floor", "export", "--db", str(db), "--table", "SIM-BAC-1", "--messages")
    messages = [json.loads(line) for line in out.splitlines()]
    assert [m["seq"] for m in messages] == list(range(1, len(messages) + 1))
    assert messages[0]["type"] == "journal_opened" and {"prompt", "lamp"}.isdisjoint(m["type"] for m in messages)


def test_floor_status_exits_1_on_a_gap_and_export_names_an_unknown_table(tmp_path: Path) -> None:
    from firmware_host.floor.store import FloorStore
    from tests.support.feed_records import admit, payloads

    db = tmp_path / "floor.sqlite"
    store = FloorStore(db)
    sent = payloads()
    store.ingest(admit([sent[0], sent[2]]))
    store.close()
    status, out = cli("floor", "status", "--db", str(db))
    assert status == 1 and "gaps 2..2" in out
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["floor", "export", "--db", str(db), "--table", "T9", "--rounds"]) == 2
    assert "no table 'T9' (tables: T1)" in err.getvalue()
