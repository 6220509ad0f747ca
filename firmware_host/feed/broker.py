"""Broker connection settings shared by the feed publisher and the floor collector.

A broker is named by a URL: ``mqtt://host:port`` (plain TCP, default port 1883) or
``mqtts://host:port`` (TLS, default port 8883). Secrets — the password and the client key —
come from files readable by their owner only (mode 0400 or 0600), never from a profile's text.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
import ssl
import stat
import urllib.parse
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from firmware_host.errors import TablehostError
from firmware_host.text import TextError, read_text

__all__ = [
    "BrokerSettings",
    "BrokerError",
    "parse_url",
    "read_secret",
    "client",
    "closed_before_connack",
    "SocketErrors",
]

#: Largest secret file read, bytes (a password is one line).
SECRET_FILE_LONGEST = 4096
#: Default port of each URL scheme (IANA: 1883 MQTT, 8883 MQTT over TLS).
SCHEMES = {"mqtt": 1883, "mqtts": 8883}


class BrokerError(TablehostError):
    """A broker URL, secret file or TLS file that cannot be used."""


@dataclasses.dataclass(frozen=True)
class BrokerSettings:
    """How to reach and log in to the broker.

    :param url: ``mqtt://host:port`` or ``mqtts://host:port``.
    :param username: the MQTT user name (a table's is its table id under the ACL of deploy/mosquitto).
    :param password_file: a file holding the password (mode 0400/0600).
    :param ca_file: the CA certificate(s) that signed the broker's certificate (TLS).
    :param cert_file, key_file: a client certificate and its key (mode 0400/0600), for brokers that require one.
    :param keepalive_s: MQTT keepalive; a connection silent for 1.5 times this is taken as dead.
    """

    url: str
    username: str | None = None
    password_file: Path | None = None
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    keepalive_s: int = 15

    @property
    def endpoint(self) -> tuple[bool, str, int]:
        """``(tls, host, port)`` of :attr:`url`."""
        return parse_url(self.url)


def parse_url(url: str) -> tuple[bool, str, int]:
    """``(tls, host, port)`` of a broker URL.

    :raises BrokerError: another scheme, no host, a path, or a bad port.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise BrokerError(f"broker URL {url!r}: scheme must be mqtt:// or mqtts://")
    try:
        port = parts.port or SCHEMES[parts.scheme]
    except ValueError as exc:
        raise BrokerError(f"broker URL {url!r}: {exc}") from exc
    if not parts.hostname or parts.path not in ("", "/") or parts.query or parts.username:
        raise BrokerError(f"broker URL {url!r}: expected {parts.scheme}://host:port (credentials go in files)")
    return parts.scheme == "mqtts", parts.hostname, port


def read_secret(path: Path, what: str) -> str:
    """The first line of a secret file readable by its owner only.

    :raises BrokerError: missing, unreadable, empty, or readable or writable by group or others.
    """
    try:
        mode = path.stat().st_mode
        text = read_text(path, SECRET_FILE_LONGEST)  # never waits on a FIFO; bounded; the text policy
    except (OSError, TextError) as exc:
        raise BrokerError(f"{what} file {path}: cannot read: {exc}") from exc
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise BrokerError(f"{what} file {path}: mode {stat.S_IMODE(mode):04o} lets others read it; chmod 0400 {path}")
    secret = text.splitlines()[0].strip() if text.strip() else ""
    if not secret:
        raise BrokerError(f"{what} file {path}: empty")
    return secret


def _check_private(path: Path, what: str) -> None:
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise BrokerError(f"{what} file {path}: cannot read: {exc.strerror or exc}") from exc
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise BrokerError(f"{what} file {path}: mode {stat.S_IMODE(mode):04o} lets others read it; chmod 0400 {path}")


def client(settings: BrokerSettings, client_id: str) -> mqtt.Client:
    """A paho-mqtt (MQTT 5) client with the settings' credentials and TLS, not yet connected.

    :raises BrokerError: a secret or TLS file that cannot be used (named, with why).
    """
    tls, _, _ = settings.endpoint
    made = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    made.on_socket_open = _no_delay
    if settings.username is not None:
        password = read_secret(settings.password_file, "password") if settings.password_file else None
        made.username_pw_set(settings.username, password)
    elif settings.password_file is not None:
        raise BrokerError(f"password file {settings.password_file}: given without a username")
    if (settings.cert_file is None) != (settings.key_file is None):
        raise BrokerError(
            f"client certificate {settings.cert_file}, key {settings.key_file}: "
            "a client certificate needs its key file, and a key its certificate file"
        )
    if settings.key_file is not None:
        _check_private(settings.key_file, "client key")
    if tls:
        made.tls_set_context(_tls_context(settings))
    elif settings.ca_file or settings.cert_file:
        raise BrokerError(f"broker URL {settings.url}: CA and client certificates need mqtts://")
    return made


def _no_delay(made: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Send each packet at once (TCP_NODELAY). MQTT's packets are small and both sides now send
    them both ways (a table its PUBLISHes and the PUBACKs of the floor's acknowledgements, the
    collector its PUBACKs and the acknowledgements): under Nagle's algorithm a PUBLISH behind an
    unanswered PUBACK waits for the peer's delayed ACK, about 40 ms on Linux, at every message."""
    with contextlib.suppress(OSError, AttributeError):  # a socket without TCP options: as it is
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _tls_context(settings: BrokerSettings) -> ssl.SSLContext:
    """The broker's CA (the system's without ``ca_file``) and the client certificate, each bad file named."""
    ca = settings.ca_file
    try:
        context = ssl.create_default_context(cafile=os.fspath(ca) if ca else None)
    except OSError as exc:  # ssl.SSLError is an OSError too
        why = f"no PEM certificate in it ({exc})" if isinstance(exc, ssl.SSLError) else f"cannot read: {exc.strerror}"
        raise BrokerError(f"CA file {ca}: {why}" if ca else f"TLS for {settings.url}: {exc}") from exc
    cert, key = settings.cert_file, settings.key_file
    if cert is None or key is None:
        return context
    for path, what in ((cert, "client certificate"), (key, "client key")):
        try:
            path.read_bytes()
        except OSError as exc:
            raise BrokerError(f"{what} file {path}: cannot read: {exc.strerror or exc}") from exc
    try:
        context.load_cert_chain(cert, key, password=lambda: _encrypted(key))
    except ssl.SSLError as exc:
        if exc.reason == "KEY_VALUES_MISMATCH":
            raise BrokerError(f"client key file {key}: not the key of the client certificate {cert}") from exc
        raise BrokerError(
            f"client certificate file {cert}, key file {key}: cannot load them ({exc}); expected "
            "a PEM certificate and its unencrypted PEM private key"
        ) from exc
    return context


def _encrypted(key: Path) -> str:
    """The pass phrase OpenSSL asks for an encrypted key: none, a table starts unattended."""
    raise BrokerError(
        f"client key file {key}: encrypted with a pass phrase; a table starts unattended, so "
        f"store the key unencrypted and readable by its owner only (chmod 0400 {key})"
    )


def closed_before_connack(settings: BrokerSettings, detail: str | None) -> str:
    """Why a broker closed a connection before its CONNACK, as far as the client can tell.

    Over TLS 1.3 a broker that requires a client certificate checks it only after the client has
    finished its handshake, so a refused certificate shows as a connection closed before CONNACK,
    with the broker's alert (``certificate required``, ``unknown ca``) or, if the client sent its
    CONNECT first, only an EOF.

    :param detail: paho's last error on the socket (:class:`SocketErrors`), if any.
    """
    text = f"broker {settings.url} closed the connection before its CONNACK ({detail or 'no error given'})"
    if not settings.endpoint[0]:
        return text
    text += "; a broker that requires client certificates does this to "
    if settings.cert_file is None:
        return text + "a client without one (cert_file, key_file)"
    return text + f"one it does not accept: is {settings.cert_file} signed by the broker's CA and still valid?"


class SocketErrors:
    """The first error paho logs on a client's connection: why it ended, where paho's disconnect
    reason says only "Unspecified error" (and its later lines only that the socket is gone).

    :param made: the client (its ``on_log`` is taken).
    """

    def __init__(self, made: mqtt.Client) -> None:
        #: The first error since the client was made or :meth:`clear` was called, or None.
        self.first: str | None = None
        made.on_log = self._on_log

    def clear(self) -> None:
        """Forget it (before the client connects again)."""
        self.first = None

    def _on_log(self, client: mqtt.Client, userdata: Any, level: int, text: str) -> None:
        if level == mqtt.MQTT_LOG_ERR and self.first is None:
            self.first = text
