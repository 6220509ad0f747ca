"""A real Mosquitto for the tests: its own config, users, ACL, persistence and (optionally) TLS.

:class:`Broker` starts ``/usr/sbin/mosquitto`` on a free loopback port under ``tmp_path``
and stops it at the end; :func:`make_ca` makes a CA and a server certificate with ``openssl``,
and :func:`make_client_cert` a client certificate signed by that CA, for a broker that
requires one (mutual TLS). The ACL is the one of ``deploy/mosquitto/acl`` (a table writes
only under its own id).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "Broker",
    "floor_command",
    "TlsFiles",
    "ClientCert",
    "make_ca",
    "make_client_cert",
    "free_port",
    "MOSQUITTO",
    "write_secret",
]

MOSQUITTO = "/usr/sbin/mosquitto"
#: The ACL the deploy files ship (deploy/mosquitto/acl).
ACL = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto" / "acl"
#: Days the test certificates are valid.
DAYS = "2"


def floor_command(
    broker_url: str,
    db: str | Path | Sequence[str],
    *options: str,
    keys: Path | None = None,
    floor_key: Path | None | str = "beside",
) -> list[str]:
    """The argv of ``tablehost floor`` collecting from ``broker_url`` into ``db``, for a child process.

    :param db: the floor database's path or DSN, or its whole ``--db ...`` arguments.
    :param options: further arguments (``--client-id``, ``--http``, ``-v``, ...).
    :param keys: the tables' public keys (``--keys``); None: ``--unsigned``.
    :param floor_key: the floor's private key (``--floor-key``); by default the one
        :func:`~bench.floor.tables.provision_floor` keeps beside ``keys`` (the tables' ``floor_key``
        of :func:`~bench.floor.tables.table_profile`); None: the collector acknowledges nothing.
    """
    db_args = ["--db", str(db)] if isinstance(db, str | Path) else list(db)
    signed = ["--keys", str(keys)] if keys is not None else ["--unsigned"]
    if floor_key == "beside" and keys is not None:
        from bench.floor.tables import provision_floor

        floor_key = provision_floor(keys.parent)
    if isinstance(floor_key, Path):
        signed += ["--floor-key", str(floor_key)]
    return [sys.executable, "-m", "firmware_host", "floor", "--broker", broker_url, *db_args, *signed, *options]


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_secret(path: Path, text: str) -> Path:
    """A file only its owner can read (mode 0600), as secrets must be."""
    path.write_text(text + "\n")
    path.chmod(0o600)
    return path


@dataclasses.dataclass(frozen=True)
class TlsFiles:
    """A CA (its certificate and key) and a server certificate for ``localhost`` / ``127.0.0.1``."""

    ca: Path
    cert: Path
    key: Path
    ca_key: Path


@dataclasses.dataclass(frozen=True)
class ClientCert:
    """A client certificate and its key (mode 0600)."""

    cert: Path
    key: Path


def _openssl(*args: str | Path) -> None:
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True)


def _signed(ca: Path, ca_key: Path, directory: Path, stem: str, cn: str, extensions: str) -> tuple[Path, Path]:
    """``(certificate, key)`` for ``cn``: a P-256 key and a certificate the CA signed, with ``extensions``."""
    cert, key, csr, ext = (directory / f"{stem}.{suffix}" for suffix in ("crt", "key", "csr", "ext"))
    ext.write_text(extensions)
    _openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-subj",
        f"/CN={cn}",
        "-keyout",
        key,
        "-out",
        csr,
    )
    _openssl(
        "x509",
        "-req",
        "-in",
        csr,
        "-CA",
        ca,
        "-CAkey",
        ca_key,
        "-CAcreateserial",
        "-days",
        DAYS,
        "-extfile",
        ext,
        "-out",
        cert,
    )
    key.chmod(0o600)
    return cert, key


def make_ca(directory: Path) -> TlsFiles:
    """Make a CA and a server certificate signed by it, with ``openssl``."""
    directory.mkdir(parents=True, exist_ok=True)
    ca, ca_key = directory / "ca.crt", directory / "ca.key"
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        DAYS,
        "-subj",
        "/CN=tablehost test CA",
        "-keyout",
        ca_key,
        "-out",
        ca,
    )
    cert, key = _signed(
        ca,
        ca_key,
        directory,
        "server",
        "localhost",
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    return TlsFiles(ca, cert, key, ca_key)


def make_client_cert(tls: TlsFiles, directory: Path, cn: str) -> ClientCert:
    """A client certificate for ``cn`` (the MQTT user name under ``use_identity_as_username``),
    signed by the CA of ``tls``, as ``<cn>.crt`` and ``<cn>.key`` in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    return ClientCert(
        *_signed(tls.ca, tls.ca_key, directory, cn, cn, "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
    )


class Broker:
    """A Mosquitto under ``directory``.

    :param users: user name -> password (None: anonymous access, no ACL).
    :param persistence: keep sessions and queued messages across a restart.
    :param tls: serve TLS with these files instead of plain MQTT.
    :param require_certificate: refuse a client without a certificate signed by the CA of ``tls`` (mutual TLS).
    :param use_identity_as_username: the certificate's CN is the client's user name, no password
        (needs ``require_certificate``; the ACL applies to the CN, ``users`` must be None).
    """

    def __init__(
        self,
        directory: Path,
        *,
        users: dict[str, str] | None = None,
        persistence: bool = True,
        tls: TlsFiles | None = None,
        require_certificate: bool = False,
        use_identity_as_username: bool = False,
    ) -> None:
        if require_certificate and tls is None:
            raise ValueError("require_certificate needs tls")
        if use_identity_as_username and (not require_certificate or users is not None):
            raise ValueError("use_identity_as_username needs require_certificate and no users")
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.persistence, self.tls, self.users = persistence, tls, users
        self.require_certificate, self.use_identity_as_username = require_certificate, use_identity_as_username
        self.port = free_port()
        self.log = directory / "mosquitto.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._write_config()

    @property
    def url(self) -> str:
        """The broker's URL."""
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """The running broker's pid (None when stopped)."""
        return self._process.pid if self._process is not None else None

    def _write_config(self) -> None:
        lines = [
            f"listener {self.port} 127.0.0.1",
            "user root",
            f"log_dest file {self.log}",
            "log_type all",
            "max_queued_messages 0",
            "max_inflight_messages 100",
            "set_tcp_nodelay true",  # as deploy/mosquitto/tablehost.conf
            f"persistence {'true' if self.persistence else 'false'}",
        ]
        if self.persistence:
            (self.directory / "data").mkdir(exist_ok=True)
            lines.append(f"persistence_location {self.directory / 'data'}/")
        if self.use_identity_as_username:
            lines += ["allow_anonymous false", "use_identity_as_username true", f"acl_file {ACL}"]
        elif self.users is None:
            lines.append("allow_anonymous true")
        else:
            passwords = self.directory / "passwords"
            passwords.write_text("")
            for user, password in self.users.items():
                subprocess.run(
                    ["mosquitto_passwd", "-b", str(passwords), user, password], check=True, capture_output=True
                )
            lines += ["allow_anonymous false", f"password_file {passwords}", f"acl_file {ACL}"]
        if self.tls is not None:
            lines += [
                f"cafile {self.tls.ca}",
                f"certfile {self.tls.cert}",
                f"keyfile {self.tls.key}",
                f"require_certificate {'true' if self.require_certificate else 'false'}",
            ]
        (self.directory / "mosquitto.conf").write_text("\n".join(lines) + "\n")

    def start(self) -> Broker:
        """Start it and wait until it listens."""
        assert self._process is None
        self._process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.directory / "mosquitto.conf")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self._process.stderr.read().decode()} {self._log_tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on {self.port}: {self._log_tail()}")

    def stop(self) -> None:
        """Stop it the way systemd does (SIGTERM: it saves its persistence file)."""
        if self._process is None:
            return
        self._process.send_signal(signal.SIGTERM)
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    def kill(self) -> None:
        """SIGKILL it, as a crash or a power cut would end it: nothing saved since its last autosave."""
        if self._process is None:
            return
        self._process.kill()
        self._process.wait()
        self._process = None

    def restart(self) -> None:
        """Stop and start it again on the same port."""
        self.stop()
        self.start()

    def _log_tail(self) -> str:
        return self.log.read_text()[-2000:] if self.log.exists() else ""

    def __enter__(self) -> Broker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def have_mosquitto() -> bool:
    """Whether the Debian ``mosquitto`` package is installed (``make deps``)."""
    return os.access(MOSQUITTO, os.X_OK) and shutil.which("mosquitto_passwd") is not None
