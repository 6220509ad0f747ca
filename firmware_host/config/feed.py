"""The ``[feed]`` section of a table profile: where the floor feed goes (docs/feed.md).

::

    [feed]
    broker = "mqtts://floor-broker.casino.lan:8883"
    topic_prefix = "tablehost"          # default
    username = "BAC-12"                 # the table id, under the ACL of deploy/mosquitto
    password_file = "/etc/tablehost/feed.password"   # mode 0400/0600
    ca_file = "/etc/tablehost/floor-ca.pem"
    cert_file = "/etc/tablehost/BAC-12.crt"          # optional client certificate ...
    key_file = "/etc/tablehost/BAC-12.key"           # ... and its key (mode 0400/0600)
    signing_key = "/etc/tablehost/feed/BAC-12.key"   # Ed25519, mode 0400 (tablehost feed keygen)
    floor_key = "/etc/tablehost/feed/floor.pub"      # the floor's public key (tablehost floor keygen)
    ack_lag_s = 30                      # the floor's acknowledgement this far behind the broker's: resend
    warn_after_s = 30                   # feed trouble this long shows on the dealer view and lamp
    window = 64                         # messages in flight before a PUBACK

Secrets are never written in the profile: only the paths of files that hold them. Every
message is signed with ``signing_key``; a feed without one does not start. With ``floor_key``
the cursor moves only when the floor's signed acknowledgement says a message is stored;
without it, on the broker's PUBACK as before (the table says so once at start).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware_host.config.profiles import Section

__all__ = ["FeedConfig", "feed_config", "SCHEMES"]

#: Broker URL schemes (plain MQTT, MQTT over TLS).
SCHEMES = ("mqtt://", "mqtts://")


@dataclasses.dataclass(frozen=True)
class FeedConfig:
    """The floor feed's settings (paths already resolved against the profile's folder)."""

    broker: str
    topic_prefix: str = "tablehost"
    username: str | None = None
    password_file: Path | None = None
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    #: The table's Ed25519 private key (mode 0400); required to publish (docs/feed.md, "Signatures").
    signing_key: Path | None = None
    #: The floor's Ed25519 public key(s) (``tablehost floor keygen``): acknowledgements it signs move
    #: the cursor. None: the broker's PUBACK does (docs/feed.md, "Acknowledgement").
    floor_key: Path | None = None
    warn_after_s: float = 30.0
    window: int = 64
    keepalive_s: int = 15
    #: The floor's acknowledgement this long behind the broker's: resend from it, seconds.
    ack_lag_s: float = 30.0


def feed_config(section: Section, relative: Callable[[Path, str | None], Path | None]) -> FeedConfig | None:
    """The ``[feed]`` section, or None when the profile has none (the feed is off).

    :param relative: resolves a path written in the profile (``profiles._relative``).
    """
    if not section.data:
        return None
    url = section.string("broker", None)
    if url is None or not url.startswith(SCHEMES):
        raise section.error("broker", "expected the broker's URL, mqtt://host:port or mqtts://host:port")
    prefix = section.string("topic_prefix", "tablehost")
    if not prefix or any(c in prefix for c in "#+") or prefix.startswith("/") or prefix.endswith("/"):
        raise section.error("topic_prefix", f"{prefix!r} is not a topic prefix (no wildcards, no leading/trailing /)")
    paths = {
        name: relative(section.path, section.string(name, None))
        for name in ("password_file", "ca_file", "cert_file", "key_file", "signing_key", "floor_key")
    }
    if (paths["cert_file"] is None) != (paths["key_file"] is None):
        raise section.error("cert_file", "a client certificate needs its key_file, and a key its cert_file")
    if paths["signing_key"] is None:
        raise section.error(
            "signing_key",
            "expected the table's feed signing key, a file of mode 0400 "
            "(tablehost feed keygen ID); every message to the floor is signed",
        )
    config = FeedConfig(
        broker=url,
        topic_prefix=prefix,
        username=section.string("username", None),
        **paths,
        warn_after_s=section.number("warn_after_s", 30.0, positive=True),
        window=section.integer("window", 64, low=1, high=1000),
        keepalive_s=section.integer("keepalive_s", 15, low=2, high=3600),
        ack_lag_s=section.number("ack_lag_s", 30.0, positive=True),
    )
    section.reject_unknown()
    return config
