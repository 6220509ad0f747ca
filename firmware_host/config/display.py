"""The ``[display]`` table of a table profile: the web display's address, TLS, PINs and limits.

::

    [display]
    listen = "127.0.0.1:8080"        # off unless given here or by `tablehost run --http`
    tls_cert = "/etc/tablehost/display.crt"   # required with an address off loopback
    tls_key = "/etc/tablehost/display.key"
    dealer_pin_file = "/var/lib/tablehost/dealer.pin"        # hashed: `tablehost display pin`
    supervisor_pin_file = "/var/lib/tablehost/supervisor.pin"
    limits = { min = 2500, max = 500000 }   # cents, shown on the scoreboard
    allowed_hosts = ["table-12.floor.example"]  # names the display is reached by (the Host header)
    trusted_proxies = ["10.0.0.2"]   # whose X-Forwarded-For is believed; none by default
    web_user = "tablehost-web"      # the user the web face runs as (let in at the control socket)

A PIN is never written in the profile: only the files holding its hash.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware_host.config.profiles import Section

__all__ = ["DisplayConfig", "display_config", "host_names"]

#: A host name as a Host header may carry it (RFC 1123 labels).
_HOST_NAME = re.compile(r"(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*")


#: A system user's name (``useradd``'s rule).
_USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")


@dataclasses.dataclass(frozen=True)
class DisplayConfig:
    """What ``[display]`` says (paths resolved against the profile's folder)."""

    listen: str | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    dealer_pin_file: Path | None = None
    supervisor_pin_file: Path | None = None
    limits: dict[str, int] | None = None
    allowed_hosts: tuple[str, ...] = ()
    trusted_proxies: tuple[str, ...] = ()
    #: The user the web face runs as, whose uid the control socket lets in besides the service's.
    web_user: str | None = None

    @property
    def tls(self) -> tuple[Path, Path] | None:
        """``(certificate, key)`` when both are given."""
        return None if self.tls_cert is None or self.tls_key is None else (self.tls_cert, self.tls_key)

    @property
    def pin_files(self) -> dict[str, Path]:
        """The PIN file of each role that has one."""
        return {
            role: path
            for role, path in (("dealer", self.dealer_pin_file), ("supervisor", self.supervisor_pin_file))
            if path is not None
        }


def display_config(section: Section, profile_path: Path) -> DisplayConfig:
    """Read ``[display]``; :class:`~firmware_host.errors.ProfileError` naming the key if it is wrong."""
    base = profile_path.resolve().parent

    def path(name: str) -> Path | None:
        value = section.string(name, None)
        return None if value is None else (base / value).resolve()

    if "pin" in section.data or "dealer_pin" in section.data or "supervisor_pin" in section.data:
        key = next(k for k in ("pin", "dealer_pin", "supervisor_pin") if k in section.data)
        raise section.error(
            key,
            "a PIN is never written in the profile: name a PIN file made by "
            "`tablehost display pin` (dealer_pin_file, supervisor_pin_file)",
        )
    limits_section = section.table("limits")
    low = limits_section.integer("min", None, low=0)
    high = limits_section.integer("max", None, low=0)
    limits_section.reject_unknown()
    if (low is None) != (high is None) or (low is not None and high is not None and low > high):
        raise limits_section.error("(limits)", "give both min and max, min not above max (cents)")
    proxies = section.strings("trusted_proxies")
    for proxy in proxies:
        try:
            ipaddress.ip_network(proxy)
        except ValueError:
            raise section.error("trusted_proxies", f"{proxy!r} is not an IP address or network") from None
    config = DisplayConfig(
        listen=section.string("listen", None),
        tls_cert=path("tls_cert"),
        tls_key=path("tls_key"),
        dealer_pin_file=path("dealer_pin_file"),
        supervisor_pin_file=path("supervisor_pin_file"),
        limits=None if low is None else {"min": low, "max": high},
        allowed_hosts=host_names(section),
        trusted_proxies=proxies,
        web_user=_user_name(section),
    )
    if (config.tls_cert is None) != (config.tls_key is None):
        raise section.error("tls_cert" if config.tls_cert is None else "tls_key", "give both tls_cert and tls_key")
    section.reject_unknown()
    return config


def _user_name(section: Section) -> str | None:
    """``web_user``: a user name as ``useradd`` takes it."""
    name: str | None = section.string("web_user", None)
    if name is not None and not _USER_NAME.fullmatch(name):
        raise section.error("web_user", f"{name!r} is not a user name")
    return name


def host_names(section: Section) -> tuple[str, ...]:
    """A face's ``allowed_hosts``, lower case; :class:`~firmware_host.errors.ProfileError` for one
    that is neither a host name nor an IP address."""
    hosts = section.strings("allowed_hosts")
    for host in hosts:
        if not _HOST_NAME.fullmatch(host.lower()) and not _is_address(host):
            raise section.error("allowed_hosts", f"{host!r} is not a host name or an IP address")
    return tuple(host.lower() for host in hosts)


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
