"""The ``[metrics]`` table of a table profile: where Prometheus scrapes the table.

::

    [metrics]
    listen = "127.0.0.1:9464"        # off unless given here or by `tablehost run --metrics`
    tls_cert = "/etc/tablehost/metrics.crt"   # required with an address off loopback
    tls_key = "/etc/tablehost/metrics.key"
    allowed_hosts = ["table-12.floor.example"]  # names Prometheus reaches it by (the Host header)
    users_file = "/etc/tablehost/metrics.users"  # its scrapers (or client_ca): required off loopback
    client_ca = "/etc/tablehost/scrapers-ca.crt"  # mutual TLS: scrapers' client certificates

The metrics hold no card. Off loopback they need TLS and HTTP Basic credentials of a scraper in
the users file (``tablehost floor user add NAME --role monitoring|surveillance --users-file F``);
the counts of advantage windows, which a player's partner on the network must not read live,
are served to a ``surveillance`` scraper only (docs/security.md).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_host.config.display import host_names

if TYPE_CHECKING:
    from firmware_host.config.profiles import Section

__all__ = ["MetricsConfig", "metrics_config"]


@dataclasses.dataclass(frozen=True)
class MetricsConfig:
    """What ``[metrics]`` says (paths resolved against the profile's folder)."""

    listen: str | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    allowed_hosts: tuple[str, ...] = ()
    users_file: Path | None = None
    client_ca: Path | None = None

    @property
    def tls(self) -> tuple[Path, Path] | None:
        """``(certificate, key)`` when both are given."""
        return None if self.tls_cert is None or self.tls_key is None else (self.tls_cert, self.tls_key)


def metrics_config(section: Section, profile_path: Path) -> MetricsConfig:
    """Read ``[metrics]``; :class:`~firmware_host.errors.ProfileError` naming the key if it is wrong."""
    base = profile_path.resolve().parent

    def path(name: str) -> Path | None:
        value = section.string(name, None)
        return None if value is None else (base / value).resolve()

    config = MetricsConfig(
        listen=section.string("listen", None),
        tls_cert=path("tls_cert"),
        tls_key=path("tls_key"),
        allowed_hosts=host_names(section),
        users_file=path("users_file"),
        client_ca=path("client_ca"),
    )
    if (config.tls_cert is None) != (config.tls_key is None):
        raise section.error("tls_cert" if config.tls_cert is None else "tls_key", "give both tls_cert and tls_key")
    section.reject_unknown()
    return config
