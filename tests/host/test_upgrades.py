"""The journal's upgrade table (host/upgrades.py): a replay compares what the journal's version wrote,
so a field added to every ``round_result`` is one line in the builder and one in the table, and
the journals of earlier versions still replay (issue 31 item 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware_host import __version__
from firmware_host.errors import JournalError
from firmware_host.host import upgrades
from firmware_host.host.upgrades import ADDED, as_written_by, version_key
from firmware_host.tables import round_record
from firmware_host.tables.baccarat import records
from firmware_host.tables.decisions import Decision
from firmware_host.tables.paigow import round as paigow_round
from tests.support.journals_010 import JOURNALS_020, JOURNALS_030, copy_journal, replay_lines

STEP = [
    Decision("odds", {"round": 3, "ev": {}}, 3),
    Decision("alert", {"code": "advantage-window", "text": "t", "severity": "attention"}, 3),
    Decision("alert", {"code": "wrong-state", "text": "t", "severity": "warning"}, 3),
    Decision("refused", {"code": "wrong-state"}, 3),
    Decision("prompt", {"action": "deal", "exposed": {}}, 3),
    Decision("round_result", {"round": 3, "status": "void", "gaming_day": "2026-12-02", "clock": "unsynchronised"}, 3),
]


def test_the_table_names_versions_in_order() -> None:
    """In order, and numbers; the last may be the next release's (a field added before the bump)."""
    versions = [version_key(v) for v in ADDED]
    assert versions == sorted(versions) and () not in versions
    assert version_key(__version__) in versions


def test_a_step_as_0_2_0_wrote_it_lacks_what_0_3_0_added() -> None:
    assert as_written_by("0.2.0", STEP) == [
        Decision("alert", {"code": "wrong-state", "text": "t", "severity": "warning"}, 3),
        Decision("prompt", {"action": "deal", "exposed": {}}, 3),
        Decision("round_result", {"round": 3, "status": "void"}, 3),
    ]


def test_a_step_as_0_1_0_wrote_it_lacks_what_0_2_0_added_too() -> None:
    assert as_written_by("0.1.0", STEP)[1] == Decision("prompt", {"action": "deal"}, 3)


@pytest.mark.parametrize("version", ["0.3.0", None])
def test_a_step_of_this_version_or_of_none_named_is_compared_whole(version: str | None) -> None:
    assert as_written_by(version, STEP) == STEP


def test_a_version_that_is_not_numbers_sorts_first() -> None:
    assert version_key("0.3.0-dev") == () and as_written_by("0.3.0-dev", STEP) == as_written_by("0.1.0", STEP)


def with_a_field(monkeypatch: pytest.MonkeyPatch, in_the_table: bool) -> None:
    """The change request: one new field on every round result (its builders' :func:`head`), and,
    if ``in_the_table``, its line in the upgrade table under the next version."""

    def head(table: round_record.RoundTable, status: str) -> dict[str, Any]:
        return {**round_record.head(table, status), "probe": table.table_id}

    monkeypatch.setattr(records, "head", head)
    monkeypatch.setattr(paigow_round, "head", head)
    if in_the_table:
        monkeypatch.setattr(upgrades, "ADDED", {**ADDED, "0.9.0": {"round_result": ("probe",)}})


@pytest.mark.parametrize("fixture", [JOURNALS_030[1], JOURNALS_020[2]], ids=["0.3.0-baccarat-shuffler", "0.2.0-paigow"])
def test_a_field_added_by_the_table_leaves_older_journals_replaying(
    fixture: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_a_field(monkeypatch, in_the_table=True)
    replayed = [json.loads(line) for line in replay_lines(fixture.profile_path, copy_journal(fixture, tmp_path))]
    results = [d["data"] for step in replayed for d in step.get("decisions", []) if d["type"] == "round_result"]
    assert len(results) == fixture.rounds and all(r["probe"].startswith("FIX-") for r in results)


def test_without_its_line_in_the_table_the_new_field_diverges_the_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_a_field(monkeypatch, in_the_table=False)
    fixture = JOURNALS_030[1]
    with pytest.raises(JournalError, match="replay diverged"):
        list(replay_lines(fixture.profile_path, copy_journal(fixture, tmp_path)))
