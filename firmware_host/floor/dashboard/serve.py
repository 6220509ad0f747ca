"""The dashboard's server, as ``tablehost floor dashboard --db PATH|DSN --http HOST:PORT --http-dir DIR``
starts it in a process of its own (also started by ``tablehost floor --http``).

``DIR`` holds the users file, ``users`` (written by ``tablehost floor user add NAME --role
surveillance|pit --http-dir DIR``: each user's own hashed secret and role; at least one user),
and, to listen where other machines can reach, ``tls.crt`` and ``tls.key``. As the table's
display: loopback unless TLS files are there (:func:`check_listen`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from firmware_host.floor.dashboard.app import SESSION_COOKIE, build_app
from firmware_host.floor.dashboard.floor import Floor
from firmware_host.floor.dashboard.follow import FALLBACK_S, Follower
from firmware_host.floor.dashboard.tables import ROLES
from firmware_host.floor.dashboard.views import ViewLog
from firmware_host.floor.model import DEFAULT_SKEW_BOUND_S
from firmware_host.floor.store_sql import SqlStore
from firmware_host.web.guard import Policy
from firmware_host.web.server import ConnectionLimits, WebError, WebServer, is_loopback, parse_listen
from firmware_host.web.sessions import Sessions
from firmware_host.web.users import Users, read_users

__all__ = ["Dashboard", "check_listen", "load_users", "USERS_FILE"]

#: The users file's name in the dashboard's directory.
USERS_FILE = "users"


def load_users(directory: Path) -> Users:
    """The users of ``directory``'s users file (:class:`WebError` when there is none)."""
    found = read_users(directory / USERS_FILE, ROLES)  # an unusable line: one line naming it
    if not found:
        raise WebError(
            f"floor dashboard: {directory / USERS_FILE} holds no user (add one with "
            f"`tablehost floor user add NAME --role surveillance --http-dir {directory}`)"
        )
    return Users(found)


def check_listen(host: str, directory: Path) -> tuple[Path, Path] | None:
    """The TLS files to serve with; :class:`WebError` for an address other machines can reach without them."""
    tls = directory / "tls.crt", directory / "tls.key"
    if all(path.is_file() for path in tls):
        return tls
    if not is_loopback(host):
        raise WebError(
            f"floor dashboard on {host}, which other machines can reach, needs {tls[0]} and {tls[1]}; "
            "or listen on 127.0.0.1"
        )
    return None


class _ViewStore:
    """The floor's store opened to write the view log, in the thread that first needs it."""

    def __init__(self, open_writer: Callable[[], SqlStore]) -> None:
        self.open_writer = open_writer
        self.store: SqlStore | None = None
        self._lock = threading.Lock()

    def _opened(self) -> SqlStore:
        if self.store is None:
            self.store = self.open_writer()
        return self.store

    def add(self, rows: Iterable[Any]) -> None:
        with self._lock:  # one connection, one transaction at a time
            self._opened().add_views(rows)

    def read(self) -> list[dict[str, Any]]:
        with self._lock:
            return self._opened().views(limit=1000)

    def close(self) -> None:
        with self._lock:
            if self.store is not None:
                self.store.close()
                self.store = None


class Dashboard:
    """The floor dashboard: the store followed, the app, uvicorn in a thread.

    :param listen: ``HOST:PORT``.
    :param open_store: opens the floor's store to read.
    :param directory: the users file (and the TLS files).
    :param open_writer: opens the floor's store to write the view log (``open_store`` if not given).
    :param poll_s: seconds between passes over the store.
    :param fallback_s: on a store that notifies its commits, seconds between two looks at every
        table all the same (:class:`~firmware_host.floor.dashboard.follow.Follower`).
    :param limits: the protocol's limits.
    """

    def __init__(
        self,
        listen: str,
        open_store: Callable[[], SqlStore],
        directory: Path,
        *,
        open_writer: Callable[[], SqlStore] | None = None,
        poll_s: float = 0.5,
        limits: ConnectionLimits = ConnectionLimits(),
        skew_bound_s: float = DEFAULT_SKEW_BOUND_S,
        fallback_s: float = FALLBACK_S,
    ) -> None:
        host, port = parse_listen(listen)
        tls = check_listen(host, directory)
        self.users = users = load_users(directory)  # an unusable file: one line
        self.floor = Floor(open_store, poll_s, skew_bound_s, follower=Follower(fallback_s))
        self.view_store = _ViewStore(open_writer or open_store)
        self.views = ViewLog(self.view_store.add)
        self.app = build_app(
            self.floor,
            users,
            self.views,
            self.view_store.read,
            policy=Policy.serving(host).reads_guarded("/api/"),
            sessions=Sessions(secure=tls is not None, name=SESSION_COOKIE),
        )
        self.server = WebServer(self.app, host, port, tls, limits, name="floor dashboard")

    @property
    def url(self) -> str:
        """The base URL."""
        return self.server.url

    def start(self) -> None:
        """Poll the store and serve."""
        self.floor.start()
        self.server.start()

    def stop(self) -> None:
        """Stop serving and polling."""
        self.floor.end_streams()
        time.sleep(0.1)  # the streams' last bytes go out before uvicorn's graceful shutdown begins
        self.server.stop()
        self.floor.stop()
        self.views.close()  # every view counted, written
        self.view_store.close()
