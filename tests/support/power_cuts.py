"""Power cuts of the real ``tablehost run`` on :mod:`cutfs <tests.support.cutfs>` (issue 27 item 7).

:class:`Table` is one simulated table and its ``tablehost run`` command line (not ``--quiet``:
the dealer view prints every result, so what was printed before a cut can be held against the
journal). :meth:`Table.reference` runs it uncut on an ordinary directory; :meth:`Table.count`
runs it on cutfs and lists the operations it makes; :meth:`Table.cut_and_restart` runs it on
cutfs, cuts the power at one operation, restarts it on the durable image (the disk the next
boot finds) and checks the result (:class:`Outcome`).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path
from typing import Any

from bench.soak.audit import compare_runs
from bench.soak.forked import ForkedService, fork_service
from bench.soak.profiles import REPO
from firmware_host.host.journal_export import round_results
from firmware_host.host.journal_verify import verify
from tests.support.cutfs import Cut, CutMount

__all__ = ["Table", "Outcome", "printed_results", "JOURNAL"]

#: The journal's file name, in whatever directory holds it.
JOURNAL = "journal.sqlite"
#: A result line of the dealer view (``[T r3] round 3: ...``).
RESULT = re.compile(r"^\[[^\]]*\] (round (\d+): .*)$", re.MULTILINE)
#: Seconds a run may take before a test calls it stuck.
RUN_SECONDS = 60.0


def printed_results(log: Path) -> dict[int, str]:
    """The result lines a run printed, by round (the dealer view's ``round N: ...``)."""
    text = log.read_text(errors="replace") if log.exists() else ""
    return {int(number): line for line, number in RESULT.findall(text)}


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One cut and what the restart made of it: ``problems`` is empty when nothing was lost."""

    cut: Cut
    printed: dict[int, str]
    restart_status: int
    problems: list[str]


@dataclasses.dataclass(frozen=True)
class Table:
    """``tablehost run --profile PROFILE --rounds ROUNDS --seed SEED`` with a keyed journal."""

    profile: Path
    rounds: int
    seed: int
    key_file: Path

    def arguments(self, journal: Path) -> list[str]:
        """The arguments after ``python -m firmware_host``."""
        return ["run", "--profile", str(self.profile), "--rounds", str(self.rounds),
                "--seed", str(self.seed), "--journal", str(journal)]  # fmt: skip

    def run(self, journal: Path, log: Path) -> int:
        """Run (or continue) to the end, uncut; the exit status."""
        proc = fork_service(self.arguments(journal), log, REPO)
        return proc.wait(timeout=RUN_SECONDS)

    def reference(self, directory: Path) -> Path:
        """The uncut run, in ``directory`` (its log beside the journal); the journal."""
        directory.mkdir(parents=True, exist_ok=True)
        journal = directory / JOURNAL
        status = self.run(journal, directory / "run.log")
        assert status == 0, f"the uncut run exited {status}:\n{_tail(directory / 'run.log')}"
        return journal

    def count(self, directory: Path, disk: Path | None = None) -> list[tuple[str, str]]:
        """Run uncut on cutfs over a copy of ``disk`` (None: an empty one); every counted operation."""
        backing, mount = _disk(directory, disk)
        with CutMount(backing, mount) as fs:
            status = self.run(mount / JOURNAL, directory / "count.log")
            assert status == 0, f"the counted run exited {status}:\n{_tail(directory / 'count.log')}"
            log = [(kind, path) for kind, path in fs.status()["log"]]
        return log

    def cut_and_restart(
        self,
        directory: Path,
        reference: Path,
        op: int,
        *,
        after: str | None = None,
        disk: Path | None = None,
    ) -> Outcome:
        """Run on cutfs over a copy of ``disk`` (None: empty), cut the power at operation ``op`` (counted from the mount, or from the first
        operation on a path containing ``after``), restart on the durable image until the table's
        rounds are played, and check it against the uncut ``reference`` journal:

        - the restart exits 0 and ``journal verify`` (with the key) finds the chain whole;
        - every round is right and once: ``journal export --rounds`` (and ``--shoes``) equal the
          reference's;
        - every result printed before the cut is the reference's result of that round.
        """
        backing, mount = _disk(directory, disk)
        image, log = directory / "image", directory / "cut.log"
        with CutMount(backing, mount) as fs:
            fs.arm(op, after)
            program: ForkedService = fork_service(self.arguments(mount / JOURNAL), log, REPO, group=True)
            try:
                cut = fs.cut(program, image, RUN_SECONDS)
            finally:
                _end(program)
        printed = printed_results(log)
        journal, restart_log = image / JOURNAL, directory / "restart.log"
        status = self.run(journal, restart_log)
        problems = [] if status == 0 else [f"the restart exited {status}: {_tail(restart_log, 3)}"]
        if status == 0:
            problems += self._check(journal, reference, printed)
        return Outcome(cut, printed, status, problems)

    def _check(self, journal: Path, reference: Path, printed: dict[int, str]) -> list[str]:
        problems = []
        checked = verify(journal, hmac_key=self.key_file.read_bytes())
        if not checked.ok:
            problems.append(f"journal verify: {checked.problem} at record {checked.broken_seq}: {checked.detail}")
        problems += compare_runs(journal, reference)
        expected = printed_results(reference.parent / "run.log")
        held = {record["round"] for record in round_results(journal) if record["status"] == "completed"}
        for number, line in sorted(printed.items()):
            if number not in held or expected.get(number) != line:
                problems.append(f"printed before the cut but not in the journal as printed: {line!r}")
        return problems


def _disk(directory: Path, disk: Path | None) -> tuple[Path, Path]:
    """The backing directory (a copy of ``disk``, or empty) and the mount point, in ``directory``."""
    backing, mount = directory / "disk", directory / "mnt"
    if disk is not None:
        shutil.copytree(disk, backing)
    backing.mkdir(parents=True, exist_ok=True)
    return backing, mount


def _end(program: ForkedService) -> None:
    """The program is over however the cut went (a failed cut must not leave it running)."""
    from tests.support.cutfs import with_group

    if program.poll() is None:
        import signal

        with_group(program.pid, signal.SIGKILL)
    program.wait(timeout=RUN_SECONDS)


def _tail(log: Path, lines: int = 15) -> str:
    text: Any = log.read_text(errors="replace") if log.exists() else ""
    return "\n".join(text.splitlines()[-lines:])
