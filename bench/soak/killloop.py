"""Kill-and-restart harness for ``tablehost run`` (issue 6, item 1).

:func:`kill_loop` starts the real service (``tablehost run``, in a process forked from a warm
server: :meth:`Run.fork`, :mod:`bench.soak.forked`) on a simulated table with a journal,
SIGKILLs it at seeded points of play spread over the run
— and during its start, during the burn, after the cover card, when a card waits to be
keyed in — and restarts it with the same arguments until the journal holds the rounds
asked for. :class:`Tracker` reads the journal while the process writes it (read-only, as
an auditor would) to see those moments coming, and says afterwards where each kill landed
(:data:`MOMENTS`). A kill lands within a millisecond or so of the record that triggered
it, so some land while the next step is being committed.

:mod:`bench.soak.audit` then checks the journal. ``tests/recovery`` drives the loop briefly;
``bench/bench_recovery.py --kills N`` (the soak) drives it long.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench.soak.forked import ForkedService, fork_service
from bench.soak.profiles import REPO
from firmware_host.config.profiles import load_table

__all__ = [
    "DRAWS",
    "FOREVER",
    "MOMENTS",
    "SHOE_CHANGE",
    "STARTUP_SECONDS",
    "Run",
    "Tracker",
    "KillLoopReport",
    "Stalled",
    "kill_loop",
    "kill_at_shoe_changes",
    "run_to_end",
    "played_alongside",
    "follow",
    "kill",
]


#: A service process: started (:meth:`Run.start`) or forked (:meth:`Run.fork`).
Process = subprocess.Popen[bytes] | ForkedService
#: Seconds between journal polls while waiting for a moment to kill at.
POLL_SECONDS = 0.001
#: Seconds between journal polls while only waiting for the process to end (:func:`run_to_end`).
EXIT_POLL_SECONDS = 0.05
#: No time limit (:func:`follow` still stops a process that writes nothing for :data:`STALL_SECONDS`).
FOREVER = float("inf")
#: A run that writes nothing for this long is stuck (a sim reconnect takes well under it).
STALL_SECONDS = 8.0
#: One process in this many is killed during its start (its journal check, replay and
#: handshake), at a seeded time within as long as the last start took to write its first
#: record (:data:`STARTUP_SECONDS` for the first), and one at the first card waiting to be keyed in.
STARTUP_ODDS = 5
STARTUP_SECONDS = 0.6
#: Records a round writes, about (cards, wagers, prompts, announcements, the result).
RECORDS_PER_ROUND = 27
#: The kills' points of play are spread over this share of the run's rounds.
KILLS_SPAN = 0.9
#: Rounds the harness lets a process play while it waits for the cover card or the burn before it
#: kills anyway (the cover card is at most about 10 rounds off when the harness starts waiting for
#: it, the burn 2). Counted in the journal, not in seconds: a CPU-starved harness must not let a
#: process play on past the points of the kills still to come, nor to the run's end.
SHOE_MOMENT_ROUNDS = 15
#: Draws before the end of a shoe at which the harness starts waiting for the cover card
#: (the sim puts it 14 to 20 cards above the bottom, § 541.5(e)).
COVER_SOON_DRAWS = 60
#: Input records that are one draw from the shoe (``sim.devices.resume.DRAW_EVENTS``).
DRAWS = ("CardRead", "CutCard", "CardUnreadable", "CardFaceUp")


@dataclasses.dataclass(frozen=True)
class Run:
    """One ``tablehost run`` invocation, started again with the same arguments after each kill."""

    profile: Path
    journal: Path
    rounds: int
    seed: int

    @property
    def log(self) -> Path:
        """Every process's stdout and stderr, appended."""
        return self.journal.with_suffix(".log")

    def command(self) -> list[str]:
        """The command line: the same for the first start and every restart."""
        return [
            sys.executable,
            "-m",
            "firmware_host",
            "run",
            "--profile",
            str(self.profile),
            "--rounds",
            str(self.rounds),
            "--seed",
            str(self.seed),
            "--journal",
            str(self.journal),
            "--quiet",
        ]

    def start(self) -> subprocess.Popen[bytes]:
        """Start the service process (the checkout's code, whatever is installed)."""
        env = dict(os.environ, PYTHONPATH=str(REPO))
        with self.log.open("ab") as log:
            return subprocess.Popen(self.command(), cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)

    def fork(self) -> ForkedService:
        """Start the service as :meth:`start` does, forked from a warm server
        (:mod:`bench.soak.forked`: no interpreter start, no imports): the kill loops' restarts."""
        return fork_service(self.command()[3:], self.log, REPO)

    def log_tail(self, lines: int = 15) -> str:
        """The end of the processes' output, for failure messages."""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:]) if self.log.exists() else ""


