"""The table service's main loop: one thread owns the controller.

Drivers, GPIO buttons, the dealer console and simulated dealers put events on one queue
(:meth:`Service.emit`, safe from any thread). The loop takes each event, stamps it with the
time it was received on two clocks (the wall clock as read, never clamped, and the monotonic
clock that counts through suspend, :mod:`~firmware_host.host.clock`), lets the controller decide, journals the event and its decisions in
one durable transaction, and only then hands the decisions to the outputs (dealer view,
tower lamp, simulated dealer, event feed). When no event arrives for ``tick_seconds`` it
feeds the controller a :class:`~firmware_host.tables.events.ClockTick`, so the compliance clocks
advance without busy polling. A tick is journaled only when it leads to a decision: by the
controller contract a tick that decides nothing changes nothing but the time, which the
next journaled event carries anyway, so an idle table does not grow its journal.

On start, :meth:`Service.recover` loads the journal's last checkpoint (the table's whole
state, :mod:`~firmware_host.host.checkpoint`) and replays the steps after it through the
controller, checking that every decision comes out the same, which rebuilds the whole table
state after a crash. At quiet moments the service writes checkpoints and rotates the
journal into a new segment as its :class:`~firmware_host.host.checkpoint.CheckpointPolicy` says.
Steps an earlier version of tablehost decided (an upgrade mid-shift) must come out the same
in everything that binds the table: results, settlements, announcements, alerts, device
health and commands; only what is shown to people may differ (prompts, the lamp, texts).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from drivers.events import DeviceEvent
from firmware_host.errors import ControllerError, JournalEncodingError, JournalError
from firmware_host.host import checkpoint, segments
from firmware_host.host.clock import Clocks
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import Record, encode_event, steps_of
from firmware_host.host.upgrades import as_written_by
from firmware_host.host.upkeep import Upkeep
from firmware_host.tables import state_tree
from firmware_host.tables.decisions import HALTED, Decision
from firmware_host.tables.events import ClockStatus, ClockTick, SoftwareStarted
from firmware_host.text import escaped, json_ready

__all__ = [
    "REPLAY_PROGRESS_EVERY",
    "PRESENTATION",
    "Controller",
    "Output",
    "StepObserver",
    "Service",
    "DevicePoints",
    "Step",
    "binding",
    "HALTED_META",
    "halted",
    "journal_ready",
]

log = logging.getLogger("tablehost.service")

#: Steps between two progress calls of :meth:`Service.recover`: steps, not seconds, so a replay
#: reports the same way on every machine (1,000 steps are 0.04 s here, well under a second on a Pi).
REPLAY_PROGRESS_EVERY = 1000
#: The journal's meta record of why the service stopped on a journal it could not write.
HALTED_META = "halted"
#: Longest reason written in it and shown (an error's text is short; a bound all the same).
HALT_REASON_CHARS = 500
#: Decision types that only show people what to do next: a new version may word or order
#: them differently without changing anything the table decided.
PRESENTATION = frozenset({"prompt", "lamp"})
#: The key of a decision's words for people (an alert's, an announcement's).
TEXT = "text"
#: The ``meta`` record of an input refused before the controller saw it, because it cannot be
#: journaled as it is (issue 29 item 2); its ``code`` is :data:`UNJOURNALABLE`.
REFUSED = "refused"
UNJOURNALABLE = "unjournalable"
#: Longest device or command name, and reason, such a record quotes (escaped).
DESCRIBED = 64
REASON_LONGEST = 300

#: One journaled step: receive time (a :class:`~firmware_host.host.journal_codec.Stamp` when read
#: from the journal: the wall time, with the monotonic stamp), input event, decisions.
Step = tuple[float, DeviceEvent, list[Decision]]
#: The simulated devices' resume points after ``steps``, from those of the checkpoint before
#: them (None: from the journal's start); JSON-ready, by device kind (the wiring provides it).
DevicePoints = Callable[[dict[str, Any] | None, Iterable[Step]], dict[str, Any]]


class Controller(Protocol):
    """What the service needs of a table controller (see :mod:`firmware_host.tables.base`)."""

    def handle(self, event: DeviceEvent, at: float, mono_ns: int | None = None) -> list[Decision]:
        """Apply one event received at ``at`` (wall, as read) and ``mono_ns`` (monotonic; None: not
        stamped); return the decisions made."""
        ...


class Output(Protocol):
    """Something that acts on decisions once they are journaled."""

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Act on the decisions of one step (called from the service thread; must not block)."""
        ...


