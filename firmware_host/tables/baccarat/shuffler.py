"""The shuffler side of a Baccarat table: two batches (§ 541.3(b)), the device, the read-out.

:class:`ShufflerSide` exists only at a table with an automatic shuffler (``shuffler=`` a
:class:`~firmware_host.rules.shuffler.ShufflerConfig`, the ``[rules.shuffler]`` of the Rules
Submission). It is the table's :class:`~.supply.ShoeSupply`, registers the handlers of the
shuffler's events, and brings its own states and transitions into the machine
(:attr:`ShufflerSide.STATES`, :attr:`ShufflerSide.TRANSITIONS`: a shoe that did not run out
ends in ``reading_out``, ``read_out_done`` once the shoe reports itself empty).

It keeps the two batches with :mod:`firmware_host.rules.shuffler` and decides what the
shuffler is asked to do — ``device_command`` decisions (``{"device", "command":
"start_shuffle" | "release_batch", "batch", "expected_cards"}``) that an output carries out on
the driver once the step is journaled — and what the dealer does between shoes: put the batch
of the shoe just ended back into the shuffler (new decks instead when its composition was
wrong or its decks are due for a change, § 541.3(c)), wait for the next batch, load the shoe
from it (batches alternate, § 541.3(b)(5)). A shoe from a batch ends with the rest of the shoe
read out through the reader, so the composition audit
(:func:`~firmware_host.rules.shoe_audit.audit_composition`) sees every card and names an extra
or a missing one; the shuffle-quality watch (:class:`~firmware_host.rules.shoe_audit.ShuffleWatch`)
journals warnings, never blocking. A batch whose shuffle counted the wrong number of cards or
repeated an order is taken out of the shuffler and replaced by new decks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceLost
from drivers.events.shuffler import (
    BatchLoaded,
    BatchReleased,
    BatchStatus,
    ShuffleCompleted,
    ShuffleProgress,
    ShufflerFault,
    ShufflerFaultCleared,
    ShuffleStarted,
)  # fmt: skip
from firmware_host.errors import RulesError
from firmware_host.rules import shuffler as shuffling
from firmware_host.rules.shoe_audit import ShuffleWatch, audit_composition
from firmware_host.rules.shuffler import BatchRecord, Notice, ShufflerConfig, ShufflerRefusal, ShufflerState
from firmware_host.tables.baccarat.prompts import Action, Prompt
from firmware_host.tables.baccarat.shoe import IN_ROUND, Shoe
from firmware_host.tables.events import ClockTick

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["ShufflerSide"]

#: The shuffler's events that the rules judge (the faults have their own handlers).
_DEVICE_EVENTS = (BatchLoaded, ShuffleStarted, ShuffleProgress, ShuffleCompleted, BatchReleased, BatchStatus)
#: What the next shoe waits for while its batch is at each stage (see _batch_waits_for).
_BATCH_WAITS: dict[str, str] = {
    "absent": "it is not in the shuffler", "loaded": "it is to be shuffled", "shuffling": "it is being shuffled",
    "ready": "it is coming out of the shuffler", "rejected": "it was rejected",
}  # fmt: skip


def _notice_text(notice: Notice) -> str:
    """A shuffler-rules notice as an alert's text, with its section."""
    return f"{notice.text} (§ {notice.section})" if notice.section else notice.text


