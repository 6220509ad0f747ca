"""What every table controller shares: the input contract, device health and the allow-list.

A controller is a deterministic function of its input stream: :meth:`TableController.handle`
takes one event and the time the service received it, and returns the decisions it makes.
It does no I/O, reads no clock and draws no random number, so replaying a journal through a
fresh controller reproduces every decision (DEVELOPERS.md, rule 2).

This base class owns what is the same at every table:

- **device health** — a lost device pauses the table (red lamp, alert) until it is found
  again and has handshaken; game controllers ask :attr:`TableController.paused`;
- **the firmware allow-list** — a device whose reported model, serial or firmware is not
  approved by its device profile keeps the table closed, and the journal says why;
- **identity changes** — a device that comes back with another serial number is refused
  until a supervisor acknowledges it (``DealerCommand("acknowledge")``); the allow-list and
  the identities are decided by its collaborator
  :class:`~firmware_host.tables.devices.DeviceIdentities` (:attr:`TableController.identities`);
- **time** — :attr:`TableController.now` is the receive time of the latest event on the wall
  clock, as read; :attr:`TableController.clock` has it on both clocks (the compliance limits
  measure spans on the monotonic one), follows the boot and the clock's synchronisation, and
  decides a ``clock-step`` alert when the wall clock steps (:mod:`~firmware_host.tables.clock`).

It also holds the plumbing every game controller needs around its rules:

- **the machine** — a game declares its ``transitions`` machine as data
  (:attr:`~TableController.STATES`, :attr:`~TableController.TRANSITIONS`,
  :attr:`~TableController.INITIAL`) and :meth:`TableController.build_machine` builds it (on
  the controller, or on a stand-in for the generated diagrams);
- **dispatch** — :meth:`TableController.on_game_event` hands each event to the game's
  handler for its class (:attr:`~TableController._HANDLERS`, or one a collaborator
  registered with :meth:`TableController.register`) and turns a trigger the machine
  refuses (``MachineError``) or input the rules refuse (``RulesError``, :class:`Refused`) into
  a ``refused`` decision and an ``alert`` (:meth:`TableController.on_game_event`);
- **the prompt** — a ``prompt`` decision is made only when :meth:`TableController.prompt`
  changes, and after every event or device change;
- **the lamp** — a ``lamp`` decision is made only when :meth:`TableController.lamp_colour`
  changes (games add amber to the red/green of device health);
- **rounds** — :attr:`TableController.current_round` and the round number decisions carry
  while the machine is in one of :attr:`~TableController.ROUND_STATES`.

Game controllers subclass it, declare their machine and handlers, and implement
:meth:`TableController.prompt`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, ClassVar, NoReturn

from transitions import Machine, MachineError

from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceFault, DeviceIdentified, DeviceLost, ProtocolError
from firmware_host.errors import RulesError
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.rules.options import in_key_order
from firmware_host.tables.arguments import named, quoted
from firmware_host.tables.clock import TableClock
from firmware_host.tables.decisions import Decision
from firmware_host.tables.devices import DeviceIdentities
from firmware_host.tables.events import (
    AllowListLoaded,
    ClockStatus,
    DealerCommand,
    FloorFeedStatus,
    RoundsLost,
    RulesInForce,
    SoftwareStarted,
    WagerPlaced,
)
from firmware_host.tables.rounds_lost import rounds_lost

__all__ = ["CONSOLE_INPUTS", "REASON_LONGEST", "Refused", "TableController", "DeviceHealth"]

log = logging.getLogger("tablehost.controller")

#: Inputs from the dealer's console, buttons and display: a hostile peer may send anything in
#: them, so an unexpected exception while applying one is a refusal, never fatal.
CONSOLE_INPUTS = (DealerCommand, WagerPlaced)
#: The longest reason a ``refused`` decision (and its alert) carries.
REASON_LONGEST = 300


class Refused(RulesError):
    """An input the table refuses, with its alert code (:meth:`TableController.refuse`).

    :param code: the alert's code (``wrong-state``, ``table-paused``...).
    :param text: the whole alert text (it names the input itself).
    :param severity: the alert's severity.
    """

    def __init__(self, code: str, text: str, severity: str = "warning") -> None:
        super().__init__(text)
        self.code, self.text, self.severity = code, text, severity


class DeviceHealth:
    """What the controller knows of one device: identity, whether it is usable, and why not."""

    def __init__(self, name: str, approved: ApprovedIdentities) -> None:
        self.name = name
        self.approved = approved
        self.identity: tuple[str, str, str] | None = None
        self.online = False
        self.refusal: str | None = "not yet identified"
        self.pending_identity: tuple[str, str, str] | None = None

    @property
    def usable(self) -> bool:
        """Online, identified and approved."""
        return self.online and self.refusal is None

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready state for the status view."""
        model, serial, firmware = self.identity or (None, None, None)
        return {"online": self.online, "model": model, "serial": serial, "firmware": firmware, "refusal": self.refusal}