class Stalled(AssertionError):
    """The service wrote nothing for :data:`STALL_SECONDS` (it was stopped with SIGTERM)."""


class Tracker:
    """What the journal of ``run`` says the table is doing, read incrementally while the service writes it."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.journal = run.journal
        self.game = load_table(run.profile).game
        self.seq = 0
        self.prompt: str | None = None
        self.last_input: str | None = None
        self.rounds = 0
        self.round_seq = 0
        self.shoes = 0
        self.draws_in_shoe = 0
        self.cover_out = False
        #: Cover cards and burn prompts seen so far: a moment a poll came too late to see current is still seen.
        self.covers = self.burns = 0
        #: Why the latest ``device`` decision refuses its device (None: it does not).
        self.refusal: str | None = None
        self.last_write = time.monotonic()
        #: When a poll first found records since it was last set to None (a start's first record).
        self.first_write: float | None = None
        self._conn: sqlite3.Connection | None = None

    def poll(self) -> int:
        """Read the records written since the last poll; return how many there were."""
        rows = self._new_rows()
        for seq, kind, type_, data in rows:
            self.seq = seq
            self._apply(kind, type_, json.loads(data))
        if rows:
            self.last_write = time.monotonic()
            if self.first_write is None:
                self.first_write = self.last_write
        return len(rows)

    def played(self) -> float:
        """Rounds finished, plus the share of a round the records since the last result make."""
        return self.rounds + min(self.seq - self.round_seq, RECORDS_PER_ROUND - 1) / RECORDS_PER_ROUND

    def close(self) -> None:
        """Drop the read connection (between processes)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def settle(self) -> None:
        """Read what a killed process committed, then drop the connection.

        A commit cut off after its log frames were written but before SQLite indexed them
        is only found by WAL recovery, which a connection opening the journal runs when no
        other connection is open (the restarted service does; so, here, does a fresh one).
        """
        self.close()
        self.poll()
        self.close()

    def _new_rows(self) -> list[tuple[int, str, str, str]]:
        try:
            if self._conn is None:
                if not self.journal.exists():
                    return []
                self._conn = sqlite3.connect(f"{self.journal.absolute().as_uri()}?mode=ro", uri=True)
            return self._conn.execute(
                "SELECT seq, kind, type, data FROM records WHERE seq > ? ORDER BY seq", (self.seq,)
            ).fetchall()
        except sqlite3.Error:  # not created yet, or mid-recovery: try again on the next poll
            self.close()
            return []

    def _apply(self, kind: str, type_: str, data: dict[str, Any]) -> None:
        if kind == "input":
            self.last_input = type_
            if type_ in DRAWS:
                self.draws_in_shoe += 1
        elif kind == "decision" and type_ == "prompt":
            self.prompt = data["action"]
            self.burns += self.prompt == "burn"
        elif kind == "decision" and type_ == "round_result":
            self.rounds += 1
            self.round_seq = self.seq
        elif kind == "decision" and type_ == "announce" and data.get("announce") == "cover_card":
            self.cover_out, self.covers = True, self.covers + 1
        elif kind == "decision" and type_ == "announce" and data.get("announce") == "shoe":
            self.shoes, self.draws_in_shoe, self.cover_out = self.shoes + 1, 0, False
        elif kind == "decision" and type_ == "device":
            self.refusal = data.get("refusal")

    def moment(self, since: int) -> str:
        """Where the table stood when the process writing since record ``since`` died.

        ``startup`` (it wrote nothing: killed in its start: imports, journal check, replay or handshake),
        ``paused`` (a device is away: a restart's handshake not done yet),
        ``burn`` (§ 541.5(g)), ``card_entry`` (a card waits to be keyed in),
        ``after_cover_card`` (§ 541.10(e): the cover card is out, the shoe not yet over),
        ``betting`` (wagers coming in), ``rolling`` (Pai Gow: the shaking, the lid, the
        reading), ``mid_round`` (cards dealt, the bank, the tiles) or ``between_rounds``.
        """
        if self.seq == since:
            return "startup"
        if self.prompt == "wait":
            return "paused"
        if self.prompt in ("load_shoe", "burn"):
            return "burn"
        if self.prompt == "enter_card":
            return "card_entry"
        if self.cover_out:
            return "after_cover_card"
        if self.last_input == "WagerPlaced":
            return "betting"
        if self.prompt in ROLLING and self.game == "paigow":
            return "rolling"
        if self.prompt in IN_ROUND:
            return "mid_round"
        return "between_rounds"


