"""The rules in force are journaled (§ 521.2 Rules Submission options): once when a journal
starts, again only when the profile's options change, so every hand's options are on record."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from bench.floor.tables import run_command
from bench.soak.profiles import make_profile
from firmware_host.config.profiles import load_table
from firmware_host.host.journal import Journal
from firmware_host.host.journal_export import round_results
from firmware_host.host.journal_verify import verify
from firmware_host.wiring import game_wiring
from tests.support.paths import REPO


def run(profile: Path, journal: Path, rounds: int) -> None:
    done = subprocess.run(
        run_command(profile, journal, rounds, seed=4),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def rules_records(journal: Path) -> list[tuple[int, dict[str, Any]]]:
    with Journal.open(journal) as opened:
        return [(r.seq, r.data["rules"]) for r in opened.records() if r.kind == "input" and r.type == "RulesInForce"]


def test_rules_in_force_are_journaled_at_the_start_and_again_when_they_change(tmp_path: Path) -> None:
    profile, journal = make_profile(tmp_path), tmp_path / "journal.sqlite"
    run(profile, journal, 2)
    run(profile, journal, 3)  # the same options: nothing new on record
    [(first_seq, first)] = rules_records(journal)
    table = load_table(profile)
    assert first == game_wiring(table.game).controller(table).rules_in_force()
    assert (first["game"], first["decks"], first["rules"]["initial_deal"]) == ("baccarat", 8, "face_up")

    profile.write_text(profile.read_text().replace("[rules]\n", '[rules]\nface_up_discards = "face_value"\n'))
    run(profile, journal, 4)
    (_, again), (changed_seq, changed) = rules_records(journal)
    assert again == first and changed["rules"]["face_up_discards"] == "face_value"
    assert {**changed["rules"], "face_up_discards": "point_value"} == first["rules"]
    with Journal.open(journal) as opened:
        results = [r.seq for r in opened.records() if r.type == "round_result"]
    assert first_seq < results[0] and results[2] < changed_seq < results[3]  # round 4 was played under them
    assert verify(journal).ok and [r["round"] for r in round_results(journal)] == [1, 2, 3, 4]
