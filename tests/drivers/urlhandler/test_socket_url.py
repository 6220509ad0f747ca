"""``socket://`` ports keep what the device sends while the connection opens (drivers.urlhandler).

pyserial's own handler discards it; a shoe that only talks (the ASCII dialect) and writes a
card at the moment the host reconnects would lose that card for good.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import serial

import drivers.transport  # noqa: F401  (registers the handler, as every driver does)
from drivers.urlhandler.protocol_socket import Serial as KeepingSocket

CARD = b"[Game]<Card:4S>\r\n"


@pytest.fixture
def talks_on_accept() -> Iterator[int]:
    """A device on 127.0.0.1 that writes :data:`CARD` the moment it accepts a connection."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        client, _ = listener.accept()
        with client:
            client.sendall(CARD)
            time.sleep(1.0)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    thread.join(timeout=2)
    listener.close()


def test_socket_urls_open_the_handler_that_keeps_input() -> None:
    port = serial.serial_for_url("socket://127.0.0.1:1", do_not_open=True)
    assert isinstance(port, KeepingSocket)


def test_bytes_sent_while_the_port_was_opening_are_read(talks_on_accept: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Make the open slow between the connection and its end, so the card is there before it ends.
    reconfigure = KeepingSocket._reconfigure_port
    monkeypatch.setattr(KeepingSocket, "_reconfigure_port", lambda self, *a: (time.sleep(0.2), reconfigure(self, *a)))
    port = serial.serial_for_url(f"socket://127.0.0.1:{talks_on_accept}", timeout=1.0)
    try:
        assert port.read(len(CARD)) == CARD
        port.reset_input_buffer()  # still discards when asked to after the open
    finally:
        port.close()
