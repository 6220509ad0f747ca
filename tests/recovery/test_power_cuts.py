"""Issue 27 item 7: power cuts of the real ``tablehost run`` lose nothing and duplicate nothing.

The service runs on :mod:`cutfs <tests.support.cutfs>`, a FUSE file system that keeps only
what was fsynced (file contents and directory entries alike). Each test cuts the power at one
file-system operation: the program is frozen there, its process group killed, and the disk
is what a disk would hold (the durable image). ``tablehost run`` is then started again on that
disk with the same arguments and plays to the end, and :meth:`~tests.support.power_cuts.Table.cut_and_restart`
checks that the journal verifies, that its rounds and shoes are those of an uninterrupted run
of the same seed (every round right and once), and that every result printed before the cut
is in the journal as printed.

The cuts: at every operation of a first start (an empty disk, through the journal's first
commit, and one after it), at every operation of a rotation (``rotate_mb``: the archive's copy,
its rename and the directory's fsync, the live file cut and vacuumed, and one after it), and at
seeded operations mid-shoe at a Baccarat table and mid-round at a Pai Gow table.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench.soak.profiles import CHECKPOINTS, PAIGOW_SEED, paigow_profile, write_profile
from firmware_host.host.journal_keys import write_key
from tests.support.cutfs import fuse_unavailable
from tests.support.power_cuts import JOURNAL, Outcome, Table

#: Why FUSE cannot be used here (None: it can; CI runs as root with /dev/fuse: ``make deps``).
UNAVAILABLE = fuse_unavailable()
pytestmark = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"power cuts need FUSE: {UNAVAILABLE}")

#: Operations of a first start, through the journal's first commit (the lock file; the journal
#: built whole as ``.new`` with its rollback journal, WAL mode set, its first records committed,
#: fsynced and renamed into place, the directory fsynced: ``host/genesis.py``).
FIRST_START_OPS = 36
#: Operations of a rotation of the journal below (from the archive's ``.partial`` copy to the
#: vacuum of the live file's cut, inclusive).
ROTATION_OPS = 51
#: Seeded cuts per game, mid-play.
MID_PLAY_CUTS = 8
#: Rounds the mid-play runs play (at the Baccarat table, the shoe's burn comes before the first).
MID_PLAY_ROUNDS = 6
#: What ``rotate_mb`` the rotation's table has: its journal of :data:`PREPARED_ROUNDS` rounds is over it.
ROTATE = "rotate_mb = 0.02"
PREPARED_ROUNDS = 1


class Tables:
    """The tables of these tests and their uncut runs, made once per test session in a folder the
    xdist workers share (under a lock): the key, the profiles, the references, the counts."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.key = directory / "journal.key"
        with self._locked("key"):
            if not self.key.exists():
                write_key(self.key)

    @contextlib.contextmanager
    def _locked(self, name: str) -> Iterator[Path]:
        with (self.directory / f"{name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield self.directory / name

    def _made(self, name: str, make: Callable[[Path], None]) -> Path:
        """``make`` the folder ``name`` unless a worker has made it."""
        with self._locked(name) as folder:
            if not (folder / "made").exists():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                make(folder)
                (folder / "made").touch()
        return folder

    def operations(self, name: str, table: Table) -> int:
        """How many operations the uncut run of ``table`` makes (counted once)."""

        def count(folder: Path) -> None:
            (folder / "ops").write_text(str(len(table.count(folder / "run"))))

        return int((self._made(f"{name}-count", count) / "ops").read_text())

    def baccarat(self, rounds: int) -> tuple[Table, Path]:
        """A keyed simulated Baccarat table (6 decks, no faults: runs compare with uncut ones)."""

        def make(folder: Path) -> None:
            Table(write_profile(folder, key_file=self.key), rounds, 5, self.key).reference(folder / "reference")

        folder = self._made(f"baccarat-{rounds}", make)
        return Table(folder / "tables" / "t.toml", rounds, 5, self.key), folder / "reference" / JOURNAL

    def paigow(self) -> tuple[Table, Path]:
        """``make run-paigow``'s table, keyed, without link outages (they make runs incomparable)."""

        def make(folder: Path) -> None:
            profile = paigow_profile(folder)
            text = profile.read_text().replace(", disconnect = 0.001", "")
            profile.write_text(text.replace("[journal]\n", f'[journal]\nhmac_key_file = "{self.key}"\n'))
            Table(profile, MID_PLAY_ROUNDS, PAIGOW_SEED, self.key).reference(folder / "reference")

        folder = self._made("paigow", make)
        table = Table(folder / "tables" / "sim-paigow.toml", MID_PLAY_ROUNDS, PAIGOW_SEED, self.key)
        return table, folder / "reference" / JOURNAL

    def rotating(self) -> tuple[Table, Path, Path]:
        """A disk holding a journal of :data:`PREPARED_ROUNDS` rounds, the table that continues it
        with ``rotate_mb`` under its size (the restart rotates at its first quiet moment), and
        that table's uncut run."""

        def make(folder: Path) -> None:
            (folder / "plain").mkdir()
            (folder / "rotating").mkdir()
            plain = Table(write_profile(folder / "plain", key_file=self.key), PREPARED_ROUNDS, 5, self.key)
            (folder / "disk").mkdir()
            assert plain.run(folder / "disk" / JOURNAL, folder / "prepared.log") == 0
            write_profile(folder / "rotating", key_file=self.key, journal=f"{CHECKPOINTS}\n{ROTATE}")
            shutil.copytree(folder / "disk", folder / "reference")
            assert rotating(folder).run(folder / "reference" / JOURNAL, folder / "reference" / "run.log") == 0

        def rotating(folder: Path) -> Table:
            return Table(folder / "rotating" / "tables" / "t.toml", PREPARED_ROUNDS + 1, 5, self.key)

        folder = self._made("rotating", make)
        return rotating(folder), folder / "disk", folder / "reference" / JOURNAL


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Tables:
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the workers' common folder
    folder = shared / "power-cut-tables"
    folder.mkdir(exist_ok=True)
    return Tables(folder)


def _assert_nothing_lost(outcome: Outcome) -> None:
    assert outcome.cut.op is not None, f"the run ended before the cut: {outcome.cut}"
    assert outcome.problems == [], f"cut at {outcome.cut}: {outcome.problems}"


def first_start_span(ops: list[tuple[str, str]]) -> int:
    """Operations through the first commit: the first fsync of a WAL after frames were written to it
    (a WAL's first write, after its create, is its header)."""
    framed = False
    for number, (kind, path) in enumerate(ops, 1):
        if path.endswith("-wal") and kind == "write" and ops[number - 2] != ("create", path):
            framed = True
        if framed and path.endswith("-wal") and kind == "fsync" and ops[number - 2][0] == "write":
            return number
    raise AssertionError(f"no commit in {ops}")


def rotation_span(ops: list[tuple[str, str]]) -> int:
    """Operations of the rotation, from the first on the archive's name to the live file's
    second WAL fsync after the archive's rename (the cut's commit, then the vacuum's)."""
    start = next(n for n, (_, path) in enumerate(ops) if ".000001." in path)
    renamed = next(n for n in range(start, len(ops)) if ops[n][0] == "rename")
    fsyncs = [n for n in range(renamed, len(ops)) if ops[n] == ("fsync", f"/{JOURNAL}-wal")]
    return fsyncs[1] - start + 1


def test_the_cut_points_are_every_operation_of_a_first_start_and_of_a_rotation(tables: Tables, tmp_path: Path) -> None:
    # The counts the cut tests below are parametrised with: a clean first start and a clean
    # rotation through cutfs, counted.
    table, _ = tables.baccarat(rounds=1)
    first = table.count(tmp_path / "first")
    counted = first_start_span(first)
    assert counted == FIRST_START_OPS, f"a first start makes {counted} operations: set FIRST_START_OPS: {first[:40]}"
    rotating, disk, _ = tables.rotating()
    rotation = rotating.count(tmp_path / "rotation", disk=disk)
    counted = rotation_span(rotation)
    assert counted == ROTATION_OPS, f"a rotation makes {counted} operations: set ROTATION_OPS: {rotation[:90]}"


@pytest.mark.parametrize("op", range(1, FIRST_START_OPS + 2))
def test_a_power_cut_at_any_operation_of_a_first_start_leaves_a_table_that_starts(
    tables: Tables, tmp_path: Path, op: int
) -> None:
    table, reference = tables.baccarat(rounds=1)
    _assert_nothing_lost(table.cut_and_restart(tmp_path, reference, op))


@pytest.mark.parametrize("op", range(1, ROTATION_OPS + 2))
def test_a_power_cut_at_any_operation_of_a_rotation_loses_and_duplicates_nothing(
    tables: Tables, tmp_path: Path, op: int
) -> None:
    table, disk, reference = tables.rotating()
    _assert_nothing_lost(table.cut_and_restart(tmp_path, reference, op, after=".000001.", disk=disk))


def _cut_mid_play(tables: Tables, tmp_path: Path, game: str, moment: int) -> None:
    """Cut ``game``'s table at the seeded operation ``moment`` of its run: past the first start,
    before the run's last tenth."""
    table, reference = tables.baccarat(rounds=MID_PLAY_ROUNDS) if game == "baccarat" else tables.paigow()
    count = tables.operations(game, table)
    op = random.Random(f"power-cut-{game}-{moment}").randrange(FIRST_START_OPS + 1, count * 9 // 10)
    _assert_nothing_lost(table.cut_and_restart(tmp_path, reference, op))


@pytest.mark.parametrize("moment", range(MID_PLAY_CUTS))
def test_541_12_c_a_power_cut_mid_shoe_loses_and_duplicates_nothing(
    tables: Tables, tmp_path: Path, moment: int
) -> None:
    _cut_mid_play(tables, tmp_path, "baccarat", moment)


@pytest.mark.parametrize("moment", range(MID_PLAY_CUTS))
def test_535_a_power_cut_at_a_seeded_moment_of_play_at_a_paigow_table_loses_and_duplicates_nothing(
    tables: Tables, tmp_path: Path, moment: int
) -> None:
    _cut_mid_play(tables, tmp_path, "paigow", moment)
