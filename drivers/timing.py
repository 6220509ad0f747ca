"""A driver's timing: the one set of timeouts a device model's profile gives and a driver keeps.

Its own module, without the transports, so the configuration that reads it from a profile
imports no serial or USB stack.
"""

from __future__ import annotations

import dataclasses

__all__ = ["Timing"]


@dataclasses.dataclass(frozen=True)
class Timing:
    """A driver's timing, in seconds (a device model's ``[timeouts]``, read by the configuration).

    :param ack: wait this long for an ack before retransmitting a reliable frame.
    :param retries: retransmissions of one frame (and repeated IDENTIFYs) before giving up.
    :param heartbeat: the interval at which the device is asked to send heartbeats.
    :param handshake: wait this long for an identity before asking again.
    :param reconnect_initial: first wait before reopening a lost or missing port.
    :param reconnect_max: the wait doubles after each failed attempt up to this cap.
    :param heartbeat_misses: the device counts as lost after this many heartbeat
        intervals without a single good frame.
    """

    ack: float = 0.25
    retries: int = 5
    heartbeat: float = 1.0
    handshake: float = 2.0
    reconnect_initial: float = 0.5
    reconnect_max: float = 10.0
    heartbeat_misses: int = 3

    @property
    def watchdog(self) -> float:
        """Seconds without a good frame after which a running device is lost."""
        return self.heartbeat * self.heartbeat_misses
