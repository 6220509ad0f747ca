"""The ``advantage-play`` alert reaches the floor through a real Mosquitto (docs/protection.md, "Detection"):
the real service on a simulated commission-free table where seat 3 counts cards."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.feed.broker import Broker
from bench.floor.tables import provision, run_table
from firmware_host.floor.store import FloorStore
from tests.support.floor_run import collecting, wait_for_the_floor
from tests.support.paths import REPO

#: Enough rounds for the counter's first shoe (seed 4: flagged on Lucky Six near its end).
ROUNDS = 90


@pytest.mark.slow
def test_the_counter_s_advantage_play_alert_reaches_the_collector(tmp_path: Path, broker: Broker) -> None:
    (tmp_path / "tables").mkdir()
    (tmp_path / "devices").symlink_to(REPO / "hardware-profiles" / "devices")
    profile = tmp_path / "tables" / "counters.toml"
    shipped = (REPO / "hardware-profiles" / "tables" / "sim-baccarat-counters.toml").read_text()
    shipped = shipped.replace('id = "SIM-BAC-CTR"', 'id = "SIM-BAC-1"')  # the id floor_run's helpers watch
    key = provision(tmp_path)  # the table signs its feed; the collector holds its public key
    profile.write_text(shipped.split("[journal]")[0] + f'\n[feed]\nbroker = "{broker.url}"\nsigning_key = "{key}"\n')
    db, journal = tmp_path / "floor.sqlite", tmp_path / "journal.sqlite"
    with collecting(db, broker.url):
        run_table(profile, journal, ROUNDS, broker.url, seed=4, timeout=300)
        wait_for_the_floor(db, journal, profile, broker.url, ROUNDS)
    store = FloorStore(db, read_only=True)
    try:
        messages = list(store.messages("SIM-BAC-1"))
    finally:
        store.close()
    alerts = [m for m in messages if m["type"] == "alert" and m["data"]["code"] == "advantage-play"]
    windows = {(m["round"], m["data"]["wager"]) for m in messages
               if m["type"] == "alert" and m["data"]["code"] == "advantage-window"}  # fmt: skip
    assert alerts, "no advantage-play alert reached the floor"
    assert {a["data"]["seat"] for a in alerts} == {3}
    first = alerts[0]["data"]
    assert first["bets_in_windows"] >= 3 and first["bets_outside"] == 0
    assert (alerts[0]["round"], first["wager"]) in windows  # raised at a window bet of that kind
