"""The Pi's clocks as the service reads them: wall, monotonic through suspend, the boot, and
whether the kernel's wall clock is synchronised (docs/rules-interpretations/clock.md).

- the wall clock as read (``time.time``), never clamped;
- ``CLOCK_BOOTTIME`` in nanoseconds: monotonic, and it counts the time the system was
  suspended, so a span on it is a span of real time within a boot;
- the boot's identity (``/proc/sys/kernel/random/boot_id``): a monotonic stamp means something
  only within its boot;
- the kernel's synchronisation: ``adjtimex(2)`` (``ntp_adjtime``) read through libc with
  ``modes = 0`` (reads, changes nothing): synchronised unless the ``STA_UNSYNC`` status bit is
  set or the call returns ``TIME_ERROR``. systemd-timesyncd, chrony and ntpd all clear the bit
  once they have set the clock.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import pathlib
import time
import uuid
from typing import Protocol

__all__ = ["SystemClock", "Clocks", "boot_id", "kernel_synchronised", "STA_UNSYNC", "TIME_ERROR"]

log = logging.getLogger("tablehost.clock")

#: ``struct timex`` status bit: the clock is not synchronised (``<sys/timex.h>``).
STA_UNSYNC = 0x0040
#: ``adjtimex``'s return value when the clock is not synchronised.
TIME_ERROR = 5
#: Where the kernel says which boot this is.
BOOT_ID = pathlib.Path("/proc/sys/kernel/random/boot_id")


class _Timeval(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long)]


class _Timex(ctypes.Structure):
    """``struct timex`` of Linux (glibc's layout: 11 longs, a timeval, 9 longs, an int, 11 ints of padding)."""

    _fields_ = [
        ("modes", ctypes.c_uint),
        ("offset", ctypes.c_long),
        ("freq", ctypes.c_long),
        ("maxerror", ctypes.c_long),
        ("esterror", ctypes.c_long),
        ("status", ctypes.c_int),
        ("constant", ctypes.c_long),
        ("precision", ctypes.c_long),
        ("tolerance", ctypes.c_long),
        ("time", _Timeval),
        ("tick", ctypes.c_long),
        ("ppsfreq", ctypes.c_long),
        ("jitter", ctypes.c_long),
        ("shift", ctypes.c_int),
        ("stabil", ctypes.c_long),
        ("jitcnt", ctypes.c_long),
        ("calcnt", ctypes.c_long),
        ("errcnt", ctypes.c_long),
        ("stbcnt", ctypes.c_long),
        ("tai", ctypes.c_int),
        ("_padding", ctypes.c_int * 11),
    ]


def _adjtimex() -> object | None:
    """libc's ``adjtimex`` (None where there is none: not Linux)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.adjtimex
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.POINTER(_Timex)]
    function.restype = ctypes.c_int
    return function


_ADJTIMEX = _adjtimex()


def kernel_synchronised() -> bool | None:
    """Whether the kernel's wall clock is synchronised (None: it cannot be asked)."""
    if _ADJTIMEX is None:
        return None
    timex = _Timex()  # modes = 0: read only
    state = _ADJTIMEX(ctypes.byref(timex))  # type: ignore[operator]
    if state < 0:
        log.warning("adjtimex failed: errno %d", ctypes.get_errno())
        return None
    return state != TIME_ERROR and not timex.status & STA_UNSYNC


def boot_id() -> str:
    """This boot's identity; a random one where the kernel gives none (every start is then a new boot)."""
    try:
        return str(uuid.UUID(BOOT_ID.read_text(encoding="ascii").strip()))
    except (OSError, ValueError):
        return f"unknown-{uuid.uuid4()}"


class Clocks(Protocol):
    """What the service reads besides the wall clock (:class:`SystemClock`, or a test's)."""

    boot: str

    def monotonic_ns(self) -> int:
        """The monotonic clock that counts through suspend, nanoseconds."""
        ...

    def synchronised(self) -> bool:
        """Whether the wall clock is synchronised now."""
        ...


#: Environment variable for test benches whose kernel is never synchronised (containers without
#: NTP): ``assume-synchronised`` takes the wall clock as synchronised. Never set it on a table.
ASSUME_ENV = "TABLEHOST_CLOCK"
ASSUME_SYNCHRONISED = "assume-synchronised"


class SystemClock:
    """The Pi's own clocks (module docstring)."""

    def __init__(self) -> None:
        self.boot = boot_id()
        self.assume_synchronised = os.environ.get(ASSUME_ENV) == ASSUME_SYNCHRONISED

    def monotonic_ns(self) -> int:
        """``CLOCK_BOOTTIME`` in nanoseconds."""
        return time.clock_gettime_ns(time.CLOCK_BOOTTIME)

    def synchronised(self) -> bool:
        """The kernel's word (:func:`kernel_synchronised`); not knowing counts as not synchronised."""
        return self.assume_synchronised or kernel_synchronised() is True
