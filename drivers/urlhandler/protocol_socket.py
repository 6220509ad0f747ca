"""``socket://HOST:PORT`` that keeps what the device sends while the connection is being opened.

pyserial's own handler ends :meth:`open` with :meth:`reset_input_buffer`, which reads and
throws away whatever has already arrived. On a fresh TCP connection nothing is stale: a
device (a serial-over-IP adapter, a simulator) that writes as soon as it accepts the
connection — a card read out of a shoe that only talks, at the moment the host reconnects —
would lose those bytes, and a dialect without acknowledgements never sends them again.
"""

from __future__ import annotations

from serial.urlhandler import protocol_socket

__all__ = ["Serial"]


class Serial(protocol_socket.Serial):
    """pyserial's ``socket://`` port, without the discarding of input while it opens."""

    _opening = False

    def open(self) -> None:
        """Connect; what arrives meanwhile stays for the first read."""
        self._opening = True
        try:
            super().open()
        finally:
            self._opening = False

    def reset_input_buffer(self) -> None:
        """Discard pending input, except while opening (see the module docstring)."""
        if not self._opening:
            super().reset_input_buffer()
