"""Import every event module so that every event type is registered (journal replay needs them)."""

from drivers.events import registered
from drivers.events import dice  # noqa: F401
from drivers.events import shoe  # noqa: F401
from drivers.events import shuffler  # noqa: F401
from drivers.events import table  # noqa: F401  (registers on import)

__all__ = ["registered"]
