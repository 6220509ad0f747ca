"""Shuffler rules for a Baccarat table: two batches, alternation, the discard rack, the deck clock.

Pure: an immutable :class:`ShufflerState` and functions that take it, an input and the time
``at`` (the controller's :class:`~firmware_host.rules.clock.Instant`, or a bare wall time in
seconds) and return a :class:`Step` (the new state and the
:class:`Notice` s to journal and show the dealer). A refusal raises
:class:`ShufflerRefusal` (a :class:`~firmware_host.errors.RulesError`) naming the section.
No clock, no I/O, no randomness.

The regulation (58 Pa. Code):

- § 541.3(b): with an automated card shuffling device, 12 to 16 decks, (1) each deck as in
  (a), (2) two batches with an equal number of decks, (3) backs of one colour per batch,
  different from the other batch's; (4) one batch shuffled and stored in the device while
  the other is in play; (5) the batches alternate, each used for every other shoe; (6)
  only one batch's cards in the discard rack at any time.
- § 541.3(c): the decks opened for use are changed at least once every 4 hours.
- § 541.5(h)(2): a table with no gaming activity: the cards in play go from the shoe and
  the discard rack into the shuffler, and the batch already in it comes out (reshuffled
  first only if a player asks).
- § 541.15: a continuous shuffling device, in lieu of §§ 541.5 and 541.7.

The readings we took where the text is open are in ``docs/rules-interpretations/shuffler.md``.

Life of a batch (:attr:`BatchRecord.stage`)::

    absent --loaded--> loaded --started--> shuffling --completed, right count, new order--> ready
                         ^  ^                  |  (jam, door, lost: abandoned)               |
                         |  +------------------+      wrong count / same order: rejected     |
                         |                                                                   v
    discard <--end_shoe / idle_table-- in_play <--load_shoe-- released <--device released----+
       +--loaded (back in the shuffler)--> loaded

How the controller uses it: :func:`new_state` once; :func:`on_event` for every shuffler
event (it calls :func:`on_batch_loaded`, :func:`on_shuffle_started`,
:func:`on_shuffle_completed`, :func:`on_shuffle_abandoned`, :func:`on_batch_released` or
:func:`on_batch_status`);
:func:`to_shuffle` tells which batch to ask the shuffler for, :func:`next_batch` which batch
the next shoe must come from; :func:`load_shoe` at shoe start, :func:`check_round_start`
before each round, :func:`record_activity` after it, :func:`end_shoe` at shoe end (then the
composition audit of :mod:`firmware_host.rules.shoe_audit`), :func:`idle_due` and
:func:`idle_table` for § 541.5(h)(2), :func:`retire_batch` when decks are changed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from drivers.events import DeviceEvent
from drivers.events.shuffler import (
    BatchLoaded,
    BatchReleased,
    BatchStatus,
    ShuffleCompleted,
    ShufflerFault,
    ShuffleStarted,
)  # fmt: skip
from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import CARDS_PER_DECK
from firmware_host.rules.clock import NS, Instant, as_instant, left_ns, reached, seconds_ns, span

__all__ = [
    "BATCH_NAMES", "STAGES", "ShufflerConfig", "BatchRecord", "ShufflerState", "Notice", "Step",
    "ShufflerRefusal", "DeckClock", "new_state", "expected_cards", "on_event", "on_batch_loaded", "on_shuffle_started",
    "on_shuffle_completed", "on_shuffle_abandoned", "on_batch_released", "on_batch_status", "to_shuffle",
    "next_batch", "load_shoe", "check_round_start", "record_activity", "end_shoe", "idle_due", "idle_table",
    "retire_batch", "deck_clock",
]  # fmt: skip

#: The two batches (§ 541.3(b)(2)); a continuous shuffler uses only the first.
BATCH_NAMES: tuple[str, str] = ("A", "B")
#: Stages of a batch, in the order of its life (see the module docstring).
STAGES: tuple[str, ...] = ("absent", "loaded", "shuffling", "ready", "rejected", "released", "in_play", "discard")
#: § 541.3(a): a shoe (hence a batch, § 541.3(b)(1)) holds six to eight decks.
MIN_BATCH_DECKS, MAX_BATCH_DECKS = 6, 8
#: § 541.3(b): 12 to 16 decks in all with a shuffler.
MIN_TOTAL_DECKS, MAX_TOTAL_DECKS = 12, 16
#: § 541.3(c): decks opened for use are changed at least once every 4 hours.
MAX_DECK_LIFE_S = 4 * 3600

#: Notice severities, as :meth:`firmware_host.tables.base.TableController.alert` takes them.
WARNING, ATTENTION, FAULT = "warning", "attention", "fault"


@dataclasses.dataclass(frozen=True)
class Notice:
    """Something to journal and show the dealer: ``alert(code, text, severity)``.

    :param section: the regulation section it enforces, e.g. ``"541.3(b)(5)"`` ("" if none).
    """

    code: str
    text: str
    severity: str = ATTENTION
    section: str = ""


class ShufflerRefusal(RulesError):
    """An action the shuffler rules forbid; :attr:`code` and :attr:`section` say which rule."""

    def __init__(self, code: str, text: str, section: str) -> None:
        self.code, self.text, self.section = code, text, section
        super().__init__(f"{text} (§ {section})" if section else text)

    def notice(self) -> Notice:
        """The refusal as a fault :class:`Notice`, for the journal and the dealer."""
        return Notice(self.code, str(self), FAULT, self.section)


@dataclasses.dataclass(frozen=True)
class ShufflerConfig:
    """The shuffler part of the casino's Rules Submission (``[rules.shuffler]``).

    :param decks_per_batch: decks in each batch: 6 to 8 (§ 541.3(a), (b)(1)), the same for
        both (§ 541.3(b)(2)), so 12 to 16 in all (§ 541.3(b)).
    :param back_colours: back colours of batches A and B, which must differ (§ 541.3(b)(3)).
    :param continuous: a continuous shuffling device (§ 541.15): one batch of 6 to 8 decks,
        no alternation and no discard-rack rule; the deck clock still runs.
    :param deck_life_s: decks are changed at least this often; at most 4 hours (§ 541.3(c)).
    :param deck_warning_s: warn this long before a batch's decks reach ``deck_life_s``.
    :param idle_after_s: a table with no round for this long has "no gaming activity"
        (§ 541.5(h)), which the regulation does not quantify.
    :param repeated_order_blocks: a shuffle whose order digest equals one already dealt
        from the batch rejects the batch (otherwise: a warning only).
    :raises RulesError: for a value the regulation does not allow.
    """

    decks_per_batch: int = 8
    back_colours: tuple[str, str] = ("red", "blue")
    continuous: bool = False
    deck_life_s: int = MAX_DECK_LIFE_S
    deck_warning_s: int = 1800
    idle_after_s: int = 900
    repeated_order_blocks: bool = True

    def __post_init__(self) -> None:
        problem = _config_problem(self)
        if problem is not None:
            raise InvalidSetting(*problem)

    @property
    def batches(self) -> tuple[str, ...]:
        """The batches in use: A and B, or A alone for a continuous shuffler."""
        return BATCH_NAMES[:1] if self.continuous else BATCH_NAMES


class InvalidSetting(RulesError):
    """A shuffler setting the regulation does not allow; keeps the key apart, so the profile's
    parser (:func:`firmware_host.config.baccarat.shuffler_rules`) names ``rules.shuffler.<key>``."""

    def __init__(self, key: str, why: str) -> None:
        self.key, self.why = key, why
        super().__init__(f"rules.shuffler.{key}: {why}")


def _config_problem(config: ShufflerConfig) -> tuple[str, str] | None:
    """The first value the regulation does not allow, as (key, why)."""
    values = dataclasses.asdict(config)
    decks, colours = values["decks_per_batch"], tuple(values["back_colours"])
    if not MIN_BATCH_DECKS <= decks <= MAX_BATCH_DECKS:
        return "decks_per_batch", (
            f"{decks}: a batch holds {MIN_BATCH_DECKS} to {MAX_BATCH_DECKS} decks (§ 541.3(a), (b)(1)), "
            f"{MIN_TOTAL_DECKS} to {MAX_TOTAL_DECKS} in all (§ 541.3(b))"
        )
    if not values["continuous"] and colours[0].strip().lower() == colours[1].strip().lower():
        return "back_colours", f"both batches are {colours[0]!r}: their backs must differ in colour (§ 541.3(b)(3))"
    if not 0 < values["deck_life_s"] <= MAX_DECK_LIFE_S:
        return "deck_life_s", f"{values['deck_life_s']}: decks are changed at least every 4 hours (§ 541.3(c))"
    if not 0 <= values["deck_warning_s"] < values["deck_life_s"]:
        return "deck_warning_s", f"{values['deck_warning_s']}: must be from 0 to less than deck_life_s"
    if values["idle_after_s"] <= 0:
        return "idle_after_s", f"{values['idle_after_s']}: must be positive"
    return None


@dataclasses.dataclass(frozen=True)
class BatchRecord:
    """What the rules know of one batch.

    :param stage: one of :data:`STAGES`.
    :param decks: decks the shuffler says the batch's slot is set up for (``None``: not seen).
    :param back_colour: the slot's back colour as the shuffler reports it.
    :param cards: cards counted by the last completed shuffle.
    :param digest: order digest of the last completed shuffle.
    :param dealt_digests: digests of the shuffles already dealt from these decks.
    :param opened_at: when these decks were first seen at the table, on both clocks (the
        § 541.3(c) clock, measured with :func:`~firmware_host.rules.clock.span`).
    :param problem: why the batch is rejected or must be shuffled again.
    :param clock_warned: the deck-clock warning was given for these decks (it is given once).
    """

    name: str
    stage: str = "absent"
    decks: int | None = None
    back_colour: str | None = None
    cards: int | None = None
    digest: str | None = None
    dealt_digests: tuple[str, ...] = ()
    opened_at: Instant | None = None
    problem: str | None = None
    clock_warned: bool = False


@dataclasses.dataclass(frozen=True)
class ShufflerState:
    """Both batches and the shoe history that § 541.3(b)(4)-(6) constrain.

    :param in_play: the batch in the shoe and the discard rack, if a shoe is in play.
    :param last_shoe_batch: the batch of the latest shoe (§ 541.3(b)(5)).
    :param shoes: shoes loaded so far.
    :param last_activity: when the latest round or shoe started, on both clocks (§ 541.5(h)).
    """

    config: ShufflerConfig
    batches: tuple[BatchRecord, ...]
    in_play: str | None = None
    last_shoe_batch: str | None = None
    shoes: int = 0
    last_activity: Instant | None = None

    def batch(self, name: str) -> BatchRecord:
        """The record of batch ``name``.

        :raises RulesError: for a batch this table does not use.
        """
        for record in self.batches:
            if record.name == name:
                return record
        raise RulesError(f"batch {name!r}: this table uses batch {' and '.join(self.config.batches)}")

    def _with(self, record: BatchRecord, **changes: Any) -> ShufflerState:
        batches = tuple(record if b.name == record.name else b for b in self.batches)
        return dataclasses.replace(self, batches=batches, **changes)


@dataclasses.dataclass(frozen=True)
class Step:
    """The result of a rules function: the new state and what to journal and show."""

    state: ShufflerState
    notices: tuple[Notice, ...] = ()


def new_state(config: ShufflerConfig) -> ShufflerState:
    """The state of a table before the shuffler reported anything: every batch absent."""
    return ShufflerState(config, tuple(BatchRecord(name) for name in config.batches))


def expected_cards(state: ShufflerState, batch: str) -> int:
    """The cards a batch must hold: its decks times 52 (§ 541.3(b)(1), (2))."""
    state.batch(batch)
    return state.config.decks_per_batch * CARDS_PER_DECK


def _other(state: ShufflerState, batch: str) -> BatchRecord | None:
    return next((b for b in state.batches if b.name != batch), None)


# -- the shuffler's events ------------------------------------------------------------------


def on_batch_loaded(state: ShufflerState, batch: str, decks: int, back_colour: str, at: Instant | float) -> Step:
    """Cards were put into the shuffler's slot ``batch``.

    A batch seen for the first time (or after :func:`retire_batch`) starts its deck clock
    (§ 541.3(c)); a batch coming back after its shoe keeps it. A slot set up for other
    decks or another colour than the Rules Submission rejects the batch (§ 541.3(b)(2), (3)).
    """
    record = state.batch(batch)
    notices: list[Notice] = []
    opened = as_instant(at) if record.stage == "absent" else record.opened_at
    new_state_ = state
    if state.in_play == batch:
        notices.append(Notice("batch-returned-in-play", f"batch {batch} went back into the shuffler while its "
                              "shoe was in play: the shoe is over", ATTENTION, "541.3(b)(4)"))  # fmt: skip
        new_state_ = dataclasses.replace(state, in_play=None)
    problem = _setup_problem(state, batch, decks, back_colour)
    if problem is not None:
        notices.append(Notice("batch-setup", f"batch {batch}: {problem[1]}: it may not be dealt", FAULT, problem[0]))
    record = dataclasses.replace(
        record, stage="rejected" if problem else "loaded", decks=decks, back_colour=back_colour,
        cards=None, digest=None, opened_at=opened, problem=problem[1] if problem else None,
    )  # fmt: skip
    return Step(new_state_._with(record), tuple(notices))


def _setup_problem(state: ShufflerState, batch: str, decks: int, colour: str) -> tuple[str, str] | None:
    config = state.config
    if decks != config.decks_per_batch:
        return "541.3(b)(2)", (f"the shuffler is set up for {decks} decks, the Rules Submission says "
                               f"{config.decks_per_batch} in each batch")  # fmt: skip
    wanted = config.back_colours[BATCH_NAMES.index(batch)]
    if colour.strip().lower() != wanted.strip().lower():
        return "541.3(b)(3)", f"its backs are {colour!r}, the Rules Submission says {wanted!r}"
    return None


def on_shuffle_started(state: ShufflerState, batch: str, at: Instant | float) -> Step:
    """The shuffler began shuffling ``batch``.

    The device is the physical truth: a batch the rules believed in play, in the discard
    rack or not at the table is in the shuffler now (its shoe, if any, is over), with a notice.
    """
    record = state.batch(batch)
    notices: tuple[Notice, ...] = ()
    changes: dict[str, Any] = {}
    if record.stage in ("absent", "in_play", "discard"):
        notices = (Notice("shuffle-unexpected", f"batch {batch}: the shuffler shuffles it although it was "
                          f"{record.stage.replace('_', ' ')}", ATTENTION, "541.3(b)(4)"),)  # fmt: skip
        if state.in_play == batch:
            changes["in_play"] = None
    opened = as_instant(at) if record.stage == "absent" else record.opened_at
    record = dataclasses.replace(record, stage="shuffling", cards=None, digest=None, problem=None, opened_at=opened)
    return Step(state._with(record, **changes), notices)


def on_shuffle_completed(state: ShufflerState, batch: str, cards: int, digest: str, at: Instant | float) -> Step:
    """The shuffle of ``batch`` finished with ``cards`` counted and order ``digest``.

    The batch becomes ready to deal only with exactly :func:`expected_cards` cards
    (§ 541.3(b)(1), (4)) and an order not dealt before from these decks (unless
    ``repeated_order_blocks`` is off, which leaves a warning).
    """
    record = state.batch(batch)
    expected = expected_cards(state, batch)
    if record.stage in ("absent", "in_play", "discard"):
        text = f"batch {batch}: the shuffler reports a shuffle of it although it is {record.stage.replace('_', ' ')}: ignored"
        return Step(state, (Notice("shuffle-unexpected", text, ATTENTION, "541.3(b)(4)"),))
    if record.decks is not None and record.back_colour is not None:
        setup = _setup_problem(state, batch, record.decks, record.back_colour)
        if setup is not None:  # a slot set up for other decks stays rejected, however it counts
            return Step(state._with(dataclasses.replace(record, stage="rejected", cards=cards, digest=digest or None)))
    notices: list[Notice] = []
    problem = None
    if cards != expected:
        diff = cards - expected
        problem = (
            f"its shuffle counted {cards} cards, expected {expected} ({abs(diff)} {'extra' if diff > 0 else 'missing'})"
        )
        notices.append(Notice("card-count", f"batch {batch}: {problem}: it may not be dealt", FAULT, "541.3(b)(4)"))
    elif digest and digest in record.dealt_digests:
        text = "its shuffle produced the order of a shoe already dealt: the shuffler did not shuffle"
        if state.config.repeated_order_blocks:
            problem = text
            notices.append(Notice("same-order", f"batch {batch}: {text}: it may not be dealt", FAULT, "541.5(a)"))
        else:
            notices.append(Notice("same-order", f"batch {batch}: {text}", WARNING, "541.5(a)"))
    record = dataclasses.replace(record, stage="rejected" if problem else "ready", cards=cards, digest=digest or None,
                                 problem=problem)  # fmt: skip
    return Step(state._with(record), tuple(notices))


def on_shuffle_abandoned(state: ShufflerState, batch: str, reason: str, at: Instant | float) -> Step:
    """A shuffle of ``batch`` stopped before completing (jam, door opened, device lost):
    the batch must be shuffled again before it may be dealt."""
    record = state.batch(batch)
    if record.stage != "shuffling":
        return Step(state)
    problem = f"its shuffle was abandoned ({reason})"
    record = dataclasses.replace(record, stage="loaded", problem=problem)
    text = f"batch {batch}: {problem}: it must be shuffled again"
    return Step(state._with(record), (Notice("shuffle-abandoned", text, ATTENTION, "541.3(b)(4)"),))


def on_batch_released(state: ShufflerState, batch: str, cards: int, at: Instant | float) -> Step:
    """The shuffler lifted ``batch`` out for the dealer. Only a ready batch may come out."""
    record = state.batch(batch)
    if record.stage != "ready":
        why = record.problem or f"it is {record.stage.replace('_', ' ')}, not shuffled and verified"
        text = f"batch {batch} came out of the shuffler although it may not be dealt: {why}"
        return Step(state, (Notice("release-unverified", text, FAULT, "541.3(b)(4)"),))
    return Step(state._with(dataclasses.replace(record, stage="released")))


def on_batch_status(state: ShufflerState, batch: str, device_state: str, decks: int, back_colour: str,
                    cards: int, digest: str, at: Instant | float) -> Step:  # fmt: skip
    """Reconcile with the shuffler's status after a handshake (also after a replug).

    ``device_state`` is the slot's state as the device reports it: ``empty``, ``loaded``,
    ``shuffling``, ``shuffled`` or ``released``. A shuffle that completed while the host was
    not listening is judged as if reported live; one that vanished counts as abandoned. A
    batch lifted out to be replaced by new decks (absent, after :func:`retire_batch`) that the
    device reports released is still out: only cards put into its slot bring it back.
    """
    record = state.batch(batch)
    stage = record.stage
    if stage == "absent" and device_state not in ("empty", "released"):
        step = on_batch_loaded(state, batch, decks, back_colour, at)
        state, stage, notices = step.state, step.state.batch(batch).stage, step.notices
    else:
        notices = ()
    judged_again = stage in ("ready", "rejected") and record.digest != (digest or None)
    if device_state == "shuffled" and (stage in ("loaded", "shuffling") or judged_again):
        step = on_shuffle_completed(state, batch, cards, digest, at)
    elif device_state == "shuffling" and stage in ("loaded", "ready", "rejected"):
        step = on_shuffle_started(state, batch, at)
    elif device_state in ("loaded", "empty") and stage == "shuffling":
        step = on_shuffle_abandoned(state, batch, "not finished when the shuffler was found again", at)
    elif device_state == "released" and stage == "ready":
        step = on_batch_released(state, batch, cards, at)
    else:
        step = Step(state)
    return Step(step.state, notices + step.notices)


#: Shuffler faults that abandon the shuffle in progress of the batch they name.
ABANDONING_FAULTS = frozenset(("jam", "door_open"))


def on_event(state: ShufflerState, event: DeviceEvent, at: Instant | float) -> Step:
    """Apply one event of :mod:`drivers.events.shuffler` (other events change nothing)."""
    match event:
        case BatchLoaded(batch=batch, decks=decks, back_colour=colour):
            return on_batch_loaded(state, batch, decks, colour, at)
        case ShuffleStarted(batch=batch):
            return on_shuffle_started(state, batch, at)
        case ShuffleCompleted(batch=batch, cards=cards, order_digest=digest):
            return on_shuffle_completed(state, batch, cards, digest, at)
        case BatchReleased(batch=batch, cards=cards):
            return on_batch_released(state, batch, cards, at)
        case BatchStatus(batch=batch, state=device_state, decks=decks, back_colour=colour, cards=cards,
                         order_digest=digest):  # fmt: skip
            return on_batch_status(state, batch, device_state, decks, colour, cards, digest, at)
        case ShufflerFault(code=code, batch=str(batch)) if code in ABANDONING_FAULTS:
            return on_shuffle_abandoned(state, batch, code.replace("_", " "), at)
    return Step(state)


# -- what the controller asks ---------------------------------------------------------------


def to_shuffle(state: ShufflerState) -> str | None:
    """A batch in the shuffler waiting for a shuffle (ask the device to shuffle it), if any.

    § 541.3(b)(4): the batch not in play is shuffled while the other is dealt. Only one
    shuffle runs at a time.
    """
    if any(b.stage == "shuffling" for b in state.batches):
        return None
    return next((b.name for b in state.batches if b.stage == "loaded"), None)


def next_batch(state: ShufflerState) -> str | None:
    """The batch the next shoe must come from (§ 541.3(b)(5)); ``None`` before the first
    shoe of a two-batch table, when either may start."""
    if state.config.continuous:
        return BATCH_NAMES[0]
    if state.last_shoe_batch is None:
        return None
    return next(b.name for b in state.batches if b.name != state.last_shoe_batch)


def deck_clock(state: ShufflerState, at: Instant | float) -> tuple[DeckClock, ...]:
    """Each batch's § 541.3(c) clock, for batches at the table: its span on the monotonic clock
    within a boot (:func:`~firmware_host.rules.clock.span`; taken as expired when it cannot be known)."""
    config = state.config
    now = as_instant(at)
    clocks = []
    for b in state.batches:
        if b.opened_at is None:
            continue
        measured = span(b.opened_at, now)
        life = seconds_ns(config.deck_life_s)
        clocks.append(DeckClock(b.name, b.opened_at.wall, left_ns(measured, life) / NS, config.deck_warning_s,
                                config.deck_life_s, measured.reason))  # fmt: skip
    return tuple(clocks)


@dataclasses.dataclass(frozen=True)
class DeckClock:
    """One batch's deck clock (§ 541.3(c)).

    :param opened_at: when its decks were first seen, on the wall clock as read.
    :param remaining_s: seconds until the decks must be changed (negative: overdue; 0 when the
        time since cannot be known, and then ``reason`` says why).
    """

    batch: str
    opened_at: float
    remaining_s: float
    warning_s: float
    life_s: float
    reason: str | None = None

    @property
    def status(self) -> str:
        """``"ok"``, ``"warning"`` (within the warning time) or ``"expired"``."""
        if self.remaining_s <= 0:
            return "expired"
        return "warning" if self.remaining_s <= self.warning_s else "ok"

    def notice(self) -> Notice | None:
        """A warning or a fault notice, or ``None`` while the clock is far from running out."""
        minutes = abs(self.remaining_s) / 60
        if self.status == "expired" and self.reason is not None:
            return Notice("deck-clock-expired", f"batch {self.batch}: {self.reason}; its decks are taken as "
                          f"overdue (changed at least every {self.life_s / 3600:g} h)", FAULT, "541.3(c)")  # fmt: skip
        if self.status == "expired":
            return Notice("deck-clock-expired", f"batch {self.batch}: its decks are overdue for a change by "
                          f"{minutes:.0f} min (changed at least every {self.life_s / 3600:g} h)", FAULT, "541.3(c)")  # fmt: skip
        if self.status == "warning":
            return Notice("deck-clock", f"batch {self.batch}: decks must be changed within {minutes:.0f} min",
                          WARNING, "541.3(c)")  # fmt: skip
        return None


def _clock_of(state: ShufflerState, batch: str, at: Instant | float) -> DeckClock | None:
    return next((c for c in deck_clock(state, at) if c.batch == batch), None)


def load_shoe(state: ShufflerState, batch: str, at: Instant | float) -> Step:
    """A shoe is loaded from ``batch``: check every rule and put the batch in play.

    :raises ShufflerRefusal: a shoe already in play or the other batch's cards still in the
        discard rack (§ 541.3(b)(6)); the batch not shuffled and verified (§ 541.3(b)(4));
        the batch of the previous shoe again (§ 541.3(b)(5)); the other batch not in the
        shuffler (§ 541.3(b)(4)); its decks older than the deck life (§ 541.3(c)).
    """
    record = state.batch(batch)
    continuous = state.config.continuous
    if state.in_play is not None:
        raise ShufflerRefusal(
            "shoe-in-play", f"batch {state.in_play} is still in play: end its shoe first", "541.3(b)(6)"
        )
    if record.stage not in ("ready", "released"):
        why = record.problem or {
            "absent": "it is not at the table", "loaded": "it has not been shuffled",
            "shuffling": "its shuffle has not completed", "in_play": "it is in play",
            "discard": "its cards are in the discard rack",
        }.get(record.stage, record.stage)  # fmt: skip
        raise ShufflerRefusal("batch-not-ready", f"batch {batch} may not be dealt: {why}", "541.3(b)(4)")
    other = _other(state, batch)
    if not continuous and state.last_shoe_batch == batch:
        raise ShufflerRefusal("alternation", f"batch {batch} was used for the previous shoe: the next shoe "
                              f"comes from batch {other.name if other else '?'}", "541.3(b)(5)")  # fmt: skip
    if other is not None and other.stage == "discard":
        raise ShufflerRefusal("discard-rack", f"batch {other.name}'s cards are still out of the shuffler "
                              "(discard rack): put them into the shuffler first", "541.3(b)(6)")  # fmt: skip
    if other is not None and other.stage == "absent":
        raise ShufflerRefusal("other-batch-absent", f"batch {other.name} is not in the shuffler: one batch is "
                              "shuffled and stored in it while the other is in play", "541.3(b)(4)")  # fmt: skip
    dealt = record.dealt_digests + ((record.digest,) if record.digest else ())
    record = dataclasses.replace(record, stage="in_play", dealt_digests=dealt)
    new = state._with(record, in_play=batch, last_shoe_batch=batch, shoes=state.shoes + 1, last_activity=as_instant(at))
    return _deck_clock_check(new, batch, at)


def _deck_clock_check(state: ShufflerState, batch: str, at: Instant | float) -> Step:
    """Refuse once the decks of ``batch`` are past their life; warn once as it nears (§ 541.3(c))."""
    clock = _clock_of(state, batch, at)
    notice = clock.notice() if clock else None
    if notice is None:
        return Step(state)
    if notice.severity == FAULT:
        raise ShufflerRefusal(notice.code, notice.text, notice.section)
    record = state.batch(batch)
    if record.clock_warned:
        return Step(state)
    return Step(state._with(dataclasses.replace(record, clock_warned=True)), (notice,))


def check_round_start(state: ShufflerState, at: Instant | float) -> Step:
    """Before a round: one warning as the deck clock runs out, a refusal once it has (§ 541.3(c)).

    :raises ShufflerRefusal: when the batch in play has outlived its decks' life.
    """
    if state.in_play is None:
        return Step(state)
    return _deck_clock_check(state, state.in_play, at)


def record_activity(state: ShufflerState, at: Instant | float) -> ShufflerState:
    """A round was played at ``at`` (the table is not idle, § 541.5(h))."""
    return dataclasses.replace(state, last_activity=as_instant(at))


def idle_due(state: ShufflerState, at: Instant | float) -> bool:
    """Whether the table has had no gaming activity for ``idle_after_s`` with a shoe in play
    (§ 541.5(h)), measured on the monotonic clock within a boot (:func:`~firmware_host.rules.clock.span`;
    a span that cannot be known counts as idle)."""
    return (
        state.in_play is not None
        and state.last_activity is not None
        and reached(span(state.last_activity, as_instant(at)), seconds_ns(state.config.idle_after_s))
    )


def end_shoe(state: ShufflerState, at: Instant | float) -> Step:
    """The shoe in play ended: its batch's cards go to the discard rack and then back into
    the shuffler (its :func:`on_batch_loaded` ends the discard stage, § 541.3(b)(6)).

    :raises RulesError: when no shoe is in play.
    """
    if state.in_play is None:
        raise RulesError("end of shoe: no shoe is in play")
    record = dataclasses.replace(state.batch(state.in_play), stage="discard")
    if state.config.continuous:  # § 541.15: the device takes its cards back itself
        record = dataclasses.replace(record, stage="loaded")
    return Step(state._with(record, in_play=None))


def idle_table(state: ShufflerState, at: Instant | float, player_requests_reshuffle: bool = False) -> Step:
    """§ 541.5(h)(2): no gaming activity. The cards in play come out of the shoe and the
    discard rack, are spread for inspection, stacked and put into the shuffler; the batch
    already in the shuffler is removed for the next shoe, and is spread and shuffled again
    first only if a player asks (``player_requests_reshuffle``).

    :raises RulesError: when no shoe is in play.
    """
    batch = state.in_play
    unknown = None if state.last_activity is None else span(state.last_activity, as_instant(at)).reason
    why = "" if unknown is None else f" ({unknown}: taken as idle)"
    step = end_shoe(state, at)
    new = step.state
    notices = [Notice("idle-table", f"no gaming activity{why}: take batch {batch} out of the shoe and the discard "
                      "rack, spread it for inspection, then put it into the shuffler", ATTENTION, "541.5(h)(2)")]  # fmt: skip
    other = _other(new, batch or "")
    if player_requests_reshuffle and other is not None and other.stage in ("ready", "released"):
        problem = "a player asked to inspect it: spread it and shuffle it again"
        new = new._with(dataclasses.replace(other, stage="loaded", problem=problem))
        notices.append(
            Notice("idle-reshuffle", f"batch {other.name}: {problem} before dealing", ATTENTION, "541.5(h)(2)")
        )
    return Step(new, tuple(notices))


def retire_batch(state: ShufflerState, batch: str, at: Instant | float) -> Step:
    """The decks of ``batch`` leave the table (deck change, § 541.3(c)); the next cards
    loaded into its slot are new decks with a new clock.

    :raises ShufflerRefusal: while the batch is in play.
    """
    record = state.batch(batch)
    if state.in_play == batch:
        raise ShufflerRefusal("retire-in-play", f"batch {batch} is in play: end its shoe before changing its decks", "")
    return Step(state._with(BatchRecord(record.name)))
