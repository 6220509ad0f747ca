"""The exception tree of :mod:`sim`."""


class SimError(Exception):
    """Root of every deliberate error in :mod:`sim`."""
