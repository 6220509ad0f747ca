"""Import every device event module so that every device event type is registered (journal replay
needs them; the table-level events of :mod:`firmware_host.tables.events` register on their own import)."""

from drivers.events import (
    dice,  # noqa: F401
    lifecycle,  # noqa: F401
    registered,
    shoe,  # noqa: F401
    shuffler,  # noqa: F401
)

__all__ = ["registered"]
