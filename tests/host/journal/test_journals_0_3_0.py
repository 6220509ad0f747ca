"""The journals tablehost 0.3.0 wrote still verify, export and replay (issue 31 item 2).

``tests/fixtures/journals-0.3.0/`` holds the 0.1.0 set's tables played again by the real service
of 0.3.0 (``make_journals.py`` says how), never regenerated here: every step stamped on both
clocks, every ``round_result`` with its gaming day, game protection's ``odds`` and the
``refused`` records. This version decides each of them as 0.3.0 did, byte for byte, less what a
later version adds, as the journal's upgrade table says (``tests/host/test_upgrades.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import journals_010 as journals
from tests.support.journals_010 import Fixture

pytestmark = pytest.mark.parametrize("fixture", journals.JOURNALS_030, ids=lambda fixture: fixture.name)


def test_it_was_written_by_0_3_0_and_verifies_intact(fixture: Fixture, tmp_path: Path) -> None:
    journals.verified_as_golden(fixture, tmp_path)
    rounds = [json.loads(line) for line in journals.golden(fixture, "rounds.jsonl").read_text().splitlines()]
    assert len(rounds) == fixture.rounds and all("gaming_day" in r for r in rounds)  # what 0.3.0 added (issue 28)


@pytest.mark.parametrize("what", ["rounds", "shoes"])
def test_it_exports_byte_for_byte_as_0_3_0_did(fixture: Fixture, what: str, tmp_path: Path) -> None:
    exported = journals.tablehost(
        "journal", "export", str(journals.copy_journal(fixture, tmp_path)), f"--{what}", cwd=tmp_path
    )
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == journals.golden(fixture, f"{what}.jsonl").read_text()


def test_a_fresh_controller_replays_every_decision_as_0_3_0_made_it(fixture: Fixture, tmp_path: Path) -> None:
    replayed = journals.replayed_as_golden(fixture, tmp_path)
    odds = [d for line in replayed for d in json.loads(line).get("decisions", []) if d["type"] == "odds"]
    assert (fixture.name == "paigow") == (not odds)
