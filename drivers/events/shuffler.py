"""Events of the automatic card shuffler (§ 541.3(b), § 541.5(h)(2), § 541.15).

The driver reports what the shuffler says, faithfully: which batch was loaded, how a
shuffle progresses and how many cards it counted, the fingerprint of the order it produced,
and its faults. Whether a batch may be dealt, whether the batches alternate and whether a
count is right is the controller's business (:mod:`firmware_host.rules.shuffler`).

Batches are named ``"A"`` and ``"B"``. Order digests are SHA-256 in lowercase hex
(:func:`drivers.codecs.shuffler.order_digest`): equal digests mean the same order.
The device lifecycle (identified, lost) uses :mod:`drivers.events.lifecycle`'s events.
"""

from __future__ import annotations

from drivers.events import DeviceEvent, event
from drivers.events.lifecycle import DeviceFault


@event
class BatchLoaded(DeviceEvent):
    """Cards were put into the shuffler's slot ``batch``, set up for ``decks`` decks with
    backs of ``back_colour`` (§ 541.3(b)(2), (3))."""

    batch: str
    decks: int
    back_colour: str


@event
class ShuffleStarted(DeviceEvent):
    """The shuffler began shuffling ``batch``."""

    batch: str


@event
class ShuffleProgress(DeviceEvent):
    """The shuffle of ``batch`` is ``percent`` (0..100) done."""

    batch: str
    percent: int


@event
class ShuffleCompleted(DeviceEvent):
    """The shuffle of ``batch`` finished: ``cards`` counted, order fingerprint ``order_digest``."""

    batch: str
    cards: int
    order_digest: str


@event
class BatchReleased(DeviceEvent):
    """The shuffled ``batch`` (``cards`` cards) was lifted out for the dealer to load the shoe."""

    batch: str
    cards: int


@event
class ShufflerFault(DeviceFault):
    """A shuffler fault: ``code`` is ``"jam"``, ``"door_open"``, ``"card_count"``,
    ``"internal"`` or ``"fault_0xNN"``; ``batch`` the batch concerned, if any.

    A :class:`~drivers.events.lifecycle.DeviceFault`, so every controller alerts on it.
    """

    batch: str | None = None


@event
class ShufflerFaultCleared(DeviceEvent):
    """The shuffler fault ``code`` is over (jam cleared, door closed)."""

    code: str


@event
class BatchStatus(DeviceEvent):
    """A batch slot as the shuffler's status query reports it, after every handshake (so
    also after a replug): what happened while the host was not listening.

    :param state: ``"empty"``, ``"loaded"``, ``"shuffling"``, ``"shuffled"`` or ``"released"``.
    :param cards: cards counted by the last shuffle (0 before one).
    :param percent: progress of the shuffle in progress or last finished.
    :param order_digest: the last shuffle's order digest in hex ("" before one).
    """

    batch: str
    state: str
    decks: int
    back_colour: str
    cards: int
    percent: int
    order_digest: str
