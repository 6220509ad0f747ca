"""Wiring of the floor feed: a :class:`~firmware_host.feed.publisher.FeedPublisher` from ``[feed]``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TextIO

from drivers.events import DeviceEvent
from firmware_host import __version__
from firmware_host.config.profiles import TableProfile
from firmware_host.feed.broker import BrokerSettings, client
from firmware_host.feed.cursor import FeedCursor
from firmware_host.feed.publisher import FeedPublisher
from firmware_host.feed.warning import FeedTrouble, TroubleLamp
from firmware_host.host.journal import Journal

__all__ = ["build_feed"]

log = logging.getLogger("tablehost.feed")


def build_feed(
    profile: TableProfile, journal: Journal, stream: TextIO, panel: Any, emit: Callable[[DeviceEvent], None]
) -> tuple[FeedPublisher | None, Any]:
    """The table's publisher (None without ``[feed]``) and the panel its lamp output should drive.

    :param panel: the GPIO panel (None without one); with a feed it is wrapped in a :class:`TroubleLamp`.
    :param emit: the service's event queue: feed trouble is journaled.
    """
    config = profile.feed
    if config is None:
        return None, panel
    settings = BrokerSettings(
        config.broker,
        config.username,
        config.password_file,
        config.ca_file,
        config.cert_file,
        config.key_file,
        config.keepalive_s,
    )
    client(settings, profile.table_id)  # a bad URL, secret or TLS file is an error now, not on the feed's thread
    from firmware_host.feed.signing import Signer, SigningKeyError, load_public_keys  # cryptography: only with a feed

    if config.signing_key is None:
        raise SigningKeyError(
            "[feed] signing_key: the floor feed signs every message; give the table's key (tablehost feed keygen ID)"
        )
    signer = Signer.from_file(config.signing_key)
    floor_keys = None
    if config.floor_key is not None:
        floor_keys = load_public_keys(config.floor_key)  # a bad file: one line naming it, exit 2
    else:
        log.warning(
            "feed %s: [feed] names no floor_key: the cursor moves when the broker takes a message "
            "(PUBACK), not when the floor stores it, so a broker crash can lose what it held "
            "(docs/feed.md, Acknowledgement)",
            profile.table_id,
        )
    lamp = TroubleLamp(panel) if panel is not None else None
    publisher = FeedPublisher(
        journal,
        FeedCursor(journal.path, profile.table_id),
        settings,
        signer,
        table_id=profile.table_id,
        game=profile.game,
        version=__version__,
        topic_prefix=config.topic_prefix,
        window=config.window,
        warn_after_s=config.warn_after_s,
        ack_timeout_s=2.0 * config.keepalive_s,
        on_trouble=FeedTrouble(stream, profile.table_id, lamp, emit),
        floor_keys=floor_keys,
        ack_lag_s=config.ack_lag_s,
    )
    return publisher, (lamp if lamp is not None else panel)
