"""Wiring of the web display: the view, the hub (an Output of the service), the app and its server.

Off unless ``tablehost run --http HOST:PORT`` or the profile's ``[display] listen`` gives an
address (the command line wins); :mod:`firmware_host.wiring` imports this module only then. The
view is rebuilt from the journal's decisions before the service starts, so a restarted display
shows the shoe's roads and the table as they stand.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from firmware_host.config.profiles import TableProfile
from firmware_host.display.app import SESSION_COOKIE, build_app
from firmware_host.display.hub import DisplayHub
from firmware_host.display.server import DisplayServer, check_listen, is_loopback, parse_listen
from firmware_host.display.view import view_for
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import MONO_KEY
from firmware_host.host.service import Service
from firmware_host.tables.decisions import Decision
from firmware_host.web.guard import Policy
from firmware_host.web.pins import Credentials
from firmware_host.web.server import ConnectionLimits
from firmware_host.web.sessions import Sessions

if TYPE_CHECKING:  # a Baccarat display imports nothing of Pai Gow
    from firmware_host.rules.paigow_tiles.rules import PaiGowTileRules
    from firmware_host.tables.paigow.controller import PaiGowTable

__all__ = ["Display", "build_display", "REFUSED_META"]

log = logging.getLogger("tablehost.display")

#: The journal's meta record of a refused PIN (who tried which action, from where, why).
REFUSED_META = "display_refused"


@dataclasses.dataclass
class Display:
    """The running display: its hub (already an output of the service) and its server."""

    hub: DisplayHub
    server: DisplayServer

    @property
    def url(self) -> str:
        """Where the dealer display is served."""
        return self.server.url

    def start(self) -> None:
        """Start the hub's thread and the server's."""
        self.hub.start()
        self.server.start()

    def stop(self) -> None:
        """End the streams, then stop serving."""
        self.hub.stop()
        self.server.stop()


def build_display(profile: TableProfile, service: Service, journal: Journal, listen: str) -> Display:
    """The display of ``profile``'s table, served at ``listen`` (``HOST:PORT``)."""
    config = profile.display
    host, port = parse_listen(listen)
    pin_files = config.pin_files
    check_listen(host, config.tls, bool(pin_files))
    hub = DisplayHub(
        view_for(profile.game, profile.table_id, config.limits), lambda: service.step_seq, lambda: service.latest_at
    )
    hub.rebuild((r.seq, r.at, Decision(r.type, r.data, r.round)) for r in journal.records() if r.kind == "decision")
    service.outputs.append(hub)
    credentials = Credentials(pin_files) if pin_files else None
    app = build_app(
        hub,
        profile.game,
        service.emit,
        credentials,
        _journal_refusal(journal, service),
        require_login=not is_loopback(host),
        tiles=_tiles(profile, service),
        policy=Policy.serving(host, config.allowed_hosts).reads_guarded("/api/"),
        sessions=Sessions(secure=config.tls is not None, name=SESSION_COOKIE),
    )
    limits = ConnectionLimits(trusted_proxies=config.trusted_proxies)
    return Display(hub, DisplayServer(app, host, port, config.tls, limits))


def _tiles(profile: TableProfile, service: Service) -> _Tiles | None:
    """The tile picker's help of a Pai Gow table (whose controller is a PaiGowTable); None at Baccarat."""
    if profile.game != "paigow":
        return None
    return _Tiles(cast("PaiGowTable", service.controller).rules.tiles)


def _journal_refusal(journal: Journal, service: Service) -> Callable[[dict[str, Any]], None]:
    """Journal a refused PIN as a meta record (never a step: it decides nothing at the table),
    stamped by the service's clocks as its steps are (the monotonic stamp in ``@mono_ns``)."""

    def refused(data: dict[str, Any]) -> None:
        clocks = service.clocks
        stamped = data if clocks is None else {**data, MONO_KEY: clocks.monotonic_ns()}
        journal.append_meta(REFUSED_META, stamped, at=service.clock())

    return refused


@dataclasses.dataclass(frozen=True)
class _Tiles:
    """The Pai Gow tile picker's help, with the table's house way (§ 535.10(d) or its own table).

    Only a Pai Gow table's display has one, so the tiles rules are imported where they are used:
    a Baccarat display imports no Pai Gow rules.
    """

    rules: PaiGowTileRules

    def kinds(self) -> list[dict[str, Any]]:
        from firmware_host.rules.paigow_tiles.tiles import TILE_KINDS

        return [{"text": tile.text, "name": tile.name} for tile in TILE_KINDS]

    def house_way(self, text: str) -> dict[str, Any]:
        from firmware_host.rules.paigow_tiles.houseway import house_way
        from firmware_host.rules.paigow_tiles.tiles import parse_tiles

        setting = house_way(parse_tiles(text, count=4), self.rules)
        return {"text": setting.setting.text, **setting.to_json()}
