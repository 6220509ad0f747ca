"""An upgrade mid-shift (issue 6, "Why"): a newer tablehost continues a journal an earlier one wrote.

Every step the earlier version decided must replay to the same binding decisions (results,
settlements, announcements, alerts, device health and commands); prompts, the lamp and
texts may be worded anew. The upgrade is journaled (``SoftwareStarted``), so the record
says from which step the new version decided. A version that would decide a step
differently refuses the journal with a clear error instead of changing the record.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from drivers.events.shoe import CardRead
from drivers.events.lifecycle import DeviceIdentified
from firmware_host.tables.events import DealerCommand, SoftwareStarted
from firmware_host import __version__
from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.tables.base import TableController
from firmware_host.errors import JournalError
from firmware_host.host.journal import Journal
from firmware_host.config.profiles import load_table
from firmware_host.wiring import build_table

from tests.recovery.killloop import seeded_shoe, write_profile

EARLIER = "0.0.9"
SHOE_UP = DeviceIdentified(device="shoe", model="TS-8", serial="SIM-0001", firmware="2.1.1")


def play_with_earlier_version(directory: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The profile and a journal written by tablehost :data:`EARLIER`: the shoe, its burn,
    two rounds and a third under way."""
    journal, seed = directory / "journal.sqlite", 3
    path = write_profile(directory)
    profile = load_table(path)
    with monkeypatch.context() as earlier:
        earlier.setattr("firmware_host.wiring.__version__", EARLIER)
        table = build_table(profile, journal_path=journal, seed=seed, stream=io.StringIO())
        service = table.service
        service.step(SHOE_UP)
        service.step(DealerCommand(device="console", command="shoe_loaded"))
        shoe = iter(seeded_shoe(seed, profile.decks, 1, 40))
        while service.rounds_finished < 2 or service.controller.prompt()["action"] != "deal":
            action = service.controller.prompt()["action"]
            if action == "place_bets":
                service.step(DealerCommand(device="buttons", command="no_more_bets"))
                continue
            card = next(shoe)
            assert card is not None
            service.step(CardRead(device="shoe", rank=card[0], suit=card[1], burn=action == "burn"))
        table.stop()
    return path, journal


def reworded_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    """This version words every prompt differently from the earlier one."""
    prompt = BaccaratTable.prompt
    monkeypatch.setattr(BaccaratTable, "prompt", lambda self: {**prompt(self), "text": "worded anew"})


def restart(profile: Path, journal: Path) -> Any:
    return build_table(load_table(profile), journal_path=journal, seed=3, stream=io.StringIO())


def software_steps(journal: Path) -> list[str]:
    with Journal.open(journal) as opened:
        return [event.version for _, event, _ in opened.steps() if isinstance(event, SoftwareStarted)]


def test_a_newer_version_continues_a_journal_it_words_differently_and_journals_the_upgrade(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    profile, journal = play_with_earlier_version(tmp_path, monkeypatch)
    reworded_prompts(monkeypatch)
    table = restart(profile, journal)
    try:
        assert table.service.reworded_steps > 0  # the prompts of the earlier version's steps
        assert table.service.rounds_finished == 2 and table.service.controller.prompt()["action"] == "deal"
        table.service.step(table.service._events.get())  # the wiring queued the SoftwareStarted first
    finally:
        table.stop()
    assert software_steps(journal) == [__version__]
    again = restart(profile, journal)  # the next restart: no second upgrade, the new steps replay exactly
    try:
        assert again.service.journal_version == __version__
    finally:
        again.stop()
    assert software_steps(journal) == [__version__]


def test_a_newer_version_that_would_change_a_binding_decision_refuses_the_journal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    profile, journal = play_with_earlier_version(tmp_path, monkeypatch)
    monkeypatch.setattr(TableController, "decide", _decide_with_another_field(TableController.decide))
    with pytest.raises(JournalError, match=f"decided by tablehost {EARLIER} and this is {__version__}"):
        restart(profile, journal)


def test_the_same_version_must_replay_exactly_even_its_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    profile, journal = play_with_earlier_version(tmp_path, monkeypatch)
    monkeypatch.setattr("firmware_host.wiring.__version__", EARLIER)  # a build of the same version
    reworded_prompts(monkeypatch)
    with pytest.raises(JournalError, match="replay diverged") as raised:
        restart(profile, journal)
    assert "decided by tablehost" not in str(raised.value)


def _decide_with_another_field(decide: Any) -> Any:
    """A version whose announcements carry one more field: a binding difference."""
    def deciding(self: TableController, type: str, data: dict[str, Any], round: int | None = None) -> None:
        decide(self, type, {**data, "new": True} if type == "announce" else data, round)
    return deciding
