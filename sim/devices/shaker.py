"""A simulated Pai Gow dice shaker with dice sensor, over a real OS endpoint.

The in-process simulated dealer (or player bank) handles the shaker through a Python API:
:meth:`SimShaker.shake`, :meth:`SimShaker.open_lid`, :meth:`SimShaker.close_lid`. The
shaker reports each shake, each lid change and, as the lid comes off, the reading of its
dice sensor to the host in our framed protocol (``docs/protocols/dice-shaker.md``), over a
pseudo-terminal (the host opens ``/dev/pts/N``) or a TCP socket on 127.0.0.1 (the host
opens ``socket://127.0.0.1:PORT``), through :class:`~sim.devices.link.FramedSimLink`.

Everything random is seeded, by the covering (the lid put on; the first counts 1) and the
shake within it: the faces after each shake felt, and the faults of each covering and of its
reveal, from generators of their own (so that turning a fault on does not change the faces
the dice show). A shaker restarted where the journal left it (``covering``, ``shakes``,
``lid_open``) therefore shows the dice an uninterrupted run shows. Faults
(:class:`ShakerFaults`): a die not flat (§ 535.12(a)), a die out of the shaker
(§ 535.12(b)), the lid removed before the third shake (§ 535.11(i)), fewer than three
shakes felt (§ 535.8(a)), and the link's corrupt frames and disconnects.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from typing import Any

from drivers.codecs import shaker as codec
from drivers.codecs.framed import Identity
from drivers.codecs.shaker import Die, Lid, Reading, RequestReading, Reset, Shake, ShakerFault
from sim.devices.endpoint import open_endpoint
from sim.devices.faults import LinkFaults
from sim.devices.link import FramedSimLink, SimDevice

__all__ = ["SimShaker", "ShakerFaults", "DICE"]

#: Dice the shaker holds (§ 535.5(a)).
DICE = 3
#: Shakes the regulation asks for (§ 535.8(a)); the shaking faults stop short of it.
SHAKES_REQUIRED = 3


@dataclasses.dataclass(frozen=True)
class ShakerFaults(LinkFaults):
    """A simulated shaker's faults: the link's, plus what can go wrong with the dice.

    Link faults (inherited): ``corrupt_byte`` (a frame goes out with one byte changed: the
    host naks, the shaker resends), ``drop_frame``, ``duplicate_frame``, ``disconnect``
    (per shake, the shaker goes away for ``disconnect_seconds``).

    :param die_not_flat: probability, per reveal, that one die is read not flat (§ 535.12(a)).
    :param die_out: probability, per reveal, that one die falls out of the shaker as the lid
        comes off (§ 535.12(b)); it is back in when the lid goes on again.
    :param early_lid: probability, per covering, that the lid comes off after the first or
        second shake, as when the bank lifts it (§ 535.11(i)).
    :param few_shakes: probability, per covering, that only one or two shakes are felt
        (shaken too gently), so the reveal comes after fewer than three (§ 535.8(a)).
    """

    die_not_flat: float = 0.0
    die_out: float = 0.0
    early_lid: float = 0.0
    few_shakes: float = 0.0


class SimShaker(SimDevice):
    """A simulated dice shaker (start, stop, ``url``, ``pending``: :class:`~sim.devices.link.SimDevice`).

    :param endpoint: ``"pty"`` or ``"socket"``.
    :param port: TCP port for ``"socket"`` (0: any free port).
    :param seed: seeds the faces and the fault dice.
    :param faults: the faults to inject.
    :param identity: what IDENTITY answers.
    :param heartbeat: default heartbeat interval (the driver's IDENTIFY usually sets it).
    :param ack_timeout: retransmission timeout, seconds.
    :param retries: retransmissions on the timer before waiting for a NAK or IDENTIFY.
    :param lid_open: start with the lid off (a shaker restarted where the journal left it off).
    :param covering: the covering to start in (1: the first; a restarted shaker's from the journal).
    :param shakes: shakes already felt in it.

    The lid starts on (unless ``lid_open``), in covering ``covering`` with ``shakes`` shakes felt.
    """

    def __init__(
        self,
        *,
        endpoint: str = "pty",
        port: int = 0,
        seed: int = 0,
        faults: ShakerFaults = ShakerFaults(),
        identity: Identity = Identity("DS-3", "SIM-0001", "1.0.4"),
        heartbeat: float = 1.0,
        ack_timeout: float = 0.25,
        retries: int = 5,
        lid_open: bool = False,
        covering: int = 1,
        shakes: int = 0,
    ) -> None:
        self.seed, self.faults = seed, faults
        self._lock = threading.Lock()
        #: The covering under way (the lid put on; the first counts 1).
        self.covering = covering - 1
        self._count = 0
        self._faces: tuple[int, ...] = ()
        self._reading: Reading | None = None
        self._felt_limit: int | None = None  # few_shakes: shakes felt this covering at most
        self._lid_off_after: int | None = None  # early_lid: the lid comes off after this shake
        self.link: FramedSimLink = FramedSimLink(
            "shaker",
            open_endpoint(endpoint, port),
            faults,
            seed,
            framer=codec.FRAMER,
            identity=identity,
            on_command=self._on_command,
            heartbeat=heartbeat,
            ack_timeout=ack_timeout,
            retries=retries,
        )
        self._cover()
        self._count, self._faces = shakes, self._faces_after(shakes)
        self._lid_open = lid_open
        if lid_open:
            self._reading = self._sense()  # what the sensor read as this covering's lid came off

    # -- what the dealer does -----------------------------------------------------------------

    @property
    def lid_open(self) -> bool:
        """Whether the lid is off."""
        return self._lid_open

    @property
    def shakes(self) -> int:
        """Shakes felt since the lid last went on (what the last SHAKE frame said)."""
        return self._count

    @property
    def reading(self) -> Reading | None:
        """The reading the sensor took when the lid last came off (``None`` before the first reveal)."""
        return self._reading

    def shake(self) -> int | None:
        """Shake the shaker once.

        :returns: the shake count reported to the host, or ``None`` if no shake was felt
            (the lid is off, or the ``few_shakes`` fault swallowed it).
        """
        with self._lock:
            if self._lid_open or (self._felt_limit is not None and self._count >= self._felt_limit):
                return None
            self._count += 1
            count = self._count
            self._faces = self._faces_after(count)  # the dice tumble
            self.link.send(Shake(count))
            if self._lid_off_after == count:
                self._take_lid_off()
        self.link.roll_disconnect()
        return count

    def open_lid(self) -> Reading:
        """Take the lid off: the shaker reports LID open and the sensor's reading.

        :returns: the reading sent; if the lid was already off (the ``early_lid`` fault),
            nothing is sent and the reading taken when it came off is returned.
        """
        with self._lock:
            if not self._lid_open:
                self._take_lid_off()
            assert self._reading is not None
            return self._reading

    def close_lid(self) -> None:
        """Put the lid back on: the shaker reports LID closed and counts shakes from zero.

        Nothing is sent if the lid is already on.
        """
        with self._lock:
            if not self._lid_open:
                return
            self._lid_open = False
            self.link.send(Lid(False))
            self._cover()

    def disconnect(self, seconds: float | None = None) -> None:
        """Go away now for ``seconds`` (default: the faults' ``disconnect_seconds``)."""
        self.link.begin_outage(self.faults.disconnect_seconds if seconds is None else seconds)

    def report_fault(self, code: int, text: str = "") -> None:
        """Report a fault of the shaker itself (a code of :data:`drivers.codecs.shaker.FAULTS`)."""
        self.link.send(ShakerFault(code, text))

    # -- inside the shaker ----------------------------------------------------------------------

    def _rng(self, *purpose: object) -> random.Random:
        """A generator seeded by the seed, this covering and ``purpose``."""
        return random.Random("-".join(map(str, (self.seed, "shaker-covering", self.covering, *purpose))))

    def _faces_after(self, shakes: int) -> tuple[int, ...]:
        """The faces the dice show after ``shakes`` shakes felt in this covering."""
        rng = self._rng("shake", shakes)
        return tuple(rng.randint(1, 6) for _ in range(DICE))

    def _cover(self) -> None:
        """The lid went on: a new covering; count from zero and roll its shaking faults."""
        self.covering += 1
        self._count = 0
        rng = self._rng("faults")
        early = rng.random() < self.faults.early_lid
        few = rng.random() < self.faults.few_shakes
        self._lid_off_after = rng.randint(1, SHAKES_REQUIRED - 1) if early else None
        self._felt_limit = rng.randint(1, SHAKES_REQUIRED - 1) if few else None

    def _take_lid_off(self) -> None:
        """The lid comes off: report it, then the sensor's reading of the dice as they lie."""
        self._lid_open = True
        self._reading = self._sense()
        self.link.send(Lid(True))
        self.link.send(self._reading)

    def _resting(self) -> Reading:
        return Reading(tuple(Die(face) for face in self._faces), DICE)

    def _sense(self) -> Reading:
        """The reading as the lid comes off, with this reveal's dice faults."""
        rng = self._rng("reveal")
        dice = list(self._resting().dice)
        cocked = rng.random() < self.faults.die_not_flat
        out = rng.random() < self.faults.die_out
        if cocked:
            which = rng.randrange(len(dice))
            dice[which] = Die(dice[which].face, flat=False)
        if out:
            del dice[rng.randrange(len(dice))]
        return Reading(tuple(dice), len(dice))

    def _on_command(self, message: Any) -> None:
        """A host command (in the link's thread)."""
        with self._lock:
            if isinstance(message, RequestReading):
                # With the lid on the dice lie as they tumbled: flat, all in (faults strike at the reveal).
                self.link.send(self._reading if self._lid_open and self._reading else self._resting())
            elif isinstance(message, Reset):
                self._count = 0
