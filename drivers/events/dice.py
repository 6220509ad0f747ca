"""Events of the Pai Gow dice shaker (and of a lid reed switch on a Pi GPIO pin).

The shaker reports what it senses, faithfully and without judging it: the controller
decides whether enough shakes came before the reveal (§ 535.8(a)), whether a reading is a
valid roll or a **no roll** (§ 535.12(a),(b)), and what a lid lifted by the bank means
(§ 535.11(i)). Device faults (a blinded dice sensor, a stuck lid switch) arrive as
:class:`~drivers.events.lifecycle.DeviceFault` with the shaker's fault code name.
"""

from __future__ import annotations

from drivers.events import DeviceEvent, event


@event
class LidChanged(DeviceEvent):
    """The shaker's lid was opened (``open=True``) or put back, from the shaker or a GPIO reed switch."""

    open: bool


@event
class ShakeDetected(DeviceEvent):
    """The shaker felt one shake.

    :param count: shakes since the lid was last put on (1 for the first), so the controller
        can require at least three before the reveal (§ 535.8(a), § 535.11(i)).
    """

    count: int


@event
class DiceRead(DeviceEvent):
    """What the dice sensor sees in the shaker, taken when the lid comes off or on request.

    :param dice: one ``(face, flat)`` pair per die the sensor sees, in the sensor's order;
        ``face`` is 1..6 as reported (only meaningful when ``flat``; a device that
        reports anything else is passed through for the controller to judge an invalid
        reading), ``flat`` whether the die lies flat on the bottom (§ 535.12(a)).
    :param dice_in_shaker: how many dice the sensor counts in the shaker; fewer than three
        means a die fell out (§ 535.12(b)).
    """

    dice: tuple[tuple[int, bool], ...]
    dice_in_shaker: int
