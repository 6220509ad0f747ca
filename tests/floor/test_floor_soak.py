"""The floor soak, run tiny (bench/bench_floor_soak.py): 20 republished and 2 live tables for 30 s,
through a real Mosquitto to two collectors on a real PostgreSQL, with all three faults (a
collector killed, the broker restarted, a table's network cut). Its end checks must pass: the
floor holds every republished message exactly as issued, each live table's ``floor export``
equals its ``journal export``, no table has a gap, a break or a refusal. No timing is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.feed.broker import have_mosquitto
from bench.floor.postgres import have_postgres
from tests.support.paths import REPO

pytestmark = [
    pytest.mark.skipif(not have_mosquitto(), reason="needs the Debian package mosquitto (make deps)"),
    pytest.mark.skipif(not have_postgres(), reason="needs the Debian package postgresql (make deps)"),
    pytest.mark.slow,
]


def test_a_tiny_soak_through_all_three_faults_ends_with_the_floor_equal_to_every_source(tmp_path: Path) -> None:
    out = tmp_path / "soak.json"
    done = subprocess.run(
        [sys.executable, "bench/bench_floor_soak.py", "--tables", "20", "--live", "2", "--duration", "30"]
        + ["--down", "5", "--cut", "6", "--drain-timeout", "120", "--json", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    figures = json.loads(out.read_text())
    assert [what for what, _ in figures["events"]] == [
        "floor-a killed",
        "floor-a restarted",
        "broker restarted",
        "LIVE-1 cut",
        "LIVE-1 restored",
        "drained",
    ]
    failed = [check for check in figures["checks"] if not check["ok"]]
    assert not failed, failed
    # drain, PUBACKs, republished messages and rounds, 2 live exports, status, collectors
    assert len(figures["checks"]) == 8
    assert figures["stored"]["messages"] > 20 * 10
    assert figures["publishers"]["reconnects"] >= 20  # every table came back after the broker's restart
