"""The journals tablehost 0.1.0, 0.2.0 and 0.3.0 wrote (``tests/fixtures/journals-<version>/``) and how a replay
of them is dumped.

Shared by ``tests/host/journal/test_journals_0_1_0.py``, ``tests/recovery/test_upgrade.py`` and the
fixtures' ``make_journals.py``. The few tablehost names used to replay in-process are imported
here only, so that a module move changes this file and no assertion.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from drivers.events import DeviceEvent
from firmware_host import __version__
from firmware_host.config.profiles import load_table
from firmware_host.errors import ControllerError
from firmware_host.host.journal import Journal
from firmware_host.host.service import Service
from firmware_host.host.upgrades import as_written_by
from firmware_host.tables.decisions import Decision
from firmware_host.wiring import TABLE_META, game_wiring
from tests.support.paths import REPO

__all__ = [
    "FIXTURES",
    "WRITTEN_BY",
    "JOURNALS",
    "JOURNALS_020",
    "JOURNALS_030",
    "Fixture",
    "golden",
    "copy_journal",
    "replay_lines",
    "tablehost",
    "as_0_1_0_exported",
    "exported_less_0_3_0",
    "resume_without_playing",
    "SHOE_FIGURES",
    "as_written",
    "verified_as_golden",
    "replayed_as_golden",
]

#: The fixtures' folder: profiles in ``tables/``, device models of 0.1.0 in ``devices/``, the
#: journals, and the golden outputs of 0.1.0 in ``golden/``.
FIXTURES = REPO / "tests" / "fixtures" / "journals-0.1.0"
#: The version that wrote them.
WRITTEN_BY = "0.1.0"


@dataclasses.dataclass(frozen=True)
class Fixture:
    """One journal of the fixtures: ``<name>.sqlite`` made from ``tables/<profile>`` with
    ``tablehost run --rounds <rounds> --seed <seed>``."""

    name: str
    profile: str
    rounds: int
    seed: int
    #: The version that wrote it; its set's folder is ``tests/fixtures/journals-<version>``.
    written_by: str = WRITTEN_BY

    @property
    def folder(self) -> Path:
        """The folder of its set: profiles, device models, journals, golden outputs."""
        return FIXTURES.with_name(f"journals-{self.written_by}")

    @property
    def journal(self) -> Path:
        """The committed journal."""
        return self.folder / f"{self.name}.sqlite"

    @property
    def profile_path(self) -> Path:
        """The table profile it was written with."""
        return self.folder / "tables" / self.profile


#: Every fixture journal.
JOURNALS = (
    # § 541.14(a)-(e): cards drawn in error (some disclosed), face-up and unreadable cards, a
    # bad link and a lost shoe, shoes emptied early; three shoes in the journal.
    Fixture("baccarat-irregularities", "baccarat-irregularities.toml", rounds=40, seed=3),
    # The shuffler with every fault of its sim; the shoe changes (two batches played).
    Fixture("baccarat-shuffler", "baccarat-shuffler.toml", rounds=30, seed=1),
    # Pai Gow: dice, tiles keyed in, player banks and co-banks (§ 535.11).
    Fixture("paigow", "paigow.toml", rounds=20, seed=1),
)


#: The same journals as written by 0.2.0 (``tests/fixtures/journals-0.2.0/make_journals.py``).
JOURNALS_020 = tuple(dataclasses.replace(fixture, written_by="0.2.0") for fixture in JOURNALS)
#: The same journals as written by 0.3.0 (``tests/fixtures/journals-0.3.0/make_journals.py``).
JOURNALS_030 = tuple(dataclasses.replace(fixture, written_by="0.3.0") for fixture in JOURNALS)


def as_written(fixture: Fixture, line: str) -> str:
    """A replayed step (a :func:`replay_lines` line) as the fixture's version would have decided
    it: less what the versions after it added, by the journal's upgrade table
    (:data:`~firmware_host.host.upgrades.ADDED`: 0.2.0's ``exposed`` hands in a deal prompt, 0.3.0's
    ``odds``, advantage alerts, ``refused`` records, a round's ``gaming_day``...)."""
    step = json.loads(line)
    if "decisions" in step:
        decided = [Decision(d["type"], d["data"], d["round"]) for d in step["decisions"]]
        step["decisions"] = [
            {"type": d.type, "round": d.round, "data": d.data} for d in as_written_by(fixture.written_by, decided)
        ]
    return json.dumps(step, sort_keys=True, ensure_ascii=False) + "\n"


def golden(fixture: Fixture, what: str) -> Path:
    """The golden output ``what`` (``verify.txt``, ``rounds.jsonl``...) of ``fixture``."""
    return fixture.folder / "golden" / f"{fixture.name}.{what}"


def copy_journal(fixture: Fixture, directory: Path) -> Path:
    """A copy of the fixture's journal in ``directory`` (a replay opens its journal for appending)."""
    copy = directory / fixture.journal.name
    shutil.copyfile(fixture.journal, copy)
    return copy


class _Recording:
    """A controller that keeps every step's decisions as it makes them (or the input it refused)."""

    def __init__(self, controller: Any) -> None:
        self.controller = controller
        self.steps: list[tuple[float, DeviceEvent, list[Decision] | str]] = []

    def handle(self, event: DeviceEvent, at: float, mono_ns: int | None = None) -> list[Decision]:
        try:
            decided = self.controller.handle(event, at, mono_ns)
        except ControllerError as exc:  # the service journals it as a refused-input alert
            self.steps.append((at, event, str(exc)))
            raise
        self.steps.append((at, event, decided))
        return decided


def replay_lines(profile: Path, journal: Path) -> Iterator[str]:
    """Replay ``journal`` (a copy: it is opened for appending) through a fresh controller built
    from ``profile``, as the service does on start, and yield one JSON line per step: its
    time, input type and every decision the controller made (``type``, ``round``, ``data``),
    or the controller's words refusing the input.

    :raises JournalError: the replay diverged from the journal (the service's own check).
    """
    table = load_table(profile)
    recording = _Recording(game_wiring(table.game).controller(table))
    with Journal.open(journal) as opened:
        service = Service(recording, opened, version=__version__)
        service.recover(started_by=opened.meta(TABLE_META)[0].get("version"))
    for number, (at, event, decided) in enumerate(recording.steps, 1):
        step: dict[str, Any] = {"step": number, "at": at, "input": type(event).__name__}
        if isinstance(decided, str):
            step["refused"] = decided
        else:
            step["decisions"] = [{"type": d.type, "round": d.round, "data": d.data} for d in decided]
        yield json.dumps(step, sort_keys=True, ensure_ascii=False) + "\n"


def verified_as_golden(fixture: Fixture, directory: Path) -> str:
    """``journal verify`` of a copy in ``directory`` of the fixture's journal: asserted to print and
    exit as its version did (intact, 0); returns what it printed."""
    copy_journal(fixture, directory)  # the same file name: the output names it
    verified = tablehost("journal", "verify", fixture.journal.name, cwd=directory)
    assert (verified.stdout, verified.returncode) == (
        golden(fixture, "verify.txt").read_text(),
        int(golden(fixture, "verify.rc").read_text()),
    )
    assert verified.returncode == 0
    return verified.stdout


def replayed_as_golden(fixture: Fixture, directory: Path) -> list[str]:
    """The fixture's journal (a copy in ``directory``) replayed through a fresh controller
    (:func:`replay_lines`), asserted step by step to be what its version decided, byte for byte,
    less what later versions added (:func:`as_written`); returns the replayed lines."""
    replayed = list(replay_lines(fixture.profile_path, copy_journal(fixture, directory)))
    expected = golden(fixture, "replay.jsonl").read_text().splitlines(keepends=True)
    assert len(replayed) == len(expected)
    for line, (got, want) in enumerate(zip(replayed, expected), 1):
        assert as_written(fixture, got) == want, f"step {line} of {fixture.name} replays differently"
    return replayed


def tablehost(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m firmware_host ARGS`` in ``cwd``, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "firmware_host", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


#: What 0.3.0 adds to every shoe of ``journal export --shoes`` (docs/protection.md).
SHOE_FIGURES = (
    "drop",
    "win",
    "theo",
    "hold",
    "rounds_per_hour",
    "advantage_windows",
    "advantage_play_alerts",
    "alert_count",
)


def as_0_1_0_exported(line: str, what: str) -> str:
    """An exported line less what 0.3.0 adds (docs/protection.md), checked on the way: a Baccarat
    round's ``odds`` (none: 0.1.0 decided none) and each wager's ``theo`` (null without odds; a
    Pai Gow wager's from the house edge per wager), a shoe's figures."""
    data = json.loads(line)
    if what == "shoes":
        assert set(SHOE_FIGURES) <= set(data)
        for key in SHOE_FIGURES:
            data.pop(key)
    elif data["game"] == "paigow":
        for result in data["settlement"]["results"]:
            assert isinstance(result.pop("theo"), float)
    else:
        assert data.pop("odds") is None
        assert all(entry.pop("theo") is None for entry in data["settlement"])
    return json.dumps(data, sort_keys=True, ensure_ascii=False) + "\n"


def exported_less_0_3_0(fixture: Fixture, what: str, directory: Path) -> bytes:
    """What ``journal export --rounds``/``--shoes`` prints of (a copy in ``directory`` of) the
    fixture's journal, less what 0.3.0 adds (:func:`as_0_1_0_exported`)."""
    exported = tablehost("journal", "export", str(copy_journal(fixture, directory)), f"--{what}", cwd=directory)
    assert exported.returncode == 0, exported.stderr
    return "".join(as_0_1_0_exported(line, what) for line in exported.stdout.splitlines(keepends=True)).encode()


def resume_without_playing(fixture: Fixture, directory: Path) -> Path:
    """``tablehost run`` on a copy in ``directory`` of the fixture's journal, ``--rounds`` the rounds
    already in it: it replays every step (refusing any diverging decision) and stops at once.
    Returns the copy."""
    journal = copy_journal(fixture, directory)
    ran = tablehost(
        "run",
        "--profile",
        str(fixture.profile_path),
        "--rounds",
        str(fixture.rounds),
        "--seed",
        str(fixture.seed),
        "--journal",
        str(journal),
        "--quiet",
        cwd=directory,
    )
    assert ran.returncode == 0, ran.stderr
    steps = len(golden(fixture, "replay.jsonl").read_text().splitlines())
    assert re.search(rf"recovered {steps} steps from .* \({fixture.rounds} rounds finished\)", ran.stdout), ran.stdout
    return journal
