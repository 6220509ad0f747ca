"""A framer: what the ack/retry layer needs of a framed dialect, whatever its frame layout.

The link layer of ``docs/protocols/shoe.md`` § 1 (identify handshake, SEQ numbers, ack/nak,
retransmission, duplicates dropped, heartbeats), carried out by :class:`drivers.device.FramedDevice`
on the host and :class:`sim.devices.link.FramedSimLink` on the simulated device, does not care
how a frame is laid out on the wire. A :class:`Framer` joins a frame layout (a
:class:`FrameLayout`: our :mod:`drivers.codecs.framed`, or a vendor's own start byte, header and
CRC) to a family's :class:`~drivers.codecs.framed.MessageTable`, so a vendor dialect with acks
is a layout module and an entry in :mod:`drivers.dialects`.
"""

from __future__ import annotations

from typing import Any, Protocol

from drivers.codecs import BadFrame
from drivers.codecs.framed import Ack, Frame, MessageTable, Nak, next_seq

__all__ = ["FrameLayout", "Framer"]


class FrameLayout(Protocol):
    """How frames look on the wire: a pure codec between bytes and :class:`Frame` (a module
    such as :mod:`drivers.codecs.framed` is one)."""

    def decode(self, buf: bytes | bytearray) -> tuple[int, Frame | BadFrame | None]:
        """The frame at the start of ``buf`` (the contract of :mod:`drivers.codecs`)."""
        ...

    def encode(self, frame: Frame) -> bytes:
        """The wire bytes of ``frame``."""
        ...

    def nak_reason(self, bad: BadFrame) -> int | None:
        """The NAK reason a receiver answers a bad frame with, or ``None`` (no NAK)."""
        ...


class Framer:
    """One framed dialect of one device family: its layout's codec, its messages, its ack frames.

    :param layout: the frame layout.
    :param table: the family's message table (the link layer's messages included).
    """

    def __init__(self, layout: FrameLayout, table: MessageTable) -> None:
        self.layout, self.table = layout, table

    def decode(self, buf: bytes | bytearray) -> tuple[int, Frame | BadFrame | None]:
        """The layout's ``decode``."""
        return self.layout.decode(buf)

    def encode(self, message: object, seq: int = 0) -> bytes:
        """The wire bytes of ``message`` with sequence number ``seq``.

        :raises CodecError: for a message the family does not have, or a field out of range.
        """
        return self.layout.encode(self.table.to_frame(message, seq))

    def message(self, frame: Frame) -> Any:
        """The typed message ``frame`` carries (:meth:`MessageTable.message`)."""
        return self.table.message(frame)

    def is_reliable(self, message_or_code: object) -> bool:
        """Whether a message (or TYPE code) is numbered, acked and retransmitted."""
        return self.table.is_reliable(message_or_code)

    def ack(self, seq: int) -> bytes:
        """The ACK of the reliable frame numbered ``seq``."""
        return self.encode(Ack(), seq)

    def nak(self, bad: BadFrame, last_seq: int) -> bytes | None:
        """The NAK answering ``bad`` (``last_seq``: the last SEQ accepted), or ``None`` if the
        layout answers it with none (garbage)."""
        reason = self.layout.nak_reason(bad)
        return None if reason is None else self.encode(Nak(reason), last_seq)

    @staticmethod
    def next_seq(seq: int) -> int:
        """The sequence number after ``seq`` (the link layer's, whatever the layout)."""
        return next_seq(seq)
