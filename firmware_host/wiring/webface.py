"""The table's web face: the dealer display, the scoreboard and ``/metrics``, beside the service.

The web face faces the network, so it holds nothing the table's trust rests on: no journal
key, no feed signing key, and cannot read the journal. It reads the face file the service writes
beside it (what the display may show, :mod:`firmware_host.display.face_file`; the display's view
follows it: :class:`~firmware_host.display.follow.FaceFollower`), checks the PINs (its
own files), and asks the service the rest over the service's control socket
(:mod:`firmware_host.wiring.control`: ``command``, ``refused``, ``metrics``). ``tablehost run``
runs it as a child process (:class:`~firmware_host.wiring.child.WebFaceChild`, restarted when
it dies), or systemd as a unit of its own, under its own user (``--web-face external``,
``deploy/systemd/tablehost-web.service``); tests and benches may run it in the service's process
(``web_face="thread"``), still over the socket.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware_host.config.profiles import TableProfile
from firmware_host.display.actions import ActionError
from firmware_host.display.face import halted_text
from firmware_host.display.follow import Background
from firmware_host.errors import TablehostError
from firmware_host.tables.decisions import HALTED, Decision
from firmware_host.tables.events import DealerCommand

if TYPE_CHECKING:
    from firmware_host.metrics.server import MetricsServer
    from firmware_host.web.control import ControlClient
    from firmware_host.wiring.display import Display

__all__ = ["WebFace", "build_webface", "WebFaceError"]

log = logging.getLogger("tablehost.webface")

#: Seconds between the web face's questions whether the table stopped on its journal.
HALT_POLL_S = 0.25


class WebFaceError(TablehostError):
    """The service refused what the web face sent it (not for its arguments)."""


@dataclasses.dataclass
class WebFace:
    """The web face's servers: the display (``--http``) and ``/metrics`` (``--metrics``), either may be off."""

    display: Display | None
    metrics: MetricsServer | None
    watch: HaltWatch | None = None

    def start(self) -> None:
        """Start serving."""
        if self.display is not None:
            self.display.start()
        if self.metrics is not None:
            self.metrics.start()
        if self.watch is not None:
            self.watch.start()

    def stop(self) -> None:
        """Stop serving."""
        if self.watch is not None:
            self.watch.stop()
        if self.display is not None:
            self.display.stop()
        if self.metrics is not None:
            self.metrics.stop()

    def urls(self) -> dict[str, str]:
        """Where each server listens (``display``, ``metrics``), once started."""
        found = {"display": self.display.url if self.display is not None else None}
        if self.metrics is not None:
            found["metrics"] = self.metrics.url
        return {name: url for name, url in found.items() if url is not None}


def build_webface(
    profile: TableProfile, journal_path: Path, socket_path: Path, http: str | None = None, metrics: str | None = None
) -> WebFace:
    """The web face of ``profile``'s table (not started): the display at ``http`` or the profile's
    ``[display] listen``, ``/metrics`` at ``metrics`` or its ``[metrics] listen``; each off without
    an address. The service is asked over the control socket at ``socket_path``.

    :raises TablehostError: a server cannot be built as configured (one line naming why).
    """
    from firmware_host.web.control import ControlClient

    client = ControlClient(socket_path)
    display = watch = None
    listen = http or profile.display.listen
    if listen is not None:
        from firmware_host.wiring.display import build_display

        display = build_display(profile, journal_path, listen, _emitter(client), _refuser(client))
        watch = HaltWatch(client, display)
    return WebFace(display, _metrics(profile, client, metrics), watch)


class HaltWatch(Background):
    """Asks the service every :data:`HALT_POLL_S` seconds whether it stopped on its journal (the
    ``status`` op), and puts the banner on the display when it did: a journal that cannot be
    written may not take the service's ``halted`` record, which the follower would show."""

    name = "halt-watch"

    def __init__(self, client: ControlClient, display: Display) -> None:
        super().__init__()
        self.client, self.display = client, display

    def _run(self) -> None:
        while not self._stopping.wait(HALT_POLL_S):
            try:
                reply = self.client.request("status")
            except TablehostError:
                continue  # the service is restarting: the journal's record says why, if it could take it
            reason = reply.get("halted")
            if isinstance(reason, str):
                self.display.follower.sync(1.0)  # everything journaled before the halt, first
                text = halted_text(reason)
                self.display.hub.feed(
                    int(reply.get("last_seq", 0)), [Decision(HALTED, {"reason": reason, "text": text})], time.time()
                )
                return


def _metrics(profile: TableProfile, client: ControlClient, listen: str | None) -> MetricsServer | None:
    config = profile.metrics
    listen = listen or config.listen
    if listen is None:
        return None
    from firmware_host.metrics.relay import MetricsRelay
    from firmware_host.metrics.server import MetricsServer

    relay = MetricsRelay(lambda: client.request("metrics"))
    return MetricsServer(
        relay.registry,
        listen,
        config.tls,
        config.allowed_hosts,
        protection=relay.protection,
        users_file=config.users_file,
        client_ca=config.client_ca,
    )


def _emitter(client: ControlClient) -> Any:
    """An action (its PIN checked) to the service: the ``command`` op."""

    def emit(command: DealerCommand) -> None:
        role = command.device.partition(":")[2]
        reply = client.request("command", command=command.command, args=command.args, role=role)
        if not reply.get("ok"):
            if reply.get("refused") == "arguments":
                raise ActionError(str(reply.get("error")))
            raise WebFaceError(f"the service refused it: {reply.get('error')}")

    return emit


def _refuser(client: ControlClient) -> Any:
    """A refusal's record to the service, which journals it: the ``refused`` op (a failure is logged)."""

    def refused(data: dict[str, Any]) -> None:
        try:
            reply = client.request("refused", data=data)
        except TablehostError as exc:
            log.warning("web face: a refusal could not be journaled: %s", exc)
            return
        if not reply.get("ok"):
            log.warning("web face: the service did not journal a refusal: %s", reply.get("error"))

    return refused