#: ``(event, decisions, seconds)`` of each durable step (see :class:`Service`'s ``observer``).
StepObserver = Callable[[DeviceEvent, Sequence[Decision], float], None]

_STOP = object()


class Service:
    """The event loop.

    :param controller: the table controller (its state is owned by the loop's thread).
    :param journal: the open journal (None: a service that only replays, ``journal verify --deep``).
    :param outputs: acted on in order after each durable step.
    :param tick_seconds: longest wait for an event before a clock tick is fed.
    :param stop_after_rounds: stop once the journal holds this many finished rounds.
    :param clock: wall-clock time source (seconds), read as it is (never clamped); the controller
        never reads it.
    :param clocks: the monotonic clock, the boot and the synchronisation
        (:class:`~firmware_host.host.clock.SystemClock`; None: steps carry no monotonic stamp,
        and the compliance limits measure on the wall stamps, as before the two clocks).
    :param heartbeat: called on every turn of the loop (the systemd watchdog ping), so a
        stuck loop stops pinging.
    :param version: the running tablehost version (see :meth:`recover`).
    :param policy: when to checkpoint and rotate (default: never).
    :param device_points: the simulated devices' resume points for checkpoints (None: no sims).
    :param table_meta: the journal's ``table`` meta, carried by every checkpoint.
    :param observer: called after each durable step with its event, its decisions and the
        seconds it took (decision, journal and outputs): the metrics, when configured.
    """

    def __init__(
        self,
        controller: Controller,
        journal: Journal | None,
        outputs: Iterable[Output] = (),
        *,
        tick_seconds: float = 1.0,
        stop_after_rounds: int | None = None,
        clock: Callable[[], float] = time.time,
        clocks: Clocks | None = None,
        heartbeat: Callable[[], None] | None = None,
        version: str | None = None,
        policy: checkpoint.CheckpointPolicy = checkpoint.CheckpointPolicy(),
        device_points: DevicePoints | None = None,
        table_meta: dict[str, Any] | None = None,
        observer: StepObserver | None = None,
    ) -> None:
        self.controller = controller
        self.journal = journal
        self.outputs = list(outputs)
        self.tick_seconds = tick_seconds
        self.stop_after_rounds = stop_after_rounds
        self.clock = clock
        self.clocks = clocks
        self.heartbeat = heartbeat
        self.version = version
        #: The version whose decisions the journal's last steps are (set by :meth:`recover`).
        self.journal_version: str | None = version
        #: Replayed steps an earlier version decided with other prompts, lamps or texts.
        self.reworded_steps = 0
        self.rounds_finished = 0
        self.steps = 0
        #: Inputs refused because they could not be journaled as they were (see :data:`REFUSED`).
        self.refused_inputs = 0
        #: The journal seq of the last step's input record; its decisions follow it, one record
        #: each, so an output can name the record each decision came from (the display's SSE ids).
        self.step_seq = journal.last_seq if journal is not None else 0
        #: The wall-clock receive time of the latest step, journaled or not, as read.
        self.latest_at = float("-inf")
        #: Checkpoints and rotations of the journal (:mod:`~firmware_host.host.upkeep`).
        self.upkeep = Upkeep(self, lambda: self._journal, policy, device_points, table_meta)
        self.observer = observer
        #: The checkpoint :meth:`recover` started from (None: it replayed from the first record).
        self.recovered_from: Record | None = None
        #: Steps :meth:`recover` replayed (after the checkpoint, if any).
        self.replayed_steps = 0
        #: Why the service stopped on a journal it could not write (:meth:`halt`); None while it has not.
        self.halted: str | None = None
        self._events: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._stopping = threading.Event()
        self.done = threading.Event()

    @property
    def _journal(self) -> Journal:
        """The journal a running service appends to (one built only to replay has none)."""
        if self.journal is None:
            raise JournalError("this service only replays: it has no journal to write or read")
        return self.journal

    def emit(self, event: DeviceEvent) -> None:
        """Queue an input event (thread-safe; never blocks)."""
        self._events.put(event)

    def stop(self) -> None:
        """Ask the loop to stop after the step it is writing (thread- and signal-safe)."""
        self._stopping.set()
        self._events.put(_STOP)

    def recover(self, progress: Callable[[int], None] | None = None, *, started_by: str | None = None) -> int:
        """Rebuild the table from the journal; return the number of steps it holds.

        The last checkpoint of the journal's file is loaded and the steps after it are
        replayed. A checkpoint this version cannot load (an earlier version's, with other
        state) is logged and the journal is replayed from its first record instead, across
        its segments (a segment missing then is a :class:`JournalError`).

        Steps decided by this :attr:`version` must come out identical. Steps an earlier
        version decided — from ``started_by`` (the version that began the journal) or from a
        journaled :class:`~firmware_host.tables.events.SoftwareStarted` on — must come out identical
        in their :func:`binding` part; the others are counted in :attr:`reworded_steps`. Either
        is compared as its version wrote it: without what later versions added
        (:func:`~firmware_host.host.upgrades.as_written_by`).

        :param progress: called with the steps replayed so far after every
            :data:`REPLAY_PROGRESS_EVERY` steps (a long replay tells systemd it is alive).
        :param started_by: the version that began the journal (``None``: this one).
        :raises JournalError: when a replayed decision differs from the journaled one, which
            means the controller code changed its behaviour or the journal is not ours.
        """
        self.journal_version = started_by or self.version
        self.replayed_steps = self.upkeep.since_checkpoint = self.replay(self._steps_to_replay(), progress)
        return self.steps

    def replay(self, steps: Iterable[Step], progress: Callable[[int], None] | None = None) -> int:
        """Feed journaled steps to the controller, each decision checked (see :meth:`recover`);
        return how many. The counters (:attr:`steps`, :attr:`rounds_finished`) follow each step."""
        replayed = 0
        for at, event, journaled in steps:
            if isinstance(event, SoftwareStarted):
                self.journal_version = event.version
            self.latest_at = at
            decided = self._decide(event, at, getattr(at, "mono_ns", None))
            if decided != journaled:
                decided = journal_ready(decided)  # as the live step journaled a controller's unencodable text
            if decided != journaled:
                self._check_reworded(self.steps + 1, event, journaled, decided)
            self._count_rounds(decided)
            replayed += 1
            self.steps += 1
            if progress is not None and replayed % REPLAY_PROGRESS_EVERY == 0:
                progress(replayed)
        return replayed

    def _steps_to_replay(self) -> Iterator[Step]:
        """The steps after the last loadable checkpoint (restored into the controller), or all of them."""
        found = self._journal.last_checkpoint()
        if found is not None:
            pristine = state_tree.capture(self.controller, "controller")
            try:
                checkpoint.load(self, found.data, found.seq)
            except checkpoint.CheckpointError as exc:
                state_tree.restore_into(self.controller, pristine, "controller")
                self.steps, self.rounds_finished, self.latest_at = 0, 0, float("-inf")
                log.warning("%s; replaying journal %s from its first record", exc, self._journal.path)
            else:
                self.recovered_from = found
                return self._journal.steps(after_seq=found.seq)
        if self._journal.first_record.seq == 1:
            return self._journal.steps()
        return steps_of(segments.records(self._journal.path))

    def checkpoint(self) -> int:
        """Journal a checkpoint of the table now; return its seq (:meth:`.upkeep.Upkeep.checkpoint`)."""
        return self.upkeep.checkpoint()

    def rotate(self) -> None:
        """Close the journal's segment and continue in a new one opened by a checkpoint."""
        self.upkeep.rotate()

    def corrected_at(self) -> float:
        """The latest step's time as rounds are dated: corrected by the boot's latest synchronised
        offset (:meth:`~firmware_host.tables.clock.TableClock.corrected`; the wall clock as read
        for a controller without the two clocks)."""
        table_clock = getattr(self.controller, "clock", None)
        return self.latest_at if table_clock is None else float(table_clock.corrected())

    def run(self) -> None:
        """Run until :meth:`stop` or until ``stop_after_rounds`` rounds are in the journal."""
        try:
            while not self._stopping.is_set() and not self._enough_rounds():
                if self.heartbeat is not None:
                    self.heartbeat()
                try:
                    item = self._events.get(timeout=self.tick_seconds)
                except queue.Empty:
                    item = ClockTick(device="clock")
                if item is _STOP:
                    break
                assert isinstance(item, DeviceEvent)
                try:
                    self.step(item)
                except JournalError as exc:
                    self.halt(str(exc))
                    raise
        finally:
            self.done.set()

    def halt(self, reason: str) -> None:
        """Say that the table stops because its journal cannot be written, before the caller exits:
        the reason goes into the journal while it can still take it (else into the log), then
        every output is given a :data:`~firmware_host.tables.decisions.HALTED` decision, which
        is never journaled: the red lamp and the buzzer, the display's banner, the dealer view.
        Nothing here raises; the step that failed was not journaled, so no output acted on it."""
        reason = self.halted = reason[:HALT_REASON_CHARS]
        log.critical("the table stops: %s", reason)
        try:
            self._journal.append_meta(HALTED_META, {"reason": reason})
        except JournalError as again:
            log.critical("the journal cannot take why the table stops either: %s", again)
        self.step_seq = self._journal.last_seq  # the outputs' seq: after every record written
        self._tell_outputs([halted(reason)])

    def step(self, event: DeviceEvent) -> list[Decision]:
        """Decide on one event, journal it durably, then hand the decisions to the outputs."""
        if not isinstance(event, ClockStatus):
            self._clock_status()
        # Both clocks as read, both journaled: a replay sees exactly the times the live run saw.
        at = self.latest_at = self.clock()
        mono_ns = None if self.clocks is None else self.clocks.monotonic_ns()
        started = time.perf_counter()
        try:
            encoded = encode_event(event, mono_ns)  # before the controller sees it: a refused event changes nothing
        except JournalEncodingError as exc:
            self._refuse_unjournalable(event, at, exc)
            return []
        decisions = self._decide(event, at, mono_ns)
        if not decisions and isinstance(event, ClockTick):
            return decisions  # a tick that decides nothing changes nothing: not journaled
        try:
            self.step_seq = self._journal.append_step(at, event, decisions, encoded)
        except JournalEncodingError as exc:  # a defect of a controller: its step kept, made JSON-ready
            log.error("step %s: %s; its decisions journaled JSON-ready", type(event).__name__, escaped(str(exc)))
            decisions = journal_ready(decisions)
            self.step_seq = self._journal.append_step(at, event, decisions, encoded)
        self.steps += 1
        self._count_rounds(decisions)
        self._tell_outputs(decisions)
        if self.observer is not None:
            try:
                self.observer(event, decisions, time.perf_counter() - started)
            except Exception:  # counting must never take the table down either
                log.exception("step observer failed")
        self.upkeep.after_step(getattr(self.controller, "quiet", False))
        return decisions

    def _tell_outputs(self, decisions: list[Decision]) -> None:
        """Hand ``decisions`` to every output in order; one that fails is logged, never fatal."""
        for output in self.outputs:
            try:
                output.on_decisions(decisions)
            except Exception:  # an output must never take the table down; the step is already durable
                log.exception("output %s failed", type(output).__name__)

    def _refuse_unjournalable(self, event: DeviceEvent, at: float, exc: JournalEncodingError) -> None:
        """Refuse an input that cannot be journaled as it is (a lone surrogate in a dealer's text):
        the controller never sees it, and a ``refused`` meta record says what came and why
        (:func:`unjournalable`). An I/O error writing that record is the journal's, and stops the table."""
        self._journal.append_meta(REFUSED, unjournalable(event, exc), at=at)
        self.refused_inputs += 1
        log.warning("refused %s: %s", type(event).__name__, escaped(str(exc))[:REASON_LONGEST])

    def _clock_status(self) -> None:
        """Journal a :class:`ClockStatus` first (as a step of its own) when the boot or the wall
        clock's synchronisation differs from what the controller last took in."""
        table_clock = getattr(self.controller, "clock", None)
        if self.clocks is None or table_clock is None:
            return
        boot, synced = self.clocks.boot, self.clocks.synchronised()
        if (table_clock.boot, table_clock.synced) != (boot, synced):
            self.step(ClockStatus(device="clock", boot=boot, synced=synced))

    def _decide(self, event: DeviceEvent, at: float, mono_ns: int | None) -> list[Decision]:
        """The controller's decisions; an input it refuses becomes a journaled warning."""
        try:
            return self.controller.handle(event, at, mono_ns)
        except ControllerError as exc:
            return [Decision("alert", {"code": "refused-input", "text": str(exc), "severity": "warning"})]

    def _check_reworded(
        self, step: int, event: DeviceEvent, journaled: list[Decision], decided: list[Decision]
    ) -> None:
        """Accept a step that differs only by what later versions added, or by its words
        (:func:`check_replayed`); else raise."""
        check_replayed(step, event, journaled, decided, written_by=self.journal_version, version=self.version)
        self.reworded_steps += 1

    def _count_rounds(self, decisions: Sequence[Decision]) -> None:
        self.rounds_finished += sum(1 for d in decisions if d.type == "round_result")

    def _enough_rounds(self) -> bool:
        return self.stop_after_rounds is not None and self.rounds_finished >= self.stop_after_rounds


