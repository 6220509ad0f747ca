"""A simulated automatic card shuffler, as a pyusb backend.

:class:`SimulatedShuffler` implements :class:`usb.backend.IBackend`, so the production
driver finds it with ``usb.core.find(idVendor=..., idProduct=..., backend=sim)`` and drives
it through pyusb's own API; nothing in the driver knows it is talking to a simulation. It
is built in layers, one module each:

- :mod:`sim.devices.usb_bus`: the bus (:class:`~sim.devices.usb_bus.SimulatedUsbDevice`):
  descriptors, configuration, claiming the interface, bulk transfers on endpoints 0x01 and
  0x81, control transfers, string descriptors, kernel driver detach, the cable;
- :mod:`sim.devices.shuffler_protocol`: the protocol
  (:class:`~sim.devices.shuffler_protocol.ShufflerProtocol`): vendor requests, frames and
  their sequence numbers, heartbeats, the host's commands;
- this module: the batches and their shuffles, the faults, the dealer's and the attendant's side;
- :mod:`sim.devices.shuffler_rebuild`: resuming where the journal left the device.

The simulated device holds two batch slots, A and B (§ 541.3(b)(2)), each set up for the
same number of decks with its own back colour. Shuffles are seeded (:class:`random.Random`),
each batch from a stream of its own, so a seed reproduces every order of a batch, whenever
the other batch was shuffled (a jam cleared before or after a change of shoe). A shuffle takes
``shuffle_seconds`` (0 in tests: every event is due at once) and reports its progress at
25, 50 and 75 %.

Faults, armed for the next shuffle with :meth:`SimulatedShuffler.arm` or drawn per shuffle
from ``fault_rates`` (see :data:`FAULTS`): a jam, the door opened mid-shuffle, a missing
card, an extra card, an unplug mid-shuffle (enumeration finds nothing and every transfer
fails with ENODEV until :meth:`SimulatedShuffler.replug`), and a "shuffle" that returns
the previous order. With ``recover_after_s`` set, a simulated attendant clears the jam,
closes the door and plugs the cable back in after that many seconds, so an unattended
simulated table never stays stuck.

The dealer's side is an API too: :meth:`SimulatedShuffler.load` puts a batch back into its
slot after a shoe, :meth:`SimulatedShuffler.order` tells the simulated shoe the order in
which the released batch's cards come out.

A physical shuffler keeps its batches over a restart of the host. A simulator restarted
with the host does too: :meth:`SimulatedShuffler.resume` replays, from the seed, what the
journal shows the device did (:func:`sim.devices.resume.shuffler_resume_point`), so
its batches, their orders and its random stream stand where they stood.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import logging
import random
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from drivers.codecs import shuffler as codec
from drivers.codecs.shoe_messages import RANKS, SUITS
from sim.devices.shuffler_protocol import ShufflerProtocol
from sim.devices.shuffler_rebuild import Rebuild, Resumed
from sim.devices.usb_bus import EP_IN, EP_OUT, LIBUSB_ERROR_PIPE, LIBUSB_ERROR_TIMEOUT, usb_error  # re-exported
from sim.errors import SimError

if TYPE_CHECKING:
    from sim.devices.resume import ShufflerResumePoint

__all__ = [
    "SimulatedShuffler", "Resumed", "FAULTS", "PROGRESS_STEPS", "EP_IN", "EP_OUT", "LIBUSB_ERROR_PIPE",
    "LIBUSB_ERROR_TIMEOUT", "usb_error", "new_decks",
]  # fmt: skip

log = logging.getLogger("tablehost.sim.shuffler")

#: Faults the simulation can produce, by name (keys of ``fault_rates`` and arguments of ``arm``).
FAULTS: tuple[str, ...] = ("jam", "door_open", "missing_card", "extra_card", "unplug", "same_order")
#: Percentages at which a shuffle reports progress before it completes.
PROGRESS_STEPS: tuple[int, ...] = (25, 50, 75)
#: A jam happens after this progress step; an unplug right after this one.
JAM_AT, UNPLUG_AT = 75, 50


def _check_faults(names: Iterable[str]) -> None:
    """:raises SimError: naming the first of ``names`` that is not one of :data:`FAULTS`."""
    unknown = sorted(set(names) - set(FAULTS))
    if unknown:
        raise SimError(f"shuffler sim: unknown fault {unknown[0]!r} (known: {', '.join(FAULTS)})")


@dataclasses.dataclass
class _Slot:
    """One batch slot of the simulated device (mutable: it is the device's memory)."""

    batch: str
    decks: int
    back_colour: str
    cards: list[str]
    state: str = "empty"
    order: list[str] = dataclasses.field(default_factory=list)
    digest: bytes = codec.NO_DIGEST
    counted: int = 0
    percent: int = 0
    shuffle_id: int = 0


class SimulatedShuffler(ShufflerProtocol):
    """A shuffler on a simulated USB bus: pass it as pyusb's ``backend``.

    :param seed: seeds every shuffle and every random fault (each batch's stream).
    :param decks_per_batch: decks in each of the two batches (§ 541.3(b)(2)).
    :param back_colours: back colours of batches A and B (§ 541.3(b)(3)).
    :param loaded: start with both batches in their slots, unshuffled.
    :param shuffle_seconds: how long a shuffle takes (0: every event at once).
    :param fault_rates: probability per shuffle of each of :data:`FAULTS`.
    :param recover_after_s: a simulated attendant clears a jam, closes the door and plugs
        the cable back in after this many seconds; ``None``: only the API does.
    :param kernel_driver_active: a kernel driver holds the interface until detached.
    :param model, serial, firmware, manufacturer: the identity the device reports.
    :param vendor_id, product_id: the ids it enumerates with.
    :raises SimError: for a fault name or batch set-up the simulation does not know.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        decks_per_batch: int = 8,
        back_colours: tuple[str, str] = ("red", "blue"),
        loaded: bool = True,
        shuffle_seconds: float = 0.0,
        fault_rates: Mapping[str, float] | None = None,
        recover_after_s: float | None = None,
        kernel_driver_active: bool = False,
        model: str = "SH-16",
        serial: str = "SH16-SIM-0001",
        firmware: str = "3.2.0",
        manufacturer: str = "tablehost",
        vendor_id: int = 0x1209,
        product_id: int = 0x7AB1,
    ) -> None:
        _check_faults(fault_rates or {})
        if not 1 <= decks_per_batch <= 8:
            raise SimError(f"shuffler sim: decks_per_batch {decks_per_batch} must be 1..8")
        super().__init__(
            model=model,
            serial=serial,
            firmware=firmware,
            manufacturer=manufacturer,
            vendor_id=vendor_id,
            product_id=product_id,
            kernel_driver_active=kernel_driver_active,
        )
        self.shuffle_seconds = shuffle_seconds
        self.fault_rates = dict(fault_rates or {})
        self.recover_after_s = recover_after_s
        self._rngs = {batch: random.Random(f"{seed}-batch-{batch}") for batch in codec.BATCHES}
        self._slots = {
            batch: _Slot(batch, decks_per_batch, colour, [])
            for batch, colour in zip(codec.BATCHES, back_colours, strict=True)
        }
        self._armed: set[str] = set()
        self._door_open = self._jammed = False
        self._shuffle_ids = itertools.count(1)
        if loaded:
            for slot in self._slots.values():
                self._fill(slot, None)

    # -- the device's physical side: dealer, attendant ----------------------------------

    def open_door(self) -> None:
        """Open the shuffler's door: a shuffle in progress is abandoned (FAULT door_open)."""
        with self._cond:
            self._door_open = True
            shuffling = self._abandon_shuffles()
            text = f"door opened during the shuffle of batch {shuffling}" if shuffling else "door open"
            self._send(codec.Fault(codec.FAULT_DOOR_OPEN, shuffling, text))
            self._recover_later(self.close_door)

    def close_door(self) -> None:
        """Close the door (FAULT_CLEARED door_open)."""
        with self._cond:
            if self._door_open:
                self._door_open = False
                self._send(codec.FaultCleared(codec.FAULT_DOOR_OPEN))

    def clear_jam(self) -> None:
        """Clear a jam (FAULT_CLEARED jam); the jammed batch must be shuffled again."""
        with self._cond:
            if self._jammed:
                self._jammed = False
                self._send(codec.FaultCleared(codec.FAULT_JAM))

    def arm(self, *faults: str) -> None:
        """Make the next shuffle suffer ``faults`` (names from :data:`FAULTS`)."""
        _check_faults(faults)
        with self._cond:
            self._armed.update(faults)

    def load(self, batch: str, cards: Iterable[str] | None = None) -> None:
        """The dealer puts ``batch`` into its slot (BATCH_LOADED).

        :param cards: the cards, as two-character codes; ``None``: complete new decks.
        :raises SimError: if the slot still holds cards.
        """
        with self._cond:
            slot = self._slot(batch)
            if slot.state not in ("empty", "released"):
                raise SimError(f"shuffler sim: batch {batch} is still in its slot ({slot.state})")
            self._fill(slot, cards)
            self._send(codec.BatchLoaded(batch, slot.decks, slot.back_colour))

    def order(self, batch: str) -> tuple[str, ...]:
        """The order in which ``batch``'s cards came out of its last shuffle."""
        with self._cond:
            return tuple(self._slot(batch).order)

    def resume(self, point: ShufflerResumePoint) -> Resumed:
        """Stand where the journal left the device, as a physical shuffler keeps its batches
        over a restart of the host: replay, from the seed, every load, shuffle and release
        the journal shows it did, and nothing it does not show (a command the host decided
        but died before the device reported it is asked again, and draws the same cards).

        The journal shows what the device did by what it reported, or by what it reported at
        the next handshake (a shuffle whose reports a pulled cable lost). A jam, an open door
        or a pulled cable was dealt with by the attendant while the host restarted.

        Call it on a new simulator (same seed and settings as the one that ran), before the
        driver finds it.

        :raises SimError: once the simulator has been used.
        """
        with self._cond:
            if self._seq or self._generation != 1 or any(slot.order for slot in self._slots.values()):
                raise SimError("shuffler sim: resume a new simulator, before it is used")
            rebuild = Rebuild(self)
            self._outbox = []
            try:
                for fact in point.facts:
                    rebuild.apply(fact)
            finally:
                self._outbox = None
                self._attend()
            for problem in rebuild.unexplained:
                log.warning("shuffler sim: resume: %s", problem)
            return Resumed(tuple(rebuild.shoes), tuple(rebuild.unexplained))

    def state(self, batch: str) -> str:
        """The slot's state: ``empty``, ``loaded``, ``shuffling``, ``shuffled`` or ``released``."""
        with self._cond:
            self._advance()
            return self._slot(batch).state

    # -- device firmware ---------------------------------------------------------------

    def _slot(self, batch: str) -> _Slot:
        if batch not in self._slots:
            raise SimError(f"shuffler sim: no batch {batch!r} (batches: A, B)")
        return self._slots[batch]

    def _fill(self, slot: _Slot, cards: Iterable[str] | None) -> None:
        slot.cards = new_decks(slot.decks) if cards is None else list(cards)
        slot.state, slot.percent = "loaded", 0

    def _recover_later(self, action: Callable[[], None]) -> None:
        if self.recover_after_s is not None and self._outbox is None:  # resuming: see _attend
            self._at(self.recover_after_s, action)

    def _on_unplug(self) -> None:
        # Resuming, what it sent stays in the outbox: it may have reached the host before (see Rebuild).
        self._recover_later(self.replug)

    # -- resuming (see resume) -------------------------------------------------------------

    def _attend(self) -> None:
        """The attendant's work while the host was away: cable in, door closed, jam cleared."""
        self._actions.clear()
        self._plugged, self._door_open, self._jammed = True, False, False
        self._in = bytearray()
        if self._outbox is not None:
            self._outbox.clear()

    def _memory(self) -> tuple[Any, ...]:
        """What :meth:`_recall` puts back: the random streams, the slots, the cable and what was sent."""
        return ({batch: rng.getstate() for batch, rng in self._rngs.items()}, copy.deepcopy(self._slots),
                self._plugged, self._door_open, self._jammed, list(self._outbox or ()))  # fmt: skip

    def _recall(self, memory: tuple[Any, ...]) -> None:
        rng_states, slots, self._plugged, self._door_open, self._jammed, outbox = memory
        for batch, state in rng_states.items():
            self._rngs[batch].setstate(state)
        self._slots, self._outbox = slots, outbox

    def _abandon_shuffles(self) -> str | None:
        """Stop every shuffle in progress (its scheduled events become no-ops); its batch."""
        abandoned = None
        for slot in self._slots.values():
            if slot.state == "shuffling":
                slot.state, slot.percent, slot.shuffle_id = "loaded", 0, 0
                abandoned = slot.batch
        return abandoned

    def _faults_for_this_shuffle(self, rng: random.Random) -> set[str]:
        faults, self._armed = self._armed, set()
        for name in FAULTS:  # fixed order: the draw sequence depends only on the seed
            rate = self.fault_rates.get(name, 0.0)
            if rate and rng.random() < rate:
                faults.add(name)
        return faults

    def _start_shuffle(self, command: codec.StartShuffle) -> None:
        slot = self._slots[command.batch]
        refusal = None
        if self._door_open:
            refusal = codec.Fault(codec.FAULT_DOOR_OPEN, slot.batch, "door open: cannot shuffle")
        elif self._jammed:
            refusal = codec.Fault(codec.FAULT_JAM, slot.batch, "jammed: clear the jam first")
        elif slot.state not in ("loaded", "shuffled") or any(s.state == "shuffling" for s in self._slots.values()):
            refusal = codec.Fault(
                codec.FAULT_NOT_READY, slot.batch, f"cannot shuffle batch {slot.batch} now ({slot.state})"
            )
        if refusal is not None:
            self._send(refusal)
            return
        rng = self._rngs[slot.batch]
        faults = self._faults_for_this_shuffle(rng)
        if "missing_card" in faults:
            slot.cards.pop(rng.randrange(len(slot.cards)))
        if "extra_card" in faults:
            slot.cards.insert(rng.randrange(len(slot.cards) + 1), rng.choice(slot.cards))
        if "same_order" in faults:
            order = list(slot.order) if len(slot.order) == len(slot.cards) else list(slot.cards)
        else:
            order = rng.sample(slot.cards, len(slot.cards))
        shuffle_id = next(self._shuffle_ids)
        slot.state, slot.percent, slot.shuffle_id = "shuffling", 0, shuffle_id
        self._send(codec.ShuffleStarted(slot.batch))
        step_s = self.shuffle_seconds / (len(PROGRESS_STEPS) + 1)

        def current() -> bool:
            return slot.shuffle_id == shuffle_id

        def progress(percent: int) -> None:
            if current():
                slot.percent = percent
                self._send(codec.ShuffleProgress(slot.batch, percent))

        def jam() -> None:
            if current():
                self._abandon_shuffles()
                self._jammed = True
                self._send(codec.Fault(codec.FAULT_JAM, slot.batch, f"cards jammed at {JAM_AT}%"))
                self._recover_later(self.clear_jam)

        def complete() -> None:
            if current():
                slot.order, slot.digest, slot.counted = order, codec.order_digest(order), len(order)
                slot.state, slot.percent = "shuffled", 100
                self._send(codec.ShuffleComplete(slot.batch, slot.counted, slot.digest))
                if command.expected_cards and slot.counted != command.expected_cards:
                    text = f"counted {slot.counted} cards, expected {command.expected_cards}"
                    self._send(codec.Fault(codec.FAULT_CARD_COUNT, slot.batch, text))

        for index, percent in enumerate(PROGRESS_STEPS, start=1):
            self._at(index * step_s, functools.partial(progress, percent))
            if percent == JAM_AT and "jam" in faults:
                self._at(index * step_s, jam)
            if percent == UNPLUG_AT and "unplug" in faults:
                self._at(index * step_s, self._unplug)
            if percent == UNPLUG_AT and "door_open" in faults:
                self._at(index * step_s, self.open_door)
        self._at(self.shuffle_seconds, complete)

    def _release(self, command: codec.ReleaseBatch) -> None:
        slot = self._slots[command.batch]
        if slot.state != "shuffled" or self._door_open:
            why = "door open" if self._door_open else f"batch {slot.batch} is {slot.state}, not shuffled"
            self._send(codec.Fault(codec.FAULT_NOT_READY, slot.batch, f"cannot release: {why}"))
            return
        slot.state = "released"
        self._send(codec.BatchReleased(slot.batch, slot.counted))

    def _status(self) -> codec.DeviceStatus:
        fault = codec.FAULT_JAM if self._jammed else codec.FAULT_DOOR_OPEN if self._door_open else 0
        batches = tuple(
            codec.BatchState(s.batch, s.state, s.decks, s.back_colour, s.counted, s.percent, s.digest)
            for s in self._slots.values()
        )
        return codec.DeviceStatus(self._door_open, fault, batches)

    def _reset(self) -> None:
        self._abandon_shuffles()
        super()._reset()


def new_decks(decks: int) -> list[str]:
    """The cards of ``decks`` new decks as they leave the box: deck by deck, in rank then suit
    order (the order of :func:`firmware_host.rules.baccarat.cards.full_shoe`), as two-character codes."""
    return [rank + suit for _ in range(decks) for rank in RANKS for suit in SUITS]
