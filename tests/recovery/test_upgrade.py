"""An upgrade mid-shift (issue 6, "Why"): a newer tablehost continues a journal an earlier one wrote.

Every step the earlier version decided must replay to the same binding decisions (results,
settlements, announcements, alerts, device health and commands); prompts, the lamp and
texts may be worded anew. The upgrade is journaled (``SoftwareStarted``), so the record
says from which step the new version decided. A version that would decide a step
differently refuses the journal with a clear error instead of changing the record.
"""

from __future__ import annotations

import io
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.soak.audit import seeded_shoe
from bench.soak.profiles import write_profile
from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shoe import CardRead
from firmware_host import __version__
from firmware_host.cli import main as tablehost_main
from firmware_host.config.profiles import load_table
from firmware_host.errors import JournalError
from firmware_host.host.journal import Journal
from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.tables.base import TableController
from firmware_host.tables.events import DealerCommand, SoftwareStarted
from firmware_host.wiring import build_table
from tests.support.journals_010 import JOURNALS, WRITTEN_BY, Fixture, as_0_1_0_exported, copy_journal, golden

EARLIER = "0.0.9"
SHOE_UP = DeviceIdentified(device="shoe", model="TS-8", serial="SIM-0001", firmware="2.1.1")


def play_with_earlier_version(directory: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The profile and a journal written by tablehost :data:`EARLIER`: the shoe, its burn,
    two rounds and a third under way."""
    journal, seed = directory / "journal.sqlite", 3
    path = write_profile(directory, journal="checkpoint_every_steps = 0")  # every step is decided again
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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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


# -- the journals 0.1.0 wrote (tests/fixtures/journals-0.1.0) --------------------------------------

MORE_ROUNDS = 3


def _tablehost(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "firmware_host", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _continue_args(fixture: Fixture, journal: Path, rounds: int) -> list[str]:
    """``tablehost run`` arguments continuing the fixture's journal until it holds ``rounds`` rounds."""
    return [
        "run",
        "--profile",
        str(fixture.profile_path),
        "--rounds",
        str(rounds),
        "--seed",
        str(fixture.seed),
        "--journal",
        str(journal),
        "--quiet",
    ]


@pytest.mark.parametrize("fixture", JOURNALS, ids=[f.name for f in JOURNALS])
def test_this_version_continues_a_journal_0_1_0_wrote(fixture: Fixture, tmp_path: Path) -> None:
    """Played on by this version, a 0.1.0 journal journals ``SoftwareStarted`` only if this is
    another version, still verifies, and keeps the rounds 0.1.0 played as they were."""
    journal = copy_journal(fixture, tmp_path)
    ran = _tablehost(*_continue_args(fixture, journal, fixture.rounds + MORE_ROUNDS), cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert software_steps(journal) == ([] if __version__ == WRITTEN_BY else [__version__])
    verified = _tablehost("journal", "verify", str(journal), cwd=tmp_path)
    assert verified.returncode == 0 and ": intact: " in verified.stdout, verified.stdout
    rounds = _tablehost("journal", "export", str(journal), "--rounds", cwd=tmp_path).stdout.splitlines(keepends=True)
    assert len(rounds) == fixture.rounds + MORE_ROUNDS
    # as 0.1.0 exported them, less what 0.3.0's export adds (docs/protection.md)
    kept = "".join(as_0_1_0_exported(line, "rounds") for line in rounds[: fixture.rounds])
    assert kept == golden(fixture, "rounds.jsonl").read_text()


def test_a_newer_version_continues_a_journal_0_1_0_wrote_and_journals_the_upgrade_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    newer = f"{WRITTEN_BY}+next"
    monkeypatch.setattr("firmware_host.wiring.__version__", newer)
    fixture = JOURNALS[-1]  # the Pai Gow table plays fastest
    journal = copy_journal(fixture, tmp_path)
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        for rounds in (fixture.rounds + MORE_ROUNDS, fixture.rounds + 2 * MORE_ROUNDS):
            # tablehost run in-process (the newer version); the second restart replays the newer
            # version's steps exactly and plays on: no second upgrade
            assert tablehost_main(_continue_args(fixture, journal, rounds)) == 0
            capsys.readouterr()
            assert _rounds_in(journal, tmp_path) == rounds
    finally:  # tablehost run set its own
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    assert software_steps(journal) == [newer]
    verified = _tablehost("journal", "verify", str(journal), cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout


def _rounds_in(journal: Path, cwd: Path) -> int:
    return len(_tablehost("journal", "export", str(journal), "--rounds", cwd=cwd).stdout.splitlines())