class TableController:
    """Base of the Baccarat and Pai Gow controllers.

    :param table_id: the table's id from its profile (journaled in announcements).
    :param approved: the allow-list of every device at the table, by device name.
    """

    game = "table"
    #: The game as messages name it ("... means nothing at a Baccarat table").
    game_title = "casino"

    #: The state a new controller's machine starts in.
    INITIAL: ClassVar[str] = ""
    #: The machine's states (``on_enter`` callbacks named as data).
    STATES: ClassVar[list[Any]] = []
    #: The machine's transitions.
    TRANSITIONS: ClassVar[list[dict[str, Any]]] = []
    #: The states in which a round is open: the decisions made in them carry its number.
    ROUND_STATES: ClassVar[Collection[str]] = ()
    #: The game's handler of each input event class (:meth:`on_game_event` dispatches on it).
    _HANDLERS: ClassVar[Mapping[type, Callable[[Any, Any], None]]] = {}
    #: Attributes that are not the table's state (:mod:`~firmware_host.tables.state_tree`): set
    #: from the profile by the constructor, or one step's scratch. Subclasses add theirs.
    NOT_STATE: ClassVar[tuple[str, ...]] = ("table_id", "_out", "identities")

    def __init__(self, table_id: str, approved: Mapping[str, ApprovedIdentities]) -> None:
        self.table_id = table_id
        self.devices = {name: DeviceHealth(name, allow) for name, allow in approved.items()}
        #: Device identity: the allow-list, devices identifying and lost (:mod:`~firmware_host.tables.devices`).
        self.identities = DeviceIdentities(self)
        self.now = 0.0
        #: The table's two clocks (:mod:`~firmware_host.tables.clock`).
        self.clock = TableClock(self)
        self.rounds_finished = 0
        #: The machine's state (set by :meth:`build_machine`, which a game's constructor calls).
        self.state: str
        self._out: list[Decision] = []
        self._last_prompt: dict[str, Any] | None = None
        self._shown_lamp: str | None = None
        #: The rules in force as last journaled (:class:`RulesInForce`; None: never, a 0.1.0 journal).
        self.rules_journaled: dict[str, Any] | None = None
        #: Handlers that collaborators registered (:meth:`register`), by event class.
        self._registered: dict[type, Callable[[Any], None]] = {}

    @classmethod
    def build_machine(cls, model: Any, machine_class: type[Machine] = Machine, **options: Any) -> Machine:
        """The table's machine on ``model`` (``docs/generate_diagrams.py`` passes a GraphMachine).

        :param model: the controller itself, or a stand-in that only needs the graph.
        :param machine_class: ``Machine`` or one of its extensions.
        :param options: further keyword arguments of ``machine_class``.
        """
        return machine_class(
            model=model,
            states=cls.STATES,
            transitions=cls.TRANSITIONS,
            initial=cls.INITIAL,
            auto_transitions=False,
            **options,
        )

    def register(self, event_class: type, handler: Callable[[Any], None]) -> None:
        """Have ``handler`` apply every ``event_class`` event (instead of :attr:`_HANDLERS`): how a
        game's collaborators, such as a Baccarat table's shuffler side, take their own events.

        :raises ValueError: if ``event_class`` already has a registered handler.
        """
        if event_class in self._registered:
            raise ValueError(f"{event_class.__name__}: already handled by {self._registered[event_class]!r}")
        self._registered[event_class] = handler

    # -- the input contract -------------------------------------------------------------
    def handle(self, event: DeviceEvent, at: float, mono_ns: int | None = None) -> list[Decision]:
        """Apply one input event and return the decisions made.

        :param at: its receive time on the wall clock as read (seconds; never clamped).
        :param mono_ns: the same moment on the monotonic clock (nanoseconds since the boot that the
            last journaled :class:`ClockStatus` names; None: not stamped, an earlier version's step).
        """
        self._out = []
        if isinstance(event, ClockStatus):
            self.clock.on_status(event)  # the boot this event's stamp counts in
        self.now = at
        self.clock.advance(event, self.clock.instant(at, mono_ns))
        if isinstance(event, ClockStatus):
            pass  # decided by the clock above
        elif isinstance(event, AllowListLoaded):
            self.identities.on_allow_list(event)
        elif isinstance(event, DeviceIdentified):
            self.identities.on_identified(event, self.table_id)
        elif isinstance(event, DeviceLost):
            self.identities.on_lost(event)
        elif isinstance(event, DeviceFault):
            self.alert(f"{event.device}-fault", f"{event.device}: fault {event.code}: {event.text}", "fault")
            self.on_game_event(event)
        elif isinstance(event, ProtocolError):
            self.alert("protocol-error", f"{event.device}: {event.text}", "warning")
        elif isinstance(event, RoundsLost):
            rounds_lost(self, event)
        elif isinstance(event, (SoftwareStarted, FloorFeedStatus)):
            pass  # journaled for the audit (and replay, Service.recover); it decides nothing
        elif isinstance(event, RulesInForce):
            # Journaled for the audit; it decides nothing. Kept in the journal's key order, so a
            # checkpoint holds the same document live and replayed.
            self.rules_journaled = in_key_order(event.rules)
        elif isinstance(event, DealerCommand) and event.command == "acknowledge" and self.identities.pending():
            self.identities.accept_pending()
        else:
            self.on_game_event(event)
        if self.clock.now.mono_ns is not None:  # not in a step an earlier version decided
            self._out = [self.clock.dated(d) for d in self._out]
        return self._out

    def on_game_event(self, event: DeviceEvent) -> None:
        """Apply an event with the game's handler for its class; every refusal is decided by :meth:`_refused`.

        A refusal is the handler's :class:`Refused`, ``RulesError`` or ``MachineError`` (a
        trigger the machine refuses in this state). At a console input (:data:`CONSOLE_INPUTS`)
        any other exception is refused too (code ``command-failed``), never fatal: the handlers
        check every argument before they change anything (the games' argument checks run before
        dispatch, :mod:`~firmware_host.tables.arguments`, and each handler checks its rules
        before it acts), so a refused input leaves the table as it was. A deliberate refusal
        keeps what the handler decided before it (a shuffler batch whose deck clock ran out is
        retired even though the shoe is refused, § 541.3(c)); after an unexpected exception the
        handler's decisions are dropped. The controller being deterministic, a replay refuses the
        same input the same way.

        Then :meth:`after_game_event`, and the prompt and the lamp are decided again if they changed.
        """
        registered, handler = self._registered.get(type(event)), self._HANDLERS.get(type(event))
        if registered is None and handler is None:
            self.alert_in_round(
                "unknown-event",
                f"{event.device}: {type(event).__name__} means nothing at a {self.game_title} table",
                "warning",
            )
        else:
            made = len(self._out)  # what the handler decides from here is dropped if it fails
            try:
                if registered is not None:
                    registered(event)
                elif handler is not None:
                    handler(self, event)
            except MachineError:
                self._refused(
                    event, "wrong-state", f"{self.describe(event)}: not possible while {self.state.replace('_', ' ')}"
                )
            except Refused as exc:
                self._refused(event, exc.code, exc.text, exc.severity)
            except RulesError as exc:
                self._refused(event, "refused-input", f"{self.describe(event)}: {exc}")
            except Exception as exc:
                if not isinstance(event, CONSOLE_INPUTS):
                    raise
                log.exception("%s failed; refused", self.describe(event))
                del self._out[made:]
                self._refused(
                    event,
                    "command-failed",
                    f"{self.describe(event)}: failed ({type(exc).__name__}: "
                    f"{quoted(str(exc))}); refused, its decisions dropped",
                )
        self.after_game_event()
        self._emit_prompt()
        self._refresh_lamp()

    def refuse(self, code: str, text: str, severity: str = "warning") -> NoReturn:
        """Refuse the input being applied: raise :class:`Refused` (``text`` names the input)."""
        raise Refused(code, text, severity)

    def _refused(self, event: DeviceEvent, code: str, text: str, severity: str = "warning") -> None:
        """Decide a refusal: a ``refused`` decision (journaled: what was refused and why), then
        the ``alert`` the dealer sees."""
        if len(text) > REASON_LONGEST:
            text = text[: REASON_LONGEST - 3] + "..."
        command = named(event.command) if isinstance(event, DealerCommand) else None
        self.decide(
            "refused",
            {"input": type(event).__name__, "command": command, "code": code, "reason": text},
            self.decision_round(),
        )
        self.alert_in_round(code, text, severity)

    def after_game_event(self) -> None:
        """Hook: called after every game event is applied, before the prompt and the lamp."""

    def on_devices_changed(self) -> None:
        """Called after a device was lost, found, approved or refused: the prompt says so (paused) or resumes."""
        self._emit_prompt()

    def prompt(self) -> dict[str, Any]:
        """What the dealer must do next (the data of a ``prompt`` decision); games implement it."""
        raise NotImplementedError

    def rules_in_force(self) -> dict[str, Any]:
        """The Rules Submission options this table plays under, resolved and JSON-plain (what
        :class:`RulesInForce` journals); games implement it."""
        raise NotImplementedError

    @property
    def quiet(self) -> bool:
        """Between rounds: a moment to checkpoint (:mod:`firmware_host.host.checkpoint`)."""
        return self.state not in self.ROUND_STATES

    @property
    def current_round(self) -> int:
        """The number of the open (or next) round: finished rounds + 1, so never reused."""
        return self.rounds_finished + 1

    def describe(self, event: DeviceEvent) -> str:
        """The event as an alert names it (``dealer command no_more_bets``, ``wager at seat 3``)."""
        if isinstance(event, DealerCommand):
            return f"dealer command {named(event.command)}"
        if isinstance(event, WagerPlaced):
            return f"wager at seat {quoted(event.seat)}"
        return f"{event.device}: {type(event).__name__}"

    # -- helpers for subclasses ---------------------------------------------------------
    def decide(self, type: str, data: dict[str, Any], round: int | None = None) -> None:
        """Record a decision of this step."""
        self._out.append(Decision(type, data, round))

    @property
    def step_decisions(self) -> Sequence[Decision]:
        """The decisions of the step under way so far."""
        return self._out

    def alert(self, code: str, text: str, severity: str = "attention", round: int | None = None) -> None:
        """Record an ``alert`` decision (``severity``: ``warning``, ``attention`` or ``fault``)."""
        self.decide("alert", {"code": code, "text": text, "severity": severity}, round)

    @property
    def paused(self) -> bool:
        """True while any device is lost, unidentified or refused."""
        return not all(device.usable for device in self.devices.values())

    def device_problems(self) -> list[str]:
        """One line per device that keeps the table paused."""
        return [f"{d.name}: {'offline' if not d.online else d.refusal}" for d in self.devices.values() if not d.usable]

    def paused_text(self) -> str:
        """Why the table is paused, for a refusal: ``the table is paused (shoe: offline)``."""
        return f"the table is paused ({'; '.join(self.device_problems())})"

    def paused_prompt(self) -> dict[str, Any] | None:
        """The ``wait`` prompt while the table is paused (None while it is not)."""
        if not self.paused:
            return None
        problems = self.device_problems()
        text = "table paused: " + "; ".join(problems)
        return {"action": "wait", "reason": "paused", "problems": problems, "text": text}

    def lamp_colour(self) -> str:
        """The table lamp: red while paused, else green; games add amber."""
        return "red" if self.paused else "green"

    # -- decisions of the round under way ------------------------------------------------
    def decision_round(self) -> int | None:
        """The round a decision belongs to: the open one (see :attr:`ROUND_STATES`), or None between rounds."""
        return self.current_round if self.state in self.ROUND_STATES else None

    def alert_in_round(self, code: str, text: str, severity: str = "attention") -> None:
        """An ``alert`` decision of the round under way."""
        self.alert(code, text, severity, self.decision_round())

    def announce(self, what: str, text: str, **fields: Any) -> None:
        """An ``announce`` decision of the round under way (``what`` names it; ``text`` is for people)."""
        self.decide("announce", {"announce": what, **fields, "text": text}, self.decision_round())

    def require_state(self, command: str, *states: str) -> None:
        """Refuse ``command`` (as the machine refuses a trigger) outside ``states``."""
        if self.state not in states:
            raise MachineError(f"{command} while {self.state}")

    # -- the prompt, decided when it changes ----------------------------------
    def _emit_prompt(self) -> None:
        """Decide the prompt if it differs from the last one decided."""
        prompt = self.prompt()
        if prompt != self._last_prompt:
            self.say_prompt(prompt)

    def say_prompt(self, prompt: dict[str, Any]) -> None:
        """Decide ``prompt`` now; the next :meth:`_emit_prompt` compares with it."""
        self._last_prompt = prompt
        self.decide("prompt", prompt, self.decision_round())

    def prompt_again(self) -> None:
        """Have the next :meth:`_emit_prompt` decide the prompt even if it is unchanged."""
        self._last_prompt = None

    # -- the lamp, decided when it changes ------------------------------------------------
    def show_lamp(self) -> None:
        """Decide the lamp's colour."""
        self._shown_lamp = self.lamp_colour()
        self.decide("lamp", {"colour": self._shown_lamp})

    def _refresh_lamp(self) -> None:
        """Decide the lamp's colour if it changed since it was last decided."""
        if self.lamp_colour() != self._shown_lamp:
            self.show_lamp()
