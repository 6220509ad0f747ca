"""The journals tablehost 0.1.0 wrote still verify, export and replay (issue 12, item 8).

The journals in ``tests/fixtures/journals-0.1.0/`` were written by the real service of 0.1.0
(``tablehost run``, simulated devices) and are never regenerated here; their golden outputs
beside them are what 0.1.0 printed (``make_journals.py`` says how). The CLI is run as a
process (``python -m firmware_host``), so these tests do not depend on where modules live;
the in-process replay goes through :mod:`tests.support.journals_010` only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.journals_010 import (
    JOURNALS,
    Fixture,
    exported_less_0_3_0,
    golden,
    replayed_as_golden,
    resume_without_playing,
    tablehost,
    verified_as_golden,
)

pytestmark = pytest.mark.parametrize("fixture", JOURNALS, ids=[f.name for f in JOURNALS])


def test_it_verifies_intact_as_0_1_0_said(fixture: Fixture, tmp_path: Path) -> None:
    assert ": intact: " in verified_as_golden(fixture, tmp_path)


@pytest.mark.parametrize("what", ["rounds", "shoes"])
def test_it_exports_byte_for_byte_as_0_1_0_did(fixture: Fixture, what: str, tmp_path: Path) -> None:
    """Byte for byte but for what 0.3.0 adds (:func:`as_0_1_0_exported`)."""
    assert exported_less_0_3_0(fixture, what, tmp_path) == golden(fixture, f"{what}.jsonl").read_bytes()


def test_a_fresh_controller_replays_every_decision_as_0_1_0_made_it(fixture: Fixture, tmp_path: Path) -> None:
    """Every decision comes out as 0.1.0 made it, byte for byte, less what later versions added
    (:func:`as_written`): the hands a Baccarat ``deal`` prompt shows as they lie face up
    (``exposed``, issue 14; 0.1.0 showed them only at the point count), the ``refused`` decision
    beside each refusal's alert (issue 20 item 3), which 0.1.0 recorded by the alert alone, and
    game protection's ``odds`` and advantage alerts (docs/protection.md)."""
    replayed = replayed_as_golden(fixture, tmp_path)
    deal_prompts = [
        d
        for line in replayed
        for d in json.loads(line).get("decisions", [])
        if d["type"] == "prompt" and d["data"].get("action") == "deal"
    ]
    assert (fixture.name == "paigow") == (not deal_prompts)
    assert all("exposed" in d["data"] for d in deal_prompts)
    odds = [d for line in replayed for d in json.loads(line).get("decisions", []) if d["type"] == "odds"]
    rounds = len(golden(fixture, "rounds.jsonl").read_text().splitlines())
    assert (fixture.name == "paigow") == (not odds) and (not odds or len({d["round"] for d in odds}) >= rounds)


def test_tablehost_run_resumes_it_without_playing(fixture: Fixture, tmp_path: Path) -> None:
    """``tablehost run`` replays the journal (refusing it on any diverging decision) and, with
    ``--rounds`` the rounds already in it, stops at once and leaves it as it was."""
    journal = resume_without_playing(fixture, tmp_path)
    verified = tablehost("journal", "verify", journal.name, cwd=tmp_path)
    assert verified.stdout == golden(fixture, "verify.txt").read_text()


def test_the_fixture_holds_what_it_is_kept_for(fixture: Fixture) -> None:
    """A new set of fixtures must be as rich as this one: the irregularities, shoes and banks named here."""
    rounds = [json.loads(line) for line in golden(fixture, "rounds.jsonl").read_text().splitlines()]
    alerts = {
        step["data"].get("code")
        for line in golden(fixture, "replay.jsonl").read_text().splitlines()
        for step in json.loads(line).get("decisions", [])
        if step["type"] == "alert"
    }
    shoes = len(golden(fixture, "shoes.jsonl").read_text().splitlines())
    assert len(rounds) == fixture.rounds
    if fixture.name == "baccarat-irregularities":
        # § 541.14(a), (c), (d), (e), a card the shoe could not read, a bad link, the shoe lost
        assert {
            "card-drawn-in-error",
            "card-disclosed",
            "card-face-up",
            "shoe-empty",
            "card-unreadable",
            "protocol-error",
            "device-lost",
        } <= alerts
        assert shoes >= 2
    elif fixture.name == "baccarat-shuffler":
        assert {"shuffler-fault", "shuffle-abandoned", "card-count", "new-decks", "device-lost"} <= alerts
        assert shoes >= 1
    else:
        settlements = [r["settlement"] for r in rounds]
        assert any(s["bank"] is not None for s in settlements)  # a player banked (§ 535.11)
        assert all(s["hands"] for s in settlements)  # every round's tiles keyed in
