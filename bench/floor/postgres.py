"""A real PostgreSQL for the tests and the floor soak: ``initdb`` in its own directory, a server
on a free loopback port, stopped at the end.

:class:`Postgres` runs the Debian package's binaries (``/usr/lib/postgresql/N/bin``, the newest
``N``). PostgreSQL refuses to run as root, and CI runs as root, so there the cluster belongs to
the package's ``postgres`` user and every server command runs as that user (``runuser``). The
server listens on 127.0.0.1 only, with password authentication (``scram-sha-256``) for the one
superuser the rig creates, and a socket directory of its own: nothing of the machine's own
clusters (if any) is touched. ``fsync`` is off: a test's database is thrown away, and
durability is the server's own business, not what the tests prove.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

from bench.feed.broker import free_port, write_secret

__all__ = ["Postgres", "have_postgres", "bindir"]

#: Where the Debian packages put each major version's server binaries.
PACKAGE_ROOT = Path("/usr/lib/postgresql")
#: The Debian package's system user, which owns the cluster when the rig runs as root.
SYSTEM_USER = "postgres"
#: The rig's superuser (its password is random, in :attr:`Postgres.password_file`).
USER = "tablehost"
#: Seconds the server may take to accept connections.
START_S = 30.0


def bindir() -> Path | None:
    """The newest installed server's binaries, or None when the package is not installed."""
    found = sorted(
        (path for path in PACKAGE_ROOT.glob("*/bin") if (path / "postgres").exists()),
        key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
    )
    return found[-1] if found else None


def have_postgres() -> bool:
    """Whether the Debian package ``postgresql`` is installed (``make deps`` installs it)."""
    return bindir() is not None and (os.geteuid() != 0 or _system_user() is not None)


def _system_user() -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        return None


class Postgres:
    """One throw-away PostgreSQL cluster and its server; a context manager.

    :param directory: created for the cluster; None: a new one under the system's temporary
        directory (which the ``postgres`` user can reach, unlike pytest's ``tmp_path`` as root).
    """

    def __init__(self, directory: Path | None = None) -> None:
        binaries = bindir()
        if binaries is None:
            raise RuntimeError("PostgreSQL is not installed (make deps installs the Debian package postgresql)")
        self.bin = binaries
        self._made_directory = directory is None
        self.directory = Path(tempfile.mkdtemp(prefix="tablehost-pg-")) if directory is None else directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.data = self.directory / "data"
        self.sockets = self.directory / "sockets"
        self.log = self.directory / "server.log"
        self.port = free_port()
        self.password = secrets.token_urlsafe(18)
        #: The DSN's password as a secrets file (mode 0600), as ``tablehost floor`` reads it.
        self.password_file = write_secret(self.directory / "password", self.password)
        self._as_root = os.geteuid() == 0

    # -- the DSN ---------------------------------------------------------------------------

    @property
    def dsn(self) -> str:
        """A libpq URL for the rig's database, without its password."""
        return f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"

    @property
    def dsn_with_password(self) -> str:
        """The DSN with the password in it (for the tests' own connections, never a command line)."""
        return f"postgresql://{USER}:{self.password}@127.0.0.1:{self.port}/postgres"

    # -- the server ------------------------------------------------------------------------

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = list(args)
        if self._as_root:
            command = ["runuser", "-u", SYSTEM_USER, "--", *command]
        return subprocess.run(command, check=True, capture_output=True, text=True, timeout=120)

    def _hand_over(self) -> None:
        """As root, the cluster's directories belong to the ``postgres`` user (the password file stays root's)."""
        if not self._as_root:
            return
        user = _system_user()
        assert user is not None
        for path in (self.directory, self.sockets):
            os.chown(path, user.pw_uid, user.pw_gid)

    def start(self) -> Postgres:
        """``initdb`` and start the server; return once it accepts connections."""
        self.sockets.mkdir(exist_ok=True)
        self._hand_over()
        pwfile = self.directory / "initdb-password"
        pwfile.write_text(self.password + "\n")
        if self._as_root:
            user = _system_user()
            assert user is not None
            os.chown(pwfile, user.pw_uid, user.pw_gid)
        pwfile.chmod(0o600)
        try:
            self._run(
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                USER,
                "--pwfile",
                str(pwfile),
                "--auth-local=scram-sha-256",
                "--auth-host=scram-sha-256",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
            )
        finally:
            pwfile.unlink()
        self._start_server()
        return self

    def _start_server(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.sockets} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "-t",
            str(int(START_S)),
            "start",
        )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_S
        while True:
            ready = subprocess.run(
                [str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                capture_output=True,
                check=False,
            )
            if ready.returncode == 0:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL did not accept connections in {START_S} s; see {self.log}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove the rig's directory if it made it."""
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
                self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        if self._made_directory:
            shutil.rmtree(self.directory, ignore_errors=True)

    def restart(self) -> None:
        """Stop and start the server on the same port and data (a database outage)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        self._start_server()

    def __enter__(self) -> Postgres:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