#: Where kills land (:meth:`Tracker.moment`).
MOMENTS = (
    "startup",
    "paused",
    "burn",
    "card_entry",
    "after_cover_card",
    "betting",
    "rolling",
    "mid_round",
    "between_rounds",
)
#: Pai Gow prompts of the roll (§ 535.8).
ROLLING = ("shake", "reshake", "read_dice", "reveal")
#: Prompts of a round under way (Baccarat and Pai Gow).
IN_ROUND = (
    "deal",
    "reveal",
    "settle_pairs",
    "discard",
    "read_out",
    *ROLLING,
    "offer_bank",
    "deliver",
    "collect_and_cover",
    "set_hands",
)


@dataclasses.dataclass
class KillLoopReport:
    """What :func:`kill_loop` did.

    :param kills: ``(aim, moment)`` per SIGKILL: what the harness aimed at (``startup``,
        ``play``, ``card_entry``, ``cover_card``, ``burn``) and where, by the journal, the table stood
        (:data:`MOMENTS`).
    :param starts: processes started (kills + the run that finished).
    :param seconds: wall time of the whole loop.
    """

    kills: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    starts: int = 0
    seconds: float = 0.0

    def moments(self) -> Counter[str]:
        """Kills by where they landed."""
        return Counter(moment for _, moment in self.kills)


