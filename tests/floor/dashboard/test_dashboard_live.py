"""``tablehost floor --http``: the collector and its dashboard in one process, a real Mosquitto and
a simulated table publishing to it: the table's tile follows what the collector stores."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from bench.feed.broker import Broker, floor_command, have_mosquitto
from bench.floor.tables import floor_keys, journal_export, run_table, table_profile
from tests.floor.dashboard.support import get, users_dir
from tests.support.floor_run import wait_for, wait_for_the_floor
from tests.support.paths import REPO

pytestmark = pytest.mark.skipif(not have_mosquitto(), reason="needs the Debian package mosquitto (make deps)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_collectors_dashboard_follows_a_table_through_mosquitto(tmp_path: Path) -> None:
    db, journal = tmp_path / "floor.sqlite", tmp_path / "journal.sqlite"
    profile = table_profile(tmp_path, feed='broker = "mqtt://127.0.0.1:1"\nkeepalive_s = 2')
    url = f"http://127.0.0.1:{free_port()}"
    with Broker(tmp_path / "broker") as broker:
        floor = subprocess.Popen(
            floor_command(
                broker.url,
                db,
                "--http",
                url.removeprefix("http://"),
                "--http-dir",
                str(users_dir(tmp_path)),
                keys=floor_keys(tmp_path),
            ),
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            wait_for(lambda: _status(url) == 200, 30, "the dashboard serving")
            run_table(profile, journal, 6, broker.url)
            # A clean stop publishes for up to 3 s while the floor acknowledges; the rest goes at the next start.
            wait_for_the_floor(db, journal, profile, broker.url, 6)
            last = json.loads(journal_export(journal).splitlines()[-1])

            def shown() -> bool:  # the tile and the drill-down, which the same pass over the store updates
                tiles = get(url + "/api/tiles")[1]["tiles"]
                rounds = get(url + "/api/tables/SIM-BAC-1")[1].get("rounds") if tiles else None
                return (
                    bool(tiles)
                    and tiles[0]["table"] == "SIM-BAC-1"
                    and tiles[0]["round"] >= last["round"]
                    and bool(rounds)
                    and rounds[0]["round"] == last["round"]
                )

            wait_for(shown, 60, "the table's last round on its tile")
            _, detail = get(url + "/api/tables/SIM-BAC-1")
            assert [r["round"] for r in detail["rounds"]][0] == last["round"]
            assert get(url + f"/api/tables/SIM-BAC-1/rounds/{last['round']}")[1] == last
        finally:
            floor.terminate()
            out, err = floor.communicate(timeout=30)
        assert floor.returncode == 0, err[-2000:]
        assert "Traceback" not in err, err[-2000:]


def _status(url: str) -> int:
    try:
        return get(url + "/api/me")[0]
    except OSError:
        return 0
