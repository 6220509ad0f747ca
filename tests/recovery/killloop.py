"""Kill-and-restart harness for ``tablehost run`` (issue 6, item 1).

:func:`kill_loop` starts the real service process (``python -m firmware_host run``) on a
simulated table with a journal, SIGKILLs it at seeded points of play spread over the run
— and during its start, during the burn, after the cover card, when a card waits to be
keyed in — and restarts it with the same arguments until the journal holds the rounds
asked for. :class:`Tracker` reads the journal while the process writes it (read-only, as
an auditor would) to see those moments coming, and says afterwards where each kill landed
(:data:`MOMENTS`). A kill lands within a millisecond or so of the record that triggered
it, so some land while the next step is being committed.

:func:`audit` then checks the journal the way a compliance officer would, and
:func:`compare_runs` compares its rounds with an uninterrupted run of the same seed. The
tests in this folder and ``bench/bench_recovery.py --kills N`` (the soak) share them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable

from drivers.events import to_record
from firmware_host.rules.baccarat.cards import parse_card, shoe_composition
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.errors import JournalError
from firmware_host.host.journal import Journal, export_rounds, export_shoes, load_key, verify
from firmware_host.config.profiles import TableProfile, load_table
from firmware_host.wiring.journal_tools import verify_deep
from sim.devices.shoe import SimShoe
from tests.integration.test_baccarat_run import make_profile
from tests.integration.test_paigow_run import check_money, check_rolls, check_tiles
from tests.recovery.shuffler_audit import batch_shoes
from tests.support.paths import REPO

__all__ = [
    "DECKS", "MOMENTS", "SHOE_CHANGE", "Run", "Tracker", "KillLoopReport", "Stalled", "write_profile", "paigow_profile",
    "shuffler_profile", "kill_loop", "kill_at_shoe_changes", "run_to_end", "follow", "kill", "audit", "compare_runs",
    "shoes_played", "replay",
]


#: The device model of the simulated shoe in :func:`write_profile`'s table.
SHOE_MODEL = "tablehost-ts8-2026"
#: § 541.3(a)'s fewest decks: a run reaches the cover card and the next shoe soonest.
DECKS = 6
#: Seconds between journal polls while waiting for a moment to kill at.
POLL_SECONDS = 0.001
#: No time limit (:func:`follow` still stops a process that writes nothing for :data:`STALL_SECONDS`).
FOREVER = float("inf")
#: A run that writes nothing for this long is stuck (a sim reconnect takes well under it).
STALL_SECONDS = 8.0
#: One process in this many is killed during its start, within :data:`STARTUP_SECONDS`
#: (imports, replay, handshake), and one at the first card waiting to be keyed in.
STARTUP_ODDS = 5
STARTUP_SECONDS = 0.6
#: Records a round writes, about (cards, wagers, prompts, announcements, the result).
RECORDS_PER_ROUND = 27
#: The kills' points of play are spread over this share of the run's rounds.
KILLS_SPAN = 0.9
#: How long the harness waits for the cover card or the burn before it kills anyway.
SHOE_MOMENT_SECONDS = 8.0
#: Draws before the end of a shoe at which the harness starts waiting for the cover card
#: (the sim puts it 14 to 20 cards above the bottom, § 541.5(e)).
COVER_SOON_DRAWS = 60
#: Input records that are one draw from the shoe (``sim.devices.resume.DRAW_EVENTS``).
DRAWS = ("CardRead", "CutCard", "CardUnreadable", "CardFaceUp")
#: The shuffler's faults per shuffle, lower than the shipped profile's (0.2): some shuffles go through.
SHUFFLER_FAULTS = "jam = 0.1, door_open = 0.1, missing_card = 0.1, extra_card = 0.1, unplug = 0.1, same_order = 0.1"
#: A shuffle takes this long (the shipped profile: no time), so kills land while one runs.
SHUFFLE_SECONDS = 0.2


# --------------------------------------------------------------------------- profiles

#: The kill loop's tables checkpoint every few rounds, so that kills land in checkpoint writes
#: and restarts start from checkpoints (issue 15).
CHECKPOINTS = "checkpoint_every_steps = 20"



def write_profile(directory: Path, *, faults: str = "", dealer: str = "", approved: str | None = None,
                  shoe_sim: str = "", key_file: Path | None = None, decks: int = DECKS,
                  journal: str = CHECKPOINTS) -> Path:
    """The integration tests' simulated Baccarat table in ``directory``, with ``decks`` decks.

    :param faults: the shoe sim's faults, TOML inline-table body (``"drop_frame = 0.01"``).
    :param dealer: the ``[sim.dealer]`` body (dealer errors).
    :param approved: replaces the shoe model's ``[approved]`` body (the firmware allow-list).
    :param shoe_sim: more lines for ``[devices.shoe.sim]``: the ``serial`` and ``firmware`` the sim
        reports, its ``endpoint``.
    :param key_file: the journal's HMAC key file (a keyed journal).
    :param journal: more lines for ``[journal]`` (default :data:`CHECKPOINTS`: kills land in checkpoint writes).
    """
    path = make_profile(directory, faults=faults, dealer=dealer)
    text = path.read_text().replace("decks = 8", f"decks = {decks}")
    text = text.replace("[devices.shoe.sim]\n", f"[devices.shoe.sim]\n{shoe_sim}\n")
    keyed = f'hmac_key_file = "{key_file}"\n' if key_file else ""
    path.write_text(text.replace("[journal]\n", f"[journal]\n{keyed}{journal}\n"))
    if approved is not None:
        set_approved(directory / "devices" / f"{SHOE_MODEL}.toml", approved)
    return path


def paigow_profile(directory: Path, name: str = "sim-paigow.toml") -> Path:
    """``make run-paigow``'s simulated Pai Gow table (faults included) in ``directory``, or
    another of ``hardware-profiles/tables`` by ``name`` (``sim-paigow-gpio-lid.toml``)."""
    shutil.copytree(REPO / "hardware-profiles" / "devices", directory / "devices")
    (directory / "tables").mkdir()
    path = directory / "tables" / name
    text = (REPO / "hardware-profiles" / "tables" / name).read_text()
    assert "[journal]\n" in text, f"the shipped profile {name} no longer has a [journal] table"
    path.write_text(text.replace("[journal]\n", f"[journal]\n{CHECKPOINTS}\n"))
    return path


def shuffler_profile(directory: Path, key_file: Path, *, dealer_errors: bool = True) -> Path:
    """The shipped simulated shuffler table in ``directory``: 6-deck batches (§ 541.3(b): 12 to
    16 decks in two batches of 6 to 8), :data:`SHUFFLER_FAULTS`, shuffles of
    :data:`SHUFFLE_SECONDS`, a keyed journal.

    :param dealer_errors: keep the shipped dealer's errors (``False``: a dealer who never errs,
        for runs compared with an uninterrupted one; see ``docs/recovery.md``).
    """
    path = paigow_profile(directory, "sim-baccarat-shuffler.toml")
    text, _, _ = path.read_text().partition("[journal]")  # --journal names the journal
    honest_dealer = () if dealer_errors else (("card_drawn_in_error = 0.003", "card_drawn_in_error = 0"),
                                              ("card_disclosed = 0.002", "card_disclosed = 0"))
    for old, new in (("decks = 8 ", "decks = 6 "), ("decks_per_batch = 8", "decks_per_batch = 6"),
                     ("jam = 0.2, door_open = 0.2, missing_card = 0.2, extra_card = 0.2, unplug = 0.2, "
                      "same_order = 0.2", SHUFFLER_FAULTS),
                     ("[devices.shuffler.sim]\n", f"[devices.shuffler.sim]\nshuffle_seconds = {SHUFFLE_SECONDS}\n"),
                     *honest_dealer):  # fmt: skip
        assert old in text, f"the shipped profile no longer has {old!r}"
        text = text.replace(old, new)
    path.write_text(f'{text}[journal]\nhmac_key_file = "{key_file}"\n{CHECKPOINTS}\n')
    return path


def set_approved(model_file: Path, body: str) -> None:
    """Replace the ``[approved]`` section (the last one) of a device model file."""
    text = model_file.read_text()
    head, found, _ = text.partition("[approved]")
    assert found, f"{model_file} has no [approved] section"
    model_file.write_text(f"{head}[approved]\n{body}\n")


# --------------------------------------------------------------------------- the process


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
        return [sys.executable, "-m", "firmware_host", "run", "--profile", str(self.profile),
                "--rounds", str(self.rounds), "--seed", str(self.seed), "--journal", str(self.journal), "--quiet"]

    def start(self) -> subprocess.Popen[bytes]:
        """Start the service process (the checkout's code, whatever is installed)."""
        env = dict(os.environ, PYTHONPATH=str(REPO))
        with self.log.open("ab") as log:
            return subprocess.Popen(self.command(), cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)

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
        #: Why the latest ``device`` decision refuses its device (None: it does not).
        self.refusal: str | None = None
        self.last_write = time.monotonic()
        self._conn: sqlite3.Connection | None = None

    def poll(self) -> int:
        """Read the records written since the last poll; return how many there were."""
        rows = self._new_rows()
        for seq, kind, type_, data in rows:
            self.seq = seq
            self._apply(kind, type_, json.loads(data))
        if rows:
            self.last_write = time.monotonic()
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
            return self._conn.execute("SELECT seq, kind, type, data FROM records WHERE seq > ? ORDER BY seq",
                                      (self.seq,)).fetchall()
        except sqlite3.Error:  # not created yet, or mid-recovery: try again on the next poll
            return []
        finally:  # a connection held open would keep the service from rotating its journal
            self.close()

    def _apply(self, kind: str, type_: str, data: dict[str, Any]) -> None:
        if kind == "input":
            self.last_input = type_
            if type_ in DRAWS:
                self.draws_in_shoe += 1
        elif kind == "decision" and type_ == "prompt":
            self.prompt = data["action"]
        elif kind == "decision" and type_ == "round_result":
            self.rounds += 1
            self.round_seq = self.seq
        elif kind == "decision" and type_ == "announce" and data.get("announce") == "cover_card":
            self.cover_out = True
        elif kind == "decision" and type_ == "announce" and data.get("announce") == "shoe":
            self.shoes, self.draws_in_shoe, self.cover_out = self.shoes + 1, 0, False
        elif kind == "decision" and type_ == "device":
            self.refusal = data.get("refusal")

    def moment(self, since: int) -> str:
        """Where the table stood when the process writing since record ``since`` died.

        ``startup`` (it wrote nothing: killed in its imports, replay or handshake),
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
MOMENTS = ("startup", "paused", "burn", "card_entry", "after_cover_card", "betting", "rolling", "mid_round",
           "between_rounds")
#: Pai Gow prompts of the roll (§ 535.8).
ROLLING = ("shake", "reshake", "read_dice", "reveal")
#: Prompts of a round under way (Baccarat and Pai Gow).
IN_ROUND = ("deal", "reveal", "settle_pairs", "discard", "read_out", *ROLLING, "offer_bank", "deliver",
            "collect_and_cover", "set_hands")


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
    aim, cover_aimed_in_shoe = "", -1
    while True:
        proc = run.start()
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
            _kill_at(proc, tracker, aim, points.pop(), rng)
            tracker.settle()
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


def run_to_end(run: Run) -> int:
    """Run (or continue) ``run`` to its end without a kill; return the exit status."""
    proc, tracker = run.start(), Tracker(run)
    try:
        tracker.poll()
        _wait_for_exit(proc, tracker)
    finally:
        tracker.close()
    return proc.returncode


def _kill_at(proc: subprocess.Popen[bytes], tracker: Tracker, aim: str, point: float, rng: random.Random) -> None:
    """SIGKILL ``proc`` as ``aim`` says, or once it gave no sign for a while.

    ``play``: at ``point`` (rounds into the run, the fraction a share of a round's records),
    or at its first record if it starts beyond it; ``card_entry``: the same, or sooner when
    a card waits to be keyed in.
    """
    seen = tracker.seq
    reached = lambda: tracker.seq > seen and tracker.played() >= point  # noqa: E731
    if aim == "startup":  # at a seeded time, but before the process has played on
        follow(proc, tracker, rng.uniform(0.0, STARTUP_SECONDS), lambda: tracker.seq > seen)
    elif aim == "play":
        follow(proc, tracker, FOREVER, reached)
    elif aim == "card_entry":
        follow(proc, tracker, FOREVER, lambda: reached() or (tracker.seq > seen and tracker.prompt == "enter_card"))
    elif aim == "cover_card":
        follow(proc, tracker, SHOE_MOMENT_SECONDS, lambda: tracker.seq > seen and tracker.cover_out)
    else:
        follow(proc, tracker, SHOE_MOMENT_SECONDS, lambda: tracker.seq > seen and tracker.prompt == "burn")
    kill(proc)


def kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``proc`` (if it still runs) and reap it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait()


def follow(proc: subprocess.Popen[bytes], tracker: Tracker, seconds: float, until: Callable[[], bool]) -> None:
    """Follow the journal until ``until()`` holds, ``proc`` ends or ``seconds`` pass.

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
                raise Stalled(f"tablehost run wrote nothing for {STALL_SECONDS:.0f} s; last prompt {tracker.prompt!r}, "
                              f"{tracker.rounds} rounds in the journal:\n{tracker.run.log_tail()}")
            time.sleep(POLL_SECONDS)
    except BaseException:  # a test timeout or an interrupt: leave no service running
        kill(proc)
        raise


def _wait_for_exit(proc: subprocess.Popen[bytes], tracker: Tracker) -> None:
    """Wait for ``proc`` to finish (:class:`Stalled` if it stops writing)."""
    follow(proc, tracker, FOREVER, lambda: False)


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
                proc = run.start()
                tracker.poll()
                since = tracker.seq
                reached = SHOE_CHANGE[aim]
                follow(proc, tracker, FOREVER,
                       lambda: tracker.seq > since and (reached(tracker) or tracker.shoes >= next_shoe))
                kill(proc)
                tracker.settle()
                assert proc.returncode != 0, f"the run ended before the kill aimed at {aim}"
                landed.append((aim, tracker.last_input or ""))
    finally:
        tracker.close()
    return landed


# --------------------------------------------------------------------------- the audit


@dataclasses.dataclass
class Audit:
    """What :func:`audit` found: ``problems`` is empty for a journal that lost and duplicated nothing."""

    problems: list[str] = dataclasses.field(default_factory=list)
    rounds: int = 0
    shoes: int = 0
    draws: int = 0
    steps_replayed: int = 0

    def check(self, ok: bool, problem: str) -> None:
        """Note ``problem`` unless ``ok``."""
        if not ok:
            self.problems.append(problem)


def audit(run: Run, key: bytes | None = None) -> Audit:
    """Check the journal of a (killed and restarted) simulated run.

    - the hash chain (and MACs) verify;
    - round numbers 1..N each appear exactly once;
    - no wager was placed twice in a round (the simulated players bet once per seat and
      kind in a round: twice means a restarted dealer bet again);
    - every decision replays identically through a fresh controller (:func:`replay`);
    - Baccarat: every completed round's cards give what ``resolve`` gives (§ 541.9-§ 541.12);
      no card lost or counted twice (each shoe's draws are, in order, the seeded shoe's, and
      a card keyed in is the card the shoe held); each wager settled once, for what was placed;
      with a shuffler, each shoe held the batch the shuffler reported, and a composition alert
      only for a batch whose cards the simulator made wrong;
    - Pai Gow: the integration tests' checks of every round (the rolls and the starting
      position, § 535.8(c), § 535.12; the tiles delivered; money conserved, § 535.10).
    """
    found, profile = Audit(), load_table(run.profile)
    report = verify(run.journal, hmac_key=key)
    found.check(report.ok, f"journal verify: {report.problem} at record {report.broken_seq}: {report.detail}")
    rounds = list(export_rounds(run.journal))
    numbers = [r["round"] for r in rounds]
    found.rounds = len(rounds)
    found.check(numbers == list(range(1, run.rounds + 1)),
                f"round numbers are not 1..{run.rounds} once each: {_duplicates_and_gaps(numbers, run.rounds)}")
    with Journal.open(run.journal, hmac_key=key) as journal:
        placed = _wagers_placed(journal, found)
        if profile.game == "baccarat":
            _audit_baccarat(journal, run, profile, rounds, placed, found)
        else:
            _audit_paigow(rounds, found)
    try:
        found.steps_replayed = replay(run.journal, profile, key)
    except JournalError as exc:
        found.problems.append(f"replay: {exc}")
    return found


def replay(journal_path: Path, profile: TableProfile, key: bytes | None = None) -> int:
    """Replay the journal from its first record through a fresh controller of the profile, every
    decision checked, and compare every checkpoint with the state reached (``journal verify
    --deep``); return the steps. :class:`JournalError` names a checkpoint that is not faithful."""
    deep = verify_deep(journal_path, profile)
    if deep.problems:
        raise JournalError("; ".join(deep.problems))
    return deep.steps


def seeded_shoe(seed: int, decks: int, shoe_number: int, draws: int) -> list[str | None]:
    """The first ``draws`` physical cards of the simulator's shoe ``shoe_number`` (None: the cover card)."""
    shoe = SimShoe(seed=seed, decks=decks, shoe_number=shoe_number, endpoint="socket")
    try:
        return [shoe.draw().card for _ in range(draws)]
    finally:
        shoe.stop()


def _audit_draws(journal: Journal, run: Run, profile: TableProfile, found: Audit) -> None:
    """Each shoe's journaled draws are the seeded shoe's (at a shuffler table: its batch's, as the
    seeded shuffler released it, see :mod:`tests.recovery.shuffler_audit`), in order, once each;
    a card the shoe could not read and the dealer keyed in is the card the shoe held there."""
    shoes: list[list[str | None]] = []
    unread: list[tuple[int, int]] = []  # (shoe, draw index) of cards waiting to be keyed in
    for _, event, decisions in journal.steps():
        name, data = to_record(event)
        if any(d.type == "announce" and d.data.get("announce") == "shoe" for d in decisions):
            shoes.append([])  # a shoe_loaded the table accepted (one refused, while paused say, loads nothing)
            unread.clear()
        elif name == "DealerCommand" and data["command"] == "card_entered" and unread and not _refused(decisions):
            shoe, index = unread.pop(0)
            shoes[shoe][index] = str((data["args"] or {}).get("card"))
        elif name in DRAWS:
            if not shoes:
                shoes.append([])  # cards before the first shoe_loaded come from the sim's first shoe
            rank, suit = data.get("rank"), data.get("suit")
            shoes[-1].append(None if name == "CutCard" else f"{rank}{suit}" if rank and suit else "?")
            if any(d.type == "alert" and d.data.get("code") == "card-unreadable" for d in decisions):
                unread.append((len(shoes) - 1, len(shoes[-1]) - 1))
    found.shoes, found.draws = len(shoes), sum(map(len, shoes))
    composition = shoe_composition(profile.decks)
    batches, problems = batch_shoes(journal, run.seed, profile)  # a shuffler table's shoes hold its batches
    found.problems.extend(problems)
    for number, drawn in enumerate(shoes, start=1):
        if batches is not None:
            expected, composition = batches.held(number, len(drawn)), batches.composition(number)
        else:
            expected = seeded_shoe(run.seed, profile.decks, number, len(drawn))
        for position, (card, physical) in enumerate(zip(drawn, expected), start=1):
            # "?": unread and not keyed in (a burn or discard card, whose identity does not matter).
            found.check(card in ("?", physical), f"shoe {number} draw {position}: journal has {card}, the shoe held {physical}")
        counted = Counter(parse_card(card) for card in drawn if card not in (None, "?"))
        found.check(all(n <= composition[card] for card, n in counted.items()),
                    f"shoe {number}: a card counted more often than the shoe holds it")


def _refused(decisions: list[Any]) -> bool:
    """Whether the controller refused the step's input (a warning alert instead of acting)."""
    return any(d.type == "alert" and d.data.get("code") in ("refused-input", "wrong-state", "wager-refused")
               for d in decisions)


Placed = dict[int, dict[tuple[int, str], list[int]]]


def _wagers_placed(journal: Journal, found: Audit) -> Placed:
    """The wagers each round accepted, by ``(seat, kind)``; none may have been placed twice."""
    placed: Placed = defaultdict(lambda: defaultdict(list))
    finished = 0
    for _, event, decisions in journal.steps():
        if type(event).__name__ == "WagerPlaced" and not _refused(decisions):
            placed[finished + 1][(event.seat, event.kind)].append(event.amount)  # type: ignore[attr-defined]
        finished += sum(1 for d in decisions if d.type == "round_result")
    for number, wagers in placed.items():
        twice = sorted(key for key, amounts in wagers.items() if len(amounts) > 1)
        found.check(not twice, f"round {number}: wagers placed twice at {twice}")
    return placed


def _audit_baccarat(journal: Journal, run: Run, profile: TableProfile, rounds: list[dict[str, Any]], placed: Placed,
                    found: Audit) -> None:
    variant = Variant.parse(profile.rules.data.get("variant", "standard"))
    for record in rounds:
        number = record["round"]
        if record["status"] == "completed":
            expected = resolve([parse_card(c) for c in record["cards"]], variant).to_json_dict()
            actual = {key: record[key] for key in expected}
            found.check(actual == expected, f"round {number}: {actual} is not resolve()'s {expected}")
        lines = Counter((line["seat"], line["kind"]) for line in record["settlement"])
        found.check(all(n == 1 for n in lines.values()), f"round {number}: a wager settled twice: {lines}")
        settled = {(line["seat"], line["kind"]): line["amount"] for line in record["settlement"]}
        wagers = {key: sum(amounts) for key, amounts in placed.get(number, {}).items()}
        found.check(settled == wagers, f"round {number}: settled {settled}, placed {wagers}")
    _audit_draws(journal, run, profile, found)


def _audit_paigow(rounds: list[dict[str, Any]], found: Audit) -> None:
    for record in rounds:
        for check in (check_rolls, check_tiles, check_money):
            try:
                check(record)
            except AssertionError as exc:
                found.problems.append(f"round {record['round']}: {check.__name__}: {exc}")


def _duplicates_and_gaps(numbers: list[int], expected: int) -> str:
    counts = Counter(numbers)
    twice = sorted(n for n, c in counts.items() if c > 1)
    missing = sorted(set(range(1, expected + 1)) - set(counts))
    return f"twice {twice[:10]}, missing {missing[:10]}, {len(numbers)} rounds"


def compare_runs(killed: Path, uninterrupted: Path,
                 shoes: Callable[[Path], Iterable[dict[str, Any]]] = export_shoes) -> list[str]:
    """Where the killed run's rounds and shoes (as ``shoes`` exports them; :func:`shoes_played`
    at a shuffler table) differ from the uninterrupted run's (empty: identical)."""
    differences = []
    for name, export in (("round", export_rounds), ("shoe", shoes)):
        a, b = list(export(killed)), list(export(uninterrupted))
        if len(a) != len(b):
            differences.append(f"{len(a)} {name}s after kills, {len(b)} uninterrupted")
        for x, y in zip(a, b):
            if x != y:
                changed = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
                differences.append(f"{name} {x.get(name, '?')}: {', '.join(changed)} differ")
    return differences


def shoes_played(journal: Path) -> list[dict[str, Any]]:
    """Each finished shoe as ``journal export --shoes`` gives it, but its alerts: a restart adds
    its own (the devices lost and found again, a shuffle abandoned when the host died)."""
    return [{key: value for key, value in shoe.items() if key != "alerts"} for shoe in export_shoes(journal)]


def key_of(profile: Path) -> bytes | None:
    """The profile's journal key, if it names one."""
    key_file = load_table(profile).hmac_key_file
    return load_key(key_file) if key_file else None
