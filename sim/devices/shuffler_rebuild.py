"""How a simulated shuffler resumes where the journal left it (:meth:`sim.devices.shuffler.SimulatedShuffler.resume`).

A physical shuffler keeps its batches over a restart of the host. A simulator restarted with
the host does too: :class:`Rebuild` replays on a new simulator, from its seed, what the
journal's facts (:func:`sim.devices.resume.shuffler_resume_point`) show the device did, so
its batches, their orders and its random stream stand where they stood; :class:`Resumed`
is what it rebuilt.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

from drivers.codecs import shuffler as codec
from sim.errors import SimError

if TYPE_CHECKING:
    from sim.devices.resume import ShufflerFact
    from sim.devices.shuffler import SimulatedShuffler

__all__ = ["Rebuild", "Resumed"]


@dataclasses.dataclass(frozen=True)
class Resumed:
    """What :meth:`sim.devices.shuffler.SimulatedShuffler.resume` rebuilt.

    :param shoes: the order of the batch each shoe was loaded with, shoe by shoe (the last:
        what the shoe in play holds, before its cut).
    :param unexplained: facts of the journal the replay could not account for (none, unless
        the simulator is not the one that ran: another seed, other faults).
    """

    shoes: tuple[tuple[str, ...], ...] = ()
    unexplained: tuple[str, ...] = ()


#: The device's message by which it reports each kind of fact (sim.devices.resume.ShufflerFact).
_REPORTS: dict[str, type] = {
    "loaded": codec.BatchLoaded, "started": codec.ShuffleStarted, "completed": codec.ShuffleComplete,
    "released": codec.BatchReleased, "fault": codec.Fault,
}  # fmt: skip
#: What the device was asked to do that each kind of fact shows it did.
_DONE_BY = {"loaded": "load", "started": "shuffle", "completed": "shuffle", "released": "release"}


@dataclasses.dataclass(eq=False)  # each is one request: two alike are two
class _Asked:
    """Something the device was asked to do (a command, a batch put back), not yet seen done.

    :param lost_after: the device was lost since (a shuffle may have pulled its own cable and
        left no report: the next handshake's status tells).
    """

    action: str  # "shuffle", "release" or "load"
    batch: str
    cards: int = 0
    replace: bool = False
    lost_after: bool = False


class Rebuild:
    """Replays the journal's facts on a new simulator (:meth:`sim.devices.shuffler.SimulatedShuffler.resume`).

    The simulator carries out what was asked of it only when a report shows it did: the
    report itself (BATCH_LOADED, SHUFFLE_STARTED, ...) or a handshake's status that only the
    asked action explains. A shuffle is replayed to its end at once. What the simulator sends
    is kept and matched with the journal's reports, also what it sent before a pulled cable
    (a slow shuffle's first reports reach the host before the cable goes); a fault naming a
    batch that was asked something and that nothing replayed explains is the device refusing it.
    """

    def __init__(self, device: SimulatedShuffler) -> None:
        self.device = device
        self.asked: list[_Asked] = []
        self.returns: dict[str, bool] = {}  # batch -> replace: the dealer's latest instruction wins
        self.unfinished: set[str] = set()  # batches replayed mid-shuffle whose end was not reported yet
        self.shoes: list[tuple[str, ...]] = []
        self.unexplained: list[str] = []

    def apply(self, fact: ShufflerFact) -> None:
        kind, batch = fact.kind, fact.batch or ""
        if kind == "asked_shuffle":
            self.asked.append(_Asked("shuffle", batch, fact.cards))
        elif kind == "asked_release":
            self.asked.append(_Asked("release", batch))
        elif kind == "returned":
            self.returns[batch] = fact.replace
        elif kind == "restarted":  # the simulator then was rebuilt from the facts before: nothing more
            self.asked.clear()
            self.returns.clear()
            self.unfinished.clear()
            self.device._attend()
        elif kind == "lost":
            for asked in self.asked:
                asked.lost_after = True
        elif kind == "found":
            self._plug_in()
        elif kind == "shoe":
            self.shoes.append(tuple(self.device._slot(batch).order))
        elif kind == "status":
            self._status(batch, fact.detail, fact.digest)
        elif kind in _REPORTS:
            self._report(fact)

    # -- reports -------------------------------------------------------------------------------

    def _report(self, fact: ShufflerFact) -> None:
        batch = fact.batch or ""
        # A slow shuffle's end after a pulled cable, when the replay had already finished it
        # (what it sent while the cable was out is lost; what came after, after a handshake, is not).
        late = batch in self.unfinished and fact.kind in ("completed", "fault") and self._ended_so(fact)
        if fact.kind in ("completed", "fault"):
            self.unfinished.discard(batch)
        if late or self._sent(fact):
            return
        if fact.kind == "fault":  # nothing replayed sent it: the device refused what it was asked
            self._take(("shuffle", "release"), fact.batch or "")
            return
        action = _DONE_BY[fact.kind]
        asked = self._take((action,), batch) or _Asked(action, batch)
        if not self._done_with_cable_in(asked) or not self._sent(fact):
            self.unexplained.append(f"{fact.kind} {fact.batch} {fact.digest[:12]}: not what the replay sent")

    def _ended_so(self, fact: ShufflerFact) -> bool:
        """Whether the slot of ``fact``'s batch is as the replayed shuffle's end ``fact`` leaves it."""
        slot = self.device._slot(fact.batch or "")
        if fact.kind == "completed":
            return (slot.state, _hex(slot.digest)) == ("shuffled", fact.digest)
        return fact.detail == "card_count" or (fact.detail in ("jam", "door_open") and slot.state == "loaded")

    def _sent(self, fact: ShufflerFact) -> bool:
        """Whether the device sent the report ``fact`` shows; if so it is dropped, with what the
        device sent of the batch before it (progress, which the facts leave out)."""
        outbox = self.device._outbox or []
        for index, message in enumerate(outbox):
            if (
                type(message) is _REPORTS.get(fact.kind)
                and getattr(message, "batch", None) == fact.batch
                and _matches(message, fact)
            ):
                outbox[: index + 1] = [m for m in outbox[:index] if getattr(m, "batch", None) != fact.batch]
                return True
        return False

    def _take(self, actions: tuple[str, ...], batch: str) -> _Asked | None:
        """The first thing asked of ``batch`` among ``actions`` (the dealer's latest instruction to put it back)."""
        if "load" in actions and batch in self.returns:
            return _Asked("load", batch, replace=self.returns.pop(batch))
        for index, asked in enumerate(self.asked):
            if asked.batch == batch and asked.action in actions:
                return self.asked.pop(index)
        return None

    def _done_with_cable_in(self, asked: _Asked) -> bool:
        """:meth:`_do` what the device reported doing: its cable was in then, even if a slow
        shuffle the replay has already finished pulled it (the pull came later)."""
        device = self.device
        pulled = not device._plugged
        device._plugged = True
        try:
            return self._do(asked)
        finally:
            device._plugged = device._plugged and not pulled

    def _do(self, asked: _Asked) -> bool:
        """Carry out ``asked`` on the device, as it did; False if its slot does not allow it."""
        device, slot = self.device, self.device._slot(asked.batch)
        if device._outbox is not None:  # what it sent of the batch before and the journal never showed is lost
            device._outbox[:] = [message for message in device._outbox if getattr(message, "batch", None) != slot.batch]
        if asked.action == "load":  # as the simulated dealer does: the batch's own cards, or new decks
            try:
                device.load(asked.batch, None if asked.replace else device.order(asked.batch))
            except SimError:  # the slot still holds cards
                return False
            return True
        device._door_open = device._jammed = False  # it did it: neither stopped it then
        if asked.action == "release":
            if slot.state != "shuffled":
                return False
            device._release(codec.ReleaseBatch(asked.batch))
            return True
        if slot.state not in ("loaded", "shuffled"):
            return False
        device._start_shuffle(codec.StartShuffle(asked.batch, asked.cards))
        device._advance(math.inf)  # the whole shuffle at once
        self.unfinished.add(asked.batch)
        return True

    # -- a handshake's status ------------------------------------------------------------------

    def _status(self, batch: str, state: str, digest: str) -> None:
        """The slot as the device reported it at a handshake: replay what was asked of it until
        the replay agrees (a load, shuffle or release whose own report the cable took)."""
        self._plug_in()
        if state != "shuffling":
            self.unfinished.discard(batch)
        if self._agrees(batch, state, digest):
            self._unreported_shuffle(batch, state, digest)
            return
        memory = self.device._memory()
        unfinished, done = set(self.unfinished), []
        candidates = [a for a in self.asked if a.batch == batch]
        if batch in self.returns:
            candidates.insert(0, _Asked("load", batch, replace=self.returns[batch]))
        for asked in candidates:
            if self._do(asked):
                done.append(asked)
                self._plug_in()
            if self._agrees(batch, state, digest):
                self.asked = [a for a in self.asked if a not in done]
                if any(a.action == "load" for a in done):
                    del self.returns[batch]
                return
        self.device._recall(memory)
        self.unfinished = unfinished
        slot = self.device._slot(batch)
        self.unexplained.append(f"status of batch {batch}: {state} {digest[:12]}, replayed {slot.state} "
                                f"{_hex(slot.digest)[:12]}")  # fmt: skip

    def _unreported_shuffle(self, batch: str, state: str, digest: str) -> None:
        """A shuffle asked before the device was lost that pulled its own cable and was then
        abandoned (a jam, the door) leaves the slot as it was: only its random draws tell.
        Replayed when that is what it would have done."""
        asked = next((a for a in self.asked if a.batch == batch and a.action == "shuffle" and a.lost_after), None)
        if asked is None:
            return
        memory, unfinished = self.device._memory(), set(self.unfinished)
        self._do(asked)
        pulled_its_cable = not self.device._plugged
        self._plug_in()
        if pulled_its_cable and self._agrees(batch, state, digest):
            self.asked.remove(asked)
        else:
            self.device._recall(memory)
            self.unfinished = unfinished

    def _agrees(self, batch: str, state: str, digest: str) -> bool:
        slot = self.device._slot(batch)
        if state == "shuffling":  # a shuffle that takes time: the replay has finished it already
            return batch in self.unfinished
        return (slot.state, _hex(slot.digest)) == (state, digest)

    def _plug_in(self) -> None:
        """The device is on the bus again: what it sent before the cable was pulled and the
        journal has not shown is gone (what reached the host came before the loss)."""
        device = self.device
        if not device._plugged:
            device._plugged = True
            if device._outbox is not None:
                device._outbox.clear()


def _matches(message: Any, fact: ShufflerFact) -> bool:
    """Whether the device's ``message`` is the report of ``fact`` (same order, same fault)."""
    if isinstance(message, codec.ShuffleComplete):
        return _hex(message.digest) == fact.digest
    if isinstance(message, codec.Fault):
        return codec.fault_name(message.code) == fact.detail
    return True


def _hex(digest: bytes) -> str:
    """An order digest as the driver reports it (hex; "" before any shuffle)."""
    return "" if digest == codec.NO_DIGEST else digest.hex()