def kill_loop(run: Run, kills: int, seed: int) -> KillLoopReport:
    """Start ``run``, SIGKILL it ``kills`` times at seeded moments, then let it finish.

    The kills are spread over the first :data:`KILLS_SPAN` of the run: each has a seeded
    point of play (a round and a number of records into it). A process is killed at its
    point, or at a seeded time during its start (1 in :data:`STARTUP_ODDS`), or at the
    first card waiting to be keyed in before its point (1 in :data:`STARTUP_ODDS`); the
    harness also aims at the first shoe's burn, at the cover card as a shoe nears its end,
    and then at the next shoe's burn.

    :raises Stalled: a process wrote nothing for :data:`STALL_SECONDS`.
    :raises AssertionError: a process exited with a status other than 0.
    """
    rng = random.Random(f"kill-loop-{seed}")
    shoe_cards = load_table(run.profile).decks * 52
    points = sorted((rng.uniform(0, KILLS_SPAN * run.rounds) for _ in range(kills)), reverse=True)
    report, tracker, started = KillLoopReport(), Tracker(run), time.monotonic()
    aim, cover_aimed_in_shoe, start_seconds = "", -1, STARTUP_SECONDS
    while True:
        tracker.first_write, forked = None, time.monotonic()
        proc = run.fork()
        report.starts += 1
        tracker.poll()
        since = tracker.seq
        if points:
            shoe_ends_soon = tracker.draws_in_shoe >= shoe_cards - COVER_SOON_DRAWS
            if (tracker.seq == 0 and tracker.game == "baccarat") or aim == "cover_card":
                aim = "burn"  # the first shoe's, or the next shoe's after the cover card
            elif shoe_ends_soon and not tracker.cover_out and cover_aimed_in_shoe != tracker.shoes:
                aim, cover_aimed_in_shoe = "cover_card", tracker.shoes
            else:
                aim = rng.choice(("startup", "card_entry", *("play",) * (STARTUP_ODDS - 2)))
            _kill_at(proc, tracker, aim, points.pop(), rng, start_seconds)
            tracker.settle()
            if tracker.first_write is not None:  # how long this start took, for the next startup aim
                start_seconds = tracker.first_write - forked
            if proc.returncode == -signal.SIGKILL:
                report.kills.append((aim, tracker.moment(since)))
                continue
        else:
            _wait_for_exit(proc, tracker)
        tracker.close()
        if proc.returncode != 0:
            raise AssertionError(f"tablehost run exited {proc.returncode}:\n{run.log_tail()}")
        break
    report.seconds = time.monotonic() - started
    return report


def run_to_end(run: Run, proc: Process | None = None) -> int:
    """Run (or continue) ``run`` to its end without a kill; return the exit status.

    :param proc: its process, already started (None: fork one, :meth:`Run.fork`)."""
    proc, tracker = proc or run.fork(), Tracker(run)
    try:
        tracker.poll()
        _wait_for_exit(proc, tracker)
    finally:
        tracker.close()
    return proc.wait()  # it has ended


@contextlib.contextmanager
def played_alongside(run: Run) -> Iterator[Callable[[], int]]:
    """Play ``run`` to its end (forked: :meth:`Run.fork`) while the ``with`` block runs, which is
    given a function that waits for that end as :func:`run_to_end` does and returns the exit status.
    A run still going when the block is left is killed. For a run of the same seed a killed one is
    compared with: it plays the same rounds whenever it plays them."""
    proc = run.fork()
    try:
        yield lambda: run_to_end(run, proc)
    finally:
        kill(proc)


def _kill_at(proc: Process, tracker: Tracker, aim: str, point: float, rng: random.Random, start_seconds: float) -> None:
    """SIGKILL ``proc`` as ``aim`` says.

    ``play``: at ``point`` (rounds into the run, the fraction a share of a round's records),
    or at its first record if it starts beyond it; ``card_entry``: the same, or sooner when
    a card waits to be keyed in; ``cover_card``, ``burn``: at the first poll that sees one come
    out (it may have passed already), or after :data:`SHOE_MOMENT_ROUNDS` without one;
    ``startup``: at a seeded time within ``start_seconds``, or at its first record.
    """
    seen, covers, burns, give_up = tracker.seq, tracker.covers, tracker.burns, tracker.played() + SHOE_MOMENT_ROUNDS
    reached = lambda: tracker.seq > seen and tracker.played() >= point  # noqa: E731
    late = lambda: tracker.played() >= give_up  # noqa: E731
    if aim == "startup":  # at a seeded time, but before the process has played on
        follow(proc, tracker, rng.uniform(0.0, start_seconds), lambda: tracker.seq > seen)
    elif aim == "play":
        follow(proc, tracker, FOREVER, reached)
    elif aim == "card_entry":
        follow(proc, tracker, FOREVER, lambda: reached() or (tracker.seq > seen and tracker.prompt == "enter_card"))
    elif aim == "cover_card":
        follow(proc, tracker, FOREVER, lambda: tracker.seq > seen and (tracker.covers > covers or late()))
    else:
        follow(proc, tracker, FOREVER, lambda: tracker.seq > seen and (tracker.burns > burns or late()))
    kill(proc)


