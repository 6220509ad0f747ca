"""Game protection's decisions reach the floor through a real Mosquitto (docs/protection.md):
the ``odds`` of every round and the ``advantage-window`` alerts, and the floor's export of the
rounds is the journal's, theo and odds included."""

from __future__ import annotations

import json
from pathlib import Path

from bench.feed.broker import Broker
from bench.floor.tables import journal_export, run_table, table_profile
from firmware_host.floor.store import FloorStore
from tests.support.floor_run import collecting, wait_for_the_floor

#: Above the banker's -1.06% and the player's -1.24%: every round of a fresh 8-deck shoe opens windows.
THRESHOLD = "-0.013"


def test_advantage_windows_and_odds_reach_the_collector(tmp_path: Path, broker: Broker) -> None:
    profile = table_profile(tmp_path, feed=f'broker = "{broker.url}"')  # with its provisioned signing key
    profile.write_text(profile.read_text() + f"\n[protection]\nadvantage_threshold = {THRESHOLD}\n")
    db, journal = tmp_path / "floor.sqlite", tmp_path / "journal.sqlite"
    with collecting(db, broker.url):
        run_table(profile, journal, 6, broker.url)
        wait_for_the_floor(db, journal, profile, broker.url, 6)
    store = FloorStore(db, read_only=True)
    try:
        messages = list(store.messages("SIM-BAC-1"))
    finally:
        store.close()
    windows = [m for m in messages if m["type"] == "alert" and m["data"]["code"] == "advantage-window"]
    odds = [m for m in messages if m["type"] == "odds"]
    assert {m["round"] for m in odds} >= set(range(1, 7))
    assert {w["data"]["wager"] for w in windows} == {"banker", "player"}
    assert {w["round"] for w in windows} >= set(range(1, 7))
    by_round = {m["round"]: m["data"]["ev"] for m in odds}
    assert all(w["data"]["ev"] == by_round[w["round"]][w["data"]["wager"]] for w in windows)
    exported = [json.loads(line) for line in journal_export(journal).splitlines()]
    assert all(r["odds"]["ev"] == by_round[r["round"]] for r in exported)
