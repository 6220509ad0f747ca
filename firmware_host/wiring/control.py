"""The service's side of the control socket: what the web face may ask of the table.

The web face (:mod:`firmware_host.wiring.webface`) runs in a process of its own and holds no
key; it asks the service over a Unix socket (:class:`~firmware_host.web.control.ControlServer`:
bounded JSON messages, typed fields, ``SO_PEERCRED`` checked against :func:`allowed_uids`,
refusals counted and rate-limited). The ops, each answered on the server's thread, never the
service loop's:

- ``command`` ``{command: str, args: dict | null, role: str}``: a dealer action whose PIN the web
  face has checked; checked again here (:func:`~firmware_host.display.actions.command_for`) and
  emitted as the :class:`~firmware_host.tables.events.DealerCommand` the buttons send (device
  ``display:<role>``), so the journal's input records are those of before the split;
- ``refused`` ``{data: dict}``: a refused request's record or a minute's summary
  (:class:`~firmware_host.web.refusals.Refusals`), journaled as a ``display_refused`` meta record;
- ``metrics`` ``{}``: the table's Prometheus exposition (public and protection counts) when
  metrics are configured;
- ``status`` ``{}``: whether the table stopped on its journal (and why), its steps and last seq.
"""

from __future__ import annotations

import os
import pwd
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware_host.display.actions import REFUSED_META, ROLES, ActionError, command_for
from firmware_host.errors import JournalError, TablehostError
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import MONO_KEY
from firmware_host.host.service import Service
from firmware_host.text import problem

if TYPE_CHECKING:
    from firmware_host.metrics.table import TableMetrics
    from firmware_host.web.control import ControlServer, Op, Peer

__all__ = ["control_server", "control_ops", "allowed_peers", "REFUSED_META", "MAX_REFUSED_KEYS"]

#: Most keys of a refusal's record (a summary has six).
MAX_REFUSED_KEYS = 8


def allowed_peers(web_user: str | None) -> tuple[frozenset[int], int | None]:
    """The uids that may connect (the service's own, and ``web_user``'s) and the group the socket
    file is given: ``web_user``'s primary group, unless ``web_user`` is in this process's group
    already (deploy/: ``tablehost-web`` is in the group ``tablehost``, which reads the face file
    and the profile; the journal is the service user's alone); None without a web user.

    :raises TablehostError: ``web_user`` is no user of this machine.
    """
    if web_user is None:
        return frozenset({os.getuid()}), None
    try:
        user = pwd.getpwnam(web_user)
    except KeyError:
        raise TablehostError(f"web user {web_user!r}: no such user on this machine") from None
    shares = os.getgid() in os.getgrouplist(web_user, user.pw_gid)
    return frozenset({os.getuid(), user.pw_uid}), None if shares else user.pw_gid


#: What a web face, even one taken over, can make the service journal, as (per second, bucket):
#: dealer actions (a dealer presses a few buttons a second, and each is an input record), and
#: refusal summaries (the web face sends one an address a minute); the reads (``metrics``: the
#: web face keeps an answer a second; ``status``: asked every 0.25 s) journal nothing.
COMMAND_RATE = (10.0, 20)
REFUSED_RATE = (5.0, 50)
READ_RATE = (20.0, 20)


def control_ops(
    game: str, service: Service, journal: Journal, counted: TableMetrics | None, told: threading.Event | None = None
) -> dict[str, Op]:
    """The ops of the control socket (see the module's docstring); ``told`` is set once ``status``
    has said the table stopped on its journal (the table's stop waits a moment for it)."""
    from firmware_host.web.control import Op

    def command(fields: dict[str, Any], peer: Peer) -> dict[str, Any]:
        role = fields["role"]
        if role not in ROLES:
            return {"ok": False, "error": f"role is one of {', '.join(ROLES)}", "refused": "arguments"}
        try:
            event = command_for(game, fields["command"], fields["args"], role)
        except ActionError as exc:
            return {"ok": False, "error": str(exc), "refused": "arguments"}
        service.emit(event)
        return {"ok": True}

    def refused(fields: dict[str, Any], peer: Peer) -> dict[str, Any]:
        data = fields["data"]
        if len(data) > MAX_REFUSED_KEYS or any(problem(key, 32) for key in data) or MONO_KEY in data:
            return {"ok": False, "error": f"a refusal has at most {MAX_REFUSED_KEYS} keys, texts of 32 characters"}
        clocks = service.clocks
        stamped = data if clocks is None else {**data, MONO_KEY: clocks.monotonic_ns()}
        try:
            journal.append_meta(REFUSED_META, stamped, at=service.clock())
        except JournalError as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True}

    def metrics(fields: dict[str, Any], peer: Peer) -> dict[str, Any]:
        if counted is None:
            return {"ok": False, "error": "this table serves no metrics"}
        from firmware_host.metrics.relay import exposition

        return {"ok": True, "public": exposition(counted.registry), "protection": exposition(counted.protection)}

    def status(fields: dict[str, Any], peer: Peer) -> dict[str, Any]:
        halted = service.halted
        if halted is not None and told is not None:
            told.set()
        return {"ok": True, "halted": halted, "steps": service.steps, "last_seq": journal.last_seq}

    return {
        "command": Op({"command": str, "args": (dict, type(None)), "role": str}, command, *COMMAND_RATE),
        "refused": Op({"data": dict}, refused, *REFUSED_RATE),
        "metrics": Op({}, metrics, *READ_RATE),
        "status": Op({}, status, *READ_RATE),
    }


def control_server(
    path: Path,
    game: str,
    service: Service,
    journal: Journal,
    counted: TableMetrics | None,
    web_user: str | None,
    told: threading.Event | None = None,
) -> ControlServer:
    """The control socket at ``path`` (not started), open to this process's uid and ``web_user``'s
    (see :func:`allowed_peers`)."""
    from firmware_host.web.control import ControlServer

    uids, group = allowed_peers(web_user)
    return ControlServer(path, allowed_uids=uids, ops=control_ops(game, service, journal, counted, told), group=group)
