"""The exception tree of :mod:`firmware_host`.

Every error the service raises on purpose derives from :class:`TablehostError`, so the
CLI can turn it into one clear line on stderr instead of a traceback.
"""


class TablehostError(Exception):
    """Root of every deliberate error in :mod:`firmware_host`."""


class RulesError(TablehostError, ValueError):
    """Input that the game rules cannot accept (bad card text, impossible wager...)."""


class ProfileError(TablehostError):
    """A hardware profile that cannot be used; the message names the file, the key and why."""

    def __init__(self, path: object, key: str, why: str) -> None:
        self.path, self.key, self.why = str(path), key, why
        super().__init__(f"{self.path}: {key}: {why}")


class JournalError(TablehostError):
    """The journal cannot be opened, written, or does not verify."""


class JournalEncodingError(JournalError):
    """An event or a decision that cannot be encoded as a journal record (text that is not
    Unicode, a value JSON has not): that step is refused; the journal itself is sound."""


class ControllerError(TablehostError):
    """An input the controller refuses (for example a dealer button in the wrong state)."""


class TemporaryError(TablehostError):
    """A failure that may pass by itself. ``tablehost`` exits :attr:`exit_status` (75,
    ``EX_TEMPFAIL``), which the systemd unit restarts; every other deliberate error exits 2,
    which it does not (docs/recovery.md, "Exit statuses")."""

    exit_status = 75


class JournalBusyError(JournalError, TemporaryError):
    """Another process holds the journal (its writer's lock, or SQLite's lock): try again later."""
