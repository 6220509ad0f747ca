"""``tablehost journal verify PATH --floor DB``: a journal cut short, rewritten or swapped is named.

A hash chain alone shows none of these (the journal still verifies "intact"); the floor's
anchors (every message's ``journal_hash``) do, and name the first record that differs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.floor_audit import ROUNDS, play, publish, verify
from tests.support.journal_forge import execute, rechain


@pytest.fixture
def table(tmp_path: Path) -> tuple[Path, Path]:
    journal, db = tmp_path / "journal.sqlite", tmp_path / "floor.sqlite"
    play(journal)
    publish(journal, db)
    return journal, db


def test_the_journal_the_floor_anchors_matches(table: tuple[Path, Path]) -> None:
    status, out = verify(*table)
    assert status == 0 and "matches the floor" in out and f"{ROUNDS + 1} anchors" in out


def test_a_journal_cut_short_is_reported_though_its_chain_is_intact(table: tuple[Path, Path]) -> None:
    journal, db = table
    (last,) = execute(journal, "SELECT max(seq) FROM records")[0]
    execute(journal, "DELETE FROM records WHERE seq > ?", last - 4)  # the last two rounds
    status, out = verify(journal, db)
    assert status == 1
    assert "intact" in out.splitlines()[0]  # the chain alone cannot tell
    assert "CUT SHORT" in out and f"first differing record {last - 3}:" in out
    assert f"the journal ends at record {last - 4}" in out


def test_a_journal_rewritten_with_a_rebuilt_chain_names_the_record_changed(table: tuple[Path, Path]) -> None:
    journal, db = table
    seq, data = execute(
        journal, "SELECT seq, data FROM records WHERE type = 'round_result' ORDER BY seq LIMIT 1 OFFSET 2"
    )[0]
    execute(journal, "UPDATE records SET data = ? WHERE seq = ?", data.replace("banker", "player"), seq)
    rechain(journal, seq)
    status, out = verify(journal, db)
    assert status == 1 and "intact" in out.splitlines()[0]
    assert f"REWRITTEN against the floor {db} (table T1): first differing record {seq}:" in out


def test_a_rewritten_record_the_floor_holds_no_copy_of_is_bounded_by_anchors(table: tuple[Path, Path]) -> None:
    journal, db = table
    rounds = [s for (s,) in execute(journal, "SELECT seq FROM records WHERE type = 'round_result' ORDER BY seq")]
    card = rounds[2] - 3  # the first card input of round 3: raw card events are never published
    assert execute(journal, "SELECT type FROM records WHERE seq = ?", card) == [("CardRead",)]
    execute(
        journal,
        "UPDATE records SET data = ? WHERE seq = ?",
        json.dumps({"device": "shoe", "rank": "A", "suit": "S", "burn": False}, separators=(",", ":")),
        card,
    )
    rechain(journal, card)
    status, out = verify(journal, db)
    assert status == 1
    assert f"first differing record {rounds[1] + 1}..{rounds[2]}: one of records" in out


def test_a_journal_swapped_for_another_is_reported(table: tuple[Path, Path], tmp_path: Path) -> None:
    journal, db = table
    other = tmp_path / "other.sqlite"
    play(other, start=500.0)  # the same table and rounds, another journal
    status, out = verify(other, db)
    assert status == 1 and "SWAPPED" in out and "first differing record 1" in out