def kill(proc: Process) -> None:
    """SIGKILL ``proc`` (if it still runs) and reap it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait()


def follow(
    proc: Process, tracker: Tracker, seconds: float, until: Callable[[], bool], every: float = POLL_SECONDS
) -> None:
    """Follow the journal until ``until()`` holds, ``proc`` ends or ``seconds`` pass, reading it
    every ``every`` seconds.

    :raises Stalled: ``proc`` wrote nothing for :data:`STALL_SECONDS` (it is stopped with SIGTERM).
    """
    started = time.monotonic()
    give_up, tracker.last_write = started + seconds, started
    try:
        while proc.poll() is None and time.monotonic() < give_up:
            tracker.poll()
            if until():
                return
            if time.monotonic() - tracker.last_write > STALL_SECONDS:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
                raise Stalled(
                    f"tablehost run wrote nothing for {STALL_SECONDS:.0f} s; last prompt {tracker.prompt!r}, "
                    f"{tracker.rounds} rounds in the journal:\n{tracker.run.log_tail()}"
                )
            time.sleep(every)
    except BaseException:  # a test timeout or an interrupt: leave no service running
        kill(proc)
        raise


def _wait_for_exit(proc: Process, tracker: Tracker) -> None:
    """Wait for ``proc`` to finish (:class:`Stalled` if it stops writing), reading the journal
    every :data:`EXIT_POLL_SECONDS`: no moment is waited for, and a query a millisecond would take
    the CPU the service and the other tests need."""
    follow(proc, tracker, FOREVER, lambda: False, EXIT_POLL_SECONDS)


# --------------------------------------------------------------------------- changes of shoe at a shuffler table


#: The moments of a change of shoe at a shuffler table, in the order they come, as the journal shows them.
SHOE_CHANGE: dict[str, Callable[[Tracker], bool]] = {
    "read_out": lambda t: t.prompt == "read_out",  # the last hand is over: the rest of the shoe is read
    "return_batch": lambda t: t.prompt == "return_batch",  # the batch goes back into the shuffler (§ 541.3(b)(6))
    "batch_loaded": lambda t: t.last_input == "BatchLoaded",
    "shuffling": lambda t: t.last_input in ("ShuffleStarted", "ShuffleProgress"),
    "released": lambda t: t.last_input == "BatchReleased",  # the other batch is out for the next shoe
    "load_shoe": lambda t: t.prompt == "load_shoe",
}


def kill_at_shoe_changes(run: Run, changes: int) -> list[tuple[str, str]]:
    """SIGKILL ``run`` at the moments of :data:`SHOE_CHANGE` in turn over the next ``changes``
    changes of shoe, each change starting further on in the list; ``(aim, the journal's last
    input)`` per kill. A restarted table hurries through the rest of a change (the batch is
    shuffled at once, the other one released), so a moment it went past is not waited for
    beyond the next shoe."""
    landed: list[tuple[str, str]] = []
    tracker = Tracker(run)
    try:
        moments = list(SHOE_CHANGE)
        for change in range(changes):
            tracker.poll()
            next_shoe = tracker.shoes + 1
            first = change * len(moments) // changes  # a restart hurries through the change: start further on
            for aim in moments[first:] + moments[:first]:
                if tracker.shoes >= next_shoe:
                    break
                proc = run.fork()
                tracker.poll()
                since = tracker.seq
                reached = SHOE_CHANGE[aim]
                follow(
                    proc,
                    tracker,
                    FOREVER,
                    lambda: tracker.seq > since and (reached(tracker) or tracker.shoes >= next_shoe),
                )
                kill(proc)
                tracker.settle()
                assert proc.returncode != 0, f"the run ended before the kill aimed at {aim}"
                landed.append((aim, tracker.last_input or ""))
    finally:
        tracker.close()
    return landed
