"""The journals tablehost 0.2.0 wrote still verify, export and replay in 0.3.0 (issue 21).

``tests/fixtures/journals-0.2.0/`` holds the 0.1.0 set's tables played again by the real service
of 0.2.0 (``make_journals.py`` says how), never regenerated here. 0.3.0 decides every step as
0.2.0 did, plus game protection's ``odds`` and advantage alerts (docs/protection.md); its
exports add ``odds``, ``theo`` and the shoe figures, and nothing else changes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.journals_010 import (
    JOURNALS_020,
    Fixture,
    exported_less_0_3_0,
    golden,
    replayed_as_golden,
    resume_without_playing,
    verified_as_golden,
)

pytestmark = pytest.mark.parametrize("fixture", JOURNALS_020, ids=[f.name for f in JOURNALS_020])


def test_it_was_written_by_0_2_0_and_verifies_intact(fixture: Fixture, tmp_path: Path) -> None:
    verified_as_golden(fixture, tmp_path)
    replayed = golden(fixture, "replay.jsonl").read_text()
    assert '"odds"' not in replayed and "advantage-window" not in replayed  # 0.2.0 decided none


@pytest.mark.parametrize("what", ["rounds", "shoes"])
def test_it_exports_as_0_2_0_did_plus_what_0_3_0_adds(fixture: Fixture, what: str, tmp_path: Path) -> None:
    assert exported_less_0_3_0(fixture, what, tmp_path) == golden(fixture, f"{what}.jsonl").read_bytes()


def test_a_fresh_controller_replays_every_decision_as_0_2_0_made_it(fixture: Fixture, tmp_path: Path) -> None:
    replayed = replayed_as_golden(fixture, tmp_path)
    odds = [d for line in replayed for d in json.loads(line).get("decisions", []) if d["type"] == "odds"]
    assert (fixture.name == "paigow") == (not odds)


def test_tablehost_run_resumes_it_without_playing(fixture: Fixture, tmp_path: Path) -> None:
    resume_without_playing(fixture, tmp_path)
