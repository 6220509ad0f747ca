"""The dealer's and the supervisor's PINs: :mod:`firmware_host.web.pins` (shared with the floor
dashboard), under the display's old import path."""

from firmware_host.web.pins import (  # noqa: F401 (re-exported)
    KEY_BYTES,
    LOCKOUT_S,
    MAX_FAILURES,
    MAX_PIN_DIGITS,
    MAX_SCRYPT_BYTES,
    MIN_PIN_DIGITS,
    ROLES,
    SALT_BYTES,
    SCRYPT_N,
    SCRYPT_P,
    SCRYPT_R,
    WINDOW_S,
    Busy,
    Credentials,
    Locked,
    PinError,
    hash_pin,
    read_pin_file,
    verify_pin,
    write_pin_file,
)

__all__ = [
    "ROLES",
    "MIN_PIN_DIGITS",
    "MAX_PIN_DIGITS",
    "PinError",
    "Locked",
    "Busy",
    "hash_pin",
    "verify_pin",
    "write_pin_file",
    "read_pin_file",
    "Credentials",
]
