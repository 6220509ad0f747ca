"""The exception tree of :mod:`drivers`. Every message starts with the device's name."""


class DriverError(Exception):
    """Root of every deliberate error in :mod:`drivers`."""


class CodecError(DriverError, ValueError):
    """A frame or message that cannot be encoded or decoded."""


class DeviceTimeout(DriverError, TimeoutError):
    """A device did not answer in time (also a builtin :class:`TimeoutError`)."""


class DeviceNotFound(DriverError, ConnectionError):
    """The port or USB device named in the profile is not there (yet)."""


class HandshakeError(DriverError):
    """The device answered the identity handshake with something unusable."""