class ShufflerSide:
    """The table's automatic shuffler: the rules' state of both batches and what was asked of the device.

    :param table: the table it supplies (its handlers are registered there).
    :param config: the ``[rules.shuffler]`` of the Rules Submission.
    :param device: the shuffler's device name in the table profile.
    :raises RulesError: for batches that do not hold the table's decks, or a device not at the table.
    """

    #: The states the shuffler side adds to the table's machine (callbacks named on the table).
    STATES: ClassVar[list[Any]] = [{"name": "reading_out", "on_enter": "_start_read_out"}]
    #: Its transitions, tried before the table's own for the same trigger (conditions named on the table).
    TRANSITIONS: ClassVar[list[dict[str, Any]]] = [
        {
            "trigger": "round_over",
            "source": IN_ROUND,
            "dest": "reading_out",
            "conditions": ["reshuffle_due", "reads_out"],
        },
        {"trigger": "shoe_over", "source": ["burning", *IN_ROUND], "dest": "reading_out", "conditions": "reads_out"},
        {"trigger": "read_out_done", "source": "reading_out", "dest": "awaiting_shoe"},
    ]

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for, its settings.
    NOT_STATE = ("table", "device")

    def __init__(self, table: BaccaratTable, config: ShufflerConfig, device: str) -> None:
        if config.decks_per_batch != table.decks:
            raise RulesError(f"shuffler: batches of {config.decks_per_batch} decks, but shoes of {table.decks} "
                             "(§ 541.3(b)(1): each batch is one shoe)")  # fmt: skip
        if device not in table.devices:
            raise RulesError(f"shuffler device {device!r}: not a device of table {table.table_id}")
        self.table = table
        self.device = device
        self.state: ShufflerState = shuffling.new_state(config)
        self.watch = ShuffleWatch(table.decks)
        #: ``(command, batch)`` decided and not yet seen done (the output sends each once).
        self.pending: set[tuple[str, str]] = set()
        #: Faults that stop the shuffler until it reports them cleared (jam, door open).
        self.latched: set[str] = set()
        #: Batches whose status is awaited after a handshake; nothing is asked before it came.
        self.status_due: set[str] = set()
        #: The device refused a command: nothing more is asked until it reports news.
        self.refused = False
        #: Batches asked out of the shuffler to be replaced by new decks, and why.
        self.replacing: dict[str, str] = {}
        #: Batches retired (§ 541.3(c), a wrong composition or count): why new decks are due in their slot.
        self.new_decks_due: dict[str, str] = {}
        #: Alerts recorded while no shoe is in play; the next shoe's result lists them.
        self.between_shoes: list[dict[str, str]] = []
        self.new_session()
        for kind in _DEVICE_EVENTS:
            table.register(kind, self.on_event)
        table.register(ShufflerFault, self.on_fault)
        table.register(ShufflerFaultCleared, self.on_fault_cleared)
        table.register(ClockTick, self.on_tick)

    def new_session(self) -> None:
        """The device was lost or found: commands in flight are lost, its status is awaited again."""
        self.pending.clear()
        self.latched.clear()
        self.status_due = set(self.state.config.batches)
        self.refused = False

    def colour(self, batch: str) -> str:
        """The back colour of ``batch`` in the Rules Submission (§ 541.3(b)(3))."""
        return self.state.config.back_colours[shuffling.BATCH_NAMES.index(batch)]

    # -- the shoe supply (see ShoeSupply) -------------------------------------------------------
    def on_device(self, event: DeviceEvent) -> None:
        """The shuffler lost or found starts a new session (commands in flight are lost, its
        status and faults are reported again)."""
        if event.device != self.device:
            return
        self.new_session()
        for fault in shuffling.ABANDONING_FAULTS:
            self.table.open_alerts.close(f"{self.device}-{fault}")
        if isinstance(event, DeviceLost):
            self.table.open_alerts.record("device-lost", f"{self.device}: lost ({event.reason}); table paused")

    def load(self, args: Mapping[str, Any]) -> None:
        """``shoe_loaded`` at a shuffler table: the shoe holds ``batch`` (default: the one the
        shuffler released), if the rules allow it (§ 541.3(b)(4)-(6), (c))."""
        table = self.table
        table.require_state("shoe_loaded", "awaiting_shoe")
        decks = args.get("decks", table.decks)
        if decks != table.decks:
            raise RulesError(f"shoe of {decks!r} decks: each batch holds {table.decks} (§ 541.3(b)(1))")
        batch = args.get("batch", self._next_shoe_batch(self.state))
        try:
            step = shuffling.load_shoe(self.state, batch, table.clock.now)
        except ShufflerRefusal as refusal:
            if refusal.code == "deck-clock-expired":
                self._retire(batch, "its decks are overdue for a change (§ 541.3(c))")
            raise
        self.state = step.state
        table.shoe_loaded(decks, batch)
        self._notices(step.notices)

    def shoe_opened(self, shoe: Shoe, fields: dict[str, Any]) -> str:
        """The alerts recorded between shoes go into this shoe's result; the batch is announced."""
        shoe.alerts, self.between_shoes = self.between_shoes, []
        fields["batch"] = shoe.batch
        return f"batch {shoe.batch}, {self.colour(str(shoe.batch))} backs, {shoe.decks} decks"

    def shoe_closing(self, shoe: Shoe, data: dict[str, Any]) -> None:
        """At the shoe's end: reconcile its cards with the batch (§ 541.3(b)(1)), watch the
        shuffle (§ 541.5(a), warnings only), send the batch to the discard rack (§ 541.3(b)(6)),
        and retire it if its decks must be replaced."""
        unreadable = max(0, shoe.cards_read - len(shoe.identified))
        audit = audit_composition(shoe.decks, shoe.identified, unreadable, complete=shoe.emptied, batch=shoe.batch)
        notice = audit.notice()
        if notice is not None:
            shoe.composition_ok = False
            text = f"shoe {shoe.number}: {_notice_text(notice)}"
            self.table.open_alerts.open(notice.code, text, notice.severity, "acknowledge")
            shoe.new_decks = shoe.new_decks or f"shoe {shoe.number} did not hold exactly its decks"
        self.watch, report = self.watch.observe(shoe.number, shoe.seen)
        self._notices(report.notices)
        if self.state.in_play is not None:  # § 541.5(h)(2) has already ended it
            self._apply_step(shuffling.end_shoe(self.state, self.table.clock.now))
        if shoe.new_decks is not None and shoe.batch is not None:
            self._retire(shoe.batch, shoe.new_decks)
        data["batch"] = shoe.batch

    def round_finished(self, shoe: Shoe) -> None:
        """After a round: the table is active (§ 541.5(h)); the next round may start only while
        the decks in play are within their life (§ 541.3(c)), with one warning before."""
        table = self.table
        self.state = shuffling.record_activity(self.state, table.clock.now)
        if table.reshuffle_due:
            return
        try:
            self._apply_step(shuffling.check_round_start(self.state, table.clock.now))
        except ShufflerRefusal as refusal:
            table.alert_in_round(refusal.code, str(refusal), "fault")
            shoe.new_decks = "its decks are overdue for a change (§ 541.3(c))"

    def record_between_shoes(self, alert: dict[str, str]) -> None:
        """An alert while no shoe is in play goes into the next shoe's result."""
        self.between_shoes.append(alert)

    def load_prompt(self) -> Prompt:
        """Between shoes: put the last shoe's batch back (or new decks), then load the next batch."""
        state, decks = self.state, self.table.decks
        discarded = next((b.name for b in state.batches if b.stage == "discard"), None)
        if discarded is not None:
            text = (f"put batch {discarded} ({self.colour(discarded)} backs) from the shoe and the discard rack "
                    "into the shuffler (§ 541.3(b)(6))")  # fmt: skip
            return {"action": Action.RETURN_BATCH, "batch": discarded, "replace": False, "text": text}
        for batch, why in self.new_decks_due.items():
            text = (f"put new decks ({decks} decks, {self.colour(batch)} backs) into the shuffler as batch "
                    f"{batch}: {why}")  # fmt: skip
            return {"action": Action.RETURN_BATCH, "batch": batch, "replace": True, "text": text}
        batch = self._next_shoe_batch(state)
        colour = self.colour(batch)
        record = state.batch(batch)
        if record.stage == "released":
            return {"action": Action.LOAD_SHOE, "batch": batch, "decks": decks, "back_colour": colour,
                    "text": f"load batch {batch} ({colour} backs) into the shoe, then press shoe loaded"}  # fmt: skip
        return {"action": Action.WAIT, "reason": "shuffler", "batch": batch,
                "text": f"waiting for batch {batch} ({colour} backs): {self._batch_waits_for(record)}"}  # fmt: skip

    def view(self) -> dict[str, Any]:
        """Each batch's stage on the dealer's view."""
        return {"batches": [{"batch": b.name, "stage": b.stage, "problem": b.problem} for b in self.state.batches]}

    @staticmethod
    def _next_shoe_batch(state: ShufflerState) -> str:
        """The batch the next shoe comes from: the other one (§ 541.3(b)(5)), or for the first
        shoe the one nearest to being dealt."""
        wanted = shuffling.next_batch(state)
        if wanted is not None:
            return wanted
        for stage in ("released", "ready", "shuffling", "loaded"):
            for record in state.batches:
                if record.stage == stage:
                    return record.name
        return state.config.batches[0]

    def _batch_waits_for(self, record: BatchRecord) -> str:
        if record.name in self.replacing:
            return "it comes out of the shuffler to be replaced by new decks"
        if self.latched:
            return "the shuffler reports " + ", ".join(sorted(self.latched)).replace("_", " ")
        if self.refused:
            return "the shuffler refused the last command (see the alert); waiting for it to report"
        return record.problem or _BATCH_WAITS.get(record.stage, record.stage.replace("_", " "))

    # -- the shuffler's events ------------------------------------------------------------------
    def on_tick(self, event: ClockTick) -> None:
        """§ 541.5(h)(2): a shoe with no gaming activity for ``idle_after_s`` ends (its cards go
        into the shuffler, the other batch comes out)."""
        table = self.table
        if table.state != "betting" or table.round.wagers or not shuffling.idle_due(self.state, table.clock.now):
            return
        self._apply_step(shuffling.idle_table(self.state, table.clock.now))
        table.shoe_over()

    def on_event(self, event: DeviceEvent) -> None:
        """A shuffler event: the rules judge it; then what the controller asked is done, or not."""
        batch = getattr(event, "batch", None)
        if isinstance(event, BatchStatus):
            self.status_due.discard(event.batch)
            if event.state not in ("empty", "released") and self.state.batch(event.batch).stage == "discard":
                # Put back while the host was not listening: the device is the physical truth.
                self._apply_step(shuffling.on_batch_loaded(self.state, event.batch, event.decks, event.back_colour,
                                                           self.table.clock.now))  # fmt: skip
        out = isinstance(event, BatchReleased) or (isinstance(event, BatchStatus) and event.state == "released")
        if not isinstance(event, ShuffleProgress):
            self.refused = False
        if out and batch in self.replacing:
            self.pending.discard(("release_batch", batch))
            self._retire(batch, self.replacing.pop(batch))
            return
        self._apply_step(shuffling.on_event(self.state, event, self.table.clock.now))
        if isinstance(event, ShuffleStarted):
            self.pending.discard(("start_shuffle", event.batch))
        elif isinstance(event, BatchReleased):
            self.pending.discard(("release_batch", event.batch))
        for retired in [b for b in self.new_decks_due if self.state.batch(b).stage != "absent"]:
            del self.new_decks_due[retired]  # its new decks are in (also when seen in a status after a replug)

    def on_fault(self, event: ShufflerFault) -> None:
        """A shuffler fault (the base class has alerted): a jam or an open door stops the
        shuffler (and abandons the shuffle it names) until cleared; any other fault naming a
        batch something was asked for is the device refusing it."""
        self._apply_step(shuffling.on_event(self.state, event, self.table.clock.now))
        code, text = f"{event.device}-{event.code}", f"{event.device}: fault {event.code}: {event.text}"
        if event.code in shuffling.ABANDONING_FAULTS:
            self.latched.add(event.code)
            self.table.open_alerts.track(code, text, "fault", "cleared")
        else:
            self.table.open_alerts.record(code, text)
        asked = {(command, batch) for command, batch in self.pending if batch == event.batch}
        if asked and event.code != "card_count":  # a count comes with a completed shuffle, not a refusal
            self.pending -= asked
            self.refused = True

    def on_fault_cleared(self, event: ShufflerFaultCleared) -> None:
        self.latched.discard(event.code)
        self.refused = False
        self.table.open_alerts.close(f"{event.device}-{event.code}")

    # -- what the shuffler is asked -------------------------------------------------------------
    def ask(self) -> None:
        """Decide the ``device_command`` s due: take out a batch to be replaced, shuffle a batch
        waiting for it (§ 541.3(b)(4)), release the next shoe's batch between shoes."""
        if not self.table.devices[self.device].usable or self.latched or self.status_due or self.refused:
            return
        state = self.state
        for record in state.batches:
            why = self._why_new_decks(state, record)
            if why is not None:
                self.replacing.setdefault(record.name, why)
            if record.name in self.replacing:
                self._ask("release_batch", record.name)
        batch = shuffling.to_shuffle(state)
        if batch is not None:
            self._ask("start_shuffle", batch, expected_cards=shuffling.expected_cards(state, batch))
        prompt = self.table.prompt()
        if (
            prompt["action"] == Action.WAIT
            and prompt.get("reason") == "shuffler"
            and state.batch(prompt["batch"]).stage == "ready"
        ):
            self._ask("release_batch", prompt["batch"])

    def _why_new_decks(self, state: ShufflerState, record: BatchRecord) -> str | None:
        """Why a batch in the shuffler must be replaced by new decks: its shuffle was judged
        wrong (count, repeated order) or its decks are overdue (§ 541.3(c)); else None."""
        if record.stage == "rejected" and record.cards is not None:
            return f"rejected, {record.problem}"
        clocks = shuffling.deck_clock(state, self.table.clock.now)
        expired = any(c.batch == record.name and c.status == "expired" for c in clocks)
        if record.stage == "ready" and expired:
            return "its decks are overdue for a change (§ 541.3(c))"
        return None

    def _ask(self, command: str, batch: str, **args: Any) -> None:
        """Decide a ``device_command`` for the shuffler, once until it is seen done or lost."""
        if (command, batch) not in self.pending:
            self.pending.add((command, batch))
            self.table.decide("device_command", {"device": self.device, "command": command, "batch": batch, **args})

    def _retire(self, batch: str, why: str) -> None:
        """The decks of ``batch`` leave the table; new decks are due in its slot (§ 541.3(b)(1), (c))."""
        self._apply_step(shuffling.retire_batch(self.state, batch, self.table.clock.now))
        self.new_decks_due[batch] = why
        self.table.alert_in_round("new-decks", f"batch {batch}: {why}: replace it with new decks", "attention")

    def _apply_step(self, step: shuffling.Step) -> None:
        """Take the rules' new state and journal their notices as alerts."""
        self.state = step.state
        self._notices(step.notices)

    def _notices(self, notices: tuple[Notice, ...]) -> None:
        for notice in notices:
            self.table.alert_in_round(notice.code, _notice_text(notice), notice.severity)
