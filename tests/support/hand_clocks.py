"""The Pi's clocks set by hand for the service (issue 28): a wall clock a test steps as NTP would,
and a monotonic clock that only runs forward."""

from __future__ import annotations

from firmware_host.rules.clock import NS

__all__ = ["HandClocks"]


class HandClocks:
    """The service's ``clock`` (the wall clock: call it) and ``clocks`` (monotonic, boot, synchronised).

    :param wall: the wall clock's time, seconds since the epoch.
    :param boot: the boot's identity.
    :param synced: whether the kernel would say the wall clock is synchronised.
    """

    def __init__(self, wall: float, boot: str = "boot-1", synced: bool = True) -> None:
        self.wall, self.mono, self.boot, self.synced = wall, 5 * NS, boot, synced

    def __call__(self) -> float:
        return self.wall

    def monotonic_ns(self) -> int:
        return self.mono

    def synchronised(self) -> bool:
        return self.synced

    def run(self, seconds: float) -> None:
        """``seconds`` pass on both clocks."""
        self.wall += seconds
        self.mono += round(seconds * NS)