def check_replayed(
    step: int,
    event: DeviceEvent,
    journaled: list[Decision],
    decided: list[Decision],
    *,
    written_by: str | None,
    version: str | None,
) -> None:
    """Return when a replayed step's decisions differ from the journaled ones only by what the
    versions after ``written_by`` added (:data:`~firmware_host.host.upgrades.ADDED`), and, when an
    earlier version decided it, by their words (:func:`binding`).

    :raises JournalError: the replay diverged, naming the step and both sides.
    """
    journaled, decided = as_written_by(written_by, journaled), as_written_by(written_by, decided)
    earlier = written_by not in (None, version)
    if journaled == decided or (earlier and binding(journaled) == binding(decided)):
        return
    why = (
        (
            f"; it was decided by tablehost {written_by} and this is {version}, which decides it "
            "differently: continue the journal with that version, or start a new journal (docs/recovery.md, "
            "Upgrades)"
        )
        if earlier
        else ""
    )
    raise JournalError(
        f"replay diverged at step {step} ({type(event).__name__}): journal has {_types(journaled)}, "
        f"controller now decides {_types(decided)}{why}"
    )


def halted(reason: str, *, cannot: str = "be written") -> Decision:
    """The :data:`~firmware_host.tables.decisions.HALTED` decision every output is given when the
    table stops on its journal (never journaled): the red lamp, the buzzer held on, the words.

    :param reason: why, as the error said it (bounded here).
    :param cannot: what the journal cannot do: ``"be written"`` (mid-run, :meth:`Service.halt`) or
        ``"be opened"`` (at start, :mod:`firmware_host.wiring.start_alarm`).
    """
    reason = reason[:HALT_REASON_CHARS]
    text = f"TABLE STOPPED: the journal cannot {cannot}; call a supervisor ({reason})"
    return Decision(HALTED, {"reason": reason, "text": text})


