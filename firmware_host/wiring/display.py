"""Wiring of the web display, in the web face: the view, the hub, the journal's follower, the app and its server.

Off unless ``tablehost run --http HOST:PORT`` or the profile's ``[display] listen`` gives an
address (the command line wins); only the web face (:mod:`firmware_host.wiring.webface`) imports
this module. The view is rebuilt from the face file the service writes beside the journal
(:mod:`firmware_host.display.face_file`: what the display may show of each journal record, and
nothing else) before the server starts, and follows it after
(:class:`~firmware_host.display.follow.FaceFollower`), so a restarted display shows the shoe's
roads and the table as they stand. Actions and refused PINs
go to the service over its control socket (``command``, ``refused``): the web face writes nothing.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware_host.config.profiles import TableProfile
from firmware_host.display.actions import REFUSED_META
from firmware_host.display.app import SESSION_COOKIE, build_app
from firmware_host.display.face_file import face_path
from firmware_host.display.follow import FaceFollower
from firmware_host.display.hub import DisplayHub
from firmware_host.display.server import DisplayServer, check_listen, is_loopback, parse_listen
from firmware_host.display.view import view_for
from firmware_host.tables.events import DealerCommand
from firmware_host.web.guard import Policy
from firmware_host.web.pins import Credentials
from firmware_host.web.server import ConnectionLimits
from firmware_host.web.sessions import Sessions

if TYPE_CHECKING:  # a Baccarat display imports nothing of Pai Gow
    from firmware_host.rules.paigow_tiles.rules import PaiGowTileRules

__all__ = ["Display", "build_display", "REFUSED_META"]

log = logging.getLogger("tablehost.display")


@dataclasses.dataclass
class Display:
    """The running display: its hub, the follower that feeds it, and its server."""

    hub: DisplayHub
    server: DisplayServer
    follower: FaceFollower

    @property
    def url(self) -> str:
        """Where the dealer display is served."""
        return self.server.url

    def start(self) -> None:
        """Start following the face file, the hub's thread and the server's."""
        self.follower.start()
        self.hub.start()
        self.server.start()

    def stop(self) -> None:
        """Stop following, end the streams, then stop serving."""
        self.follower.stop()
        self.hub.stop()
        self.server.stop()


def build_display(
    profile: TableProfile,
    journal_path: Path,
    listen: str,
    emit: Callable[[DealerCommand], None],
    refused: Callable[[dict[str, Any]], None],
) -> Display:
    """The display of ``profile``'s table, served at ``listen`` (``HOST:PORT``), its view rebuilt
    from the face file beside the journal at ``journal_path`` (which it does not open).

    :param emit: sends an action to the service (:class:`~firmware_host.display.actions.ActionError`
        when the service refuses its arguments, a :class:`~firmware_host.errors.TablehostError`
        when it cannot be reached).
    :param refused: sends a refusal's summary to the service, which journals it.
    """
    config = profile.display
    host, port = parse_listen(listen)
    pin_files = config.pin_files
    check_listen(host, config.tls, bool(pin_files))
    credentials = Credentials(pin_files) if pin_files else None
    hub = DisplayHub(view_for(profile.game, profile.table_id, config.limits))
    follower = FaceFollower(face_path(journal_path), hub)
    hub.catch_up = follower.sync
    follower.rebuild()
    app = build_app(
        hub,
        profile.game,
        emit,
        credentials,
        refused,
        require_login=not is_loopback(host),
        tiles=_tiles(profile),
        policy=Policy.serving(host, config.allowed_hosts).reads_guarded("/api/"),
        sessions=Sessions(secure=config.tls is not None, name=SESSION_COOKIE),
    )
    limits = ConnectionLimits(trusted_proxies=config.trusted_proxies)
    return Display(hub, DisplayServer(app, host, port, config.tls, limits), follower)


def _tiles(profile: TableProfile) -> _Tiles | None:
    """The tile picker's help of a Pai Gow table (the Rules Submission's tiles); None at Baccarat."""
    if profile.game != "paigow":
        return None
    from firmware_host.config.rules import load_paigow_rules

    return _Tiles(load_paigow_rules(profile.rules, profile.path).tiles)


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