def unjournalable(event: DeviceEvent, exc: JournalEncodingError) -> dict[str, Any]:
    """The ``refused`` meta record's data of an input that cannot be journaled: what came and why, escaped and bounded."""
    command = getattr(event, "command", None)
    return {
        "input": type(event).__name__,
        "device": escaped(str(getattr(event, "device", "")))[:DESCRIBED],
        "command": escaped(command)[:DESCRIBED] if isinstance(command, str) else None,
        "code": UNJOURNALABLE,
        "reason": escaped(str(exc))[:REASON_LONGEST],
    }


def binding(decisions: Sequence[Decision]) -> list[Decision]:
    """What in a step's decisions binds the table: everything but :data:`PRESENTATION`
    decisions and the words (``text``) of the others."""
    return [
        Decision(d.type, {k: v for k, v in d.data.items() if k != TEXT}, d.round)
        for d in decisions
        if d.type not in PRESENTATION
    ]


def journal_ready(decisions: Sequence[Decision]) -> list[Decision]:
    """``decisions`` with their data made JSON-ready (:func:`~firmware_host.text.json_ready`): what
    a step whose decisions could not be encoded journals, and what its replay compares."""
    return [Decision(d.type, json_ready(d.data), d.round) for d in decisions]


def _types(decisions: Sequence[Decision]) -> str:
    return "[" + ", ".join(d.type for d in decisions) + "]"
