"""The dealer's and the supervisor's PINs: stored hashed in files, checked with a rate limit.

A PIN file holds one line, ``scrypt$N$r$p$<salt hex>$<hash hex>`` (:func:`hashlib.scrypt`, a
fresh 16-byte salt per file), written mode 0600 by ``tablehost display pin``; the profile names
the files, never a PIN. A supervisor's PIN also does what a dealer's does.

Wrong PINs are counted per client address: after :data:`MAX_FAILURES` within
:data:`WINDOW_S` seconds that client is refused, even with a right PIN, for :data:`LOCKOUT_S`.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import os
import secrets
import time
from pathlib import Path
from typing import Callable

from firmware_host.errors import TablehostError

__all__ = ["ROLES", "MIN_PIN_DIGITS", "PinError", "Locked", "hash_pin", "verify_pin", "write_pin_file",
           "read_pin_file", "Credentials"]

#: Who may act, lowest first: a supervisor may do whatever a dealer may.
ROLES = ("dealer", "supervisor")
#: Shortest PIN accepted when a PIN file is written.
MIN_PIN_DIGITS = 4
#: scrypt's cost: N = 2**14, r = 8, p = 1 (16 MiB, about 50 ms here and 0.2 s on a Pi 4 per check).
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2 ** 14, 8, 1
#: Bytes of salt and of derived key.
SALT_BYTES, KEY_BYTES = 16, 32
#: Wrong PINs from one client within the window before it is locked out, and for how long.
MAX_FAILURES, WINDOW_S, LOCKOUT_S = 5, 60.0, 60.0
_SCHEME = "scrypt"


class PinError(TablehostError):
    """A PIN file that cannot be read or written, or a PIN that cannot be one."""


class Locked(TablehostError):
    """Too many wrong PINs from this client: refused for :attr:`seconds` more."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"too many wrong PINs: try again in {seconds:.0f} s")
        self.seconds = seconds


def hash_pin(pin: str, salt: bytes | None = None, n: int = SCRYPT_N) -> str:
    """The stored form of ``pin`` (a fresh salt unless one is given)."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    key = hashlib.scrypt(pin.encode(), salt=salt, n=n, r=SCRYPT_R, p=SCRYPT_P, dklen=KEY_BYTES)
    return f"{_SCHEME}${n}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${key.hex()}"


def verify_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the PIN ``stored`` was made from (constant-time compare)."""
    scheme, n, r, p, salt, key = stored.split("$")
    if scheme != _SCHEME:
        raise PinError(f"unknown PIN hash scheme {scheme!r}")
    derived = hashlib.scrypt(pin.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                             dklen=len(key) // 2)
    return hmac.compare_digest(derived.hex(), key)


def write_pin_file(path: Path, pin: str, n: int = SCRYPT_N) -> None:
    """Write ``pin`` hashed to a new file, mode 0600 (an existing file is replaced)."""
    if not (pin.isdecimal() and len(pin) >= MIN_PIN_DIGITS):
        raise PinError(f"a PIN is {MIN_PIN_DIGITS} or more digits")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".new")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(hash_pin(pin, n=n) + "\n")
    os.replace(temporary, path)


def read_pin_file(path: Path) -> str:
    """The stored PIN hash in ``path``; :class:`PinError` naming the file if it is not one."""
    try:
        text = path.read_text().strip()
    except OSError as exc:
        raise PinError(f"PIN file {path}: cannot read: {exc.strerror} (write it with `tablehost display pin ROLE "
                       "FILE`; `make demo-pins` for the simulated tables)") from exc
    parts = text.split("$")
    if len(parts) != 6 or parts[0] != _SCHEME or not all(part.isalnum() for part in parts):
        raise PinError(f"PIN file {path}: not a hashed PIN (write it with `tablehost display pin`)")
    return text


class Credentials:
    """Check PINs against the role files, counting wrong ones per client.

    :param files: the PIN file of each role that has one (a role without one cannot act).
    :param clock: monotonic seconds (tests step it).
    """

    def __init__(self, files: dict[str, Path], clock: Callable[[], float] = time.monotonic) -> None:
        self.hashes = {role: read_pin_file(path) for role, path in files.items()}
        self.clock = clock
        self._failures: dict[str, collections.deque[float]] = collections.defaultdict(collections.deque)
        self._locked_until: dict[str, float] = {}

    def role(self, pin: str, client: str) -> str | None:
        """The highest role ``pin`` is the PIN of, or None (a failure counted against ``client``).

        :raises Locked: ``client`` is locked out.
        """
        now = self.clock()
        until = self._locked_until.get(client, 0.0)
        if now < until:
            raise Locked(until - now)
        for role in reversed(ROLES):
            stored = self.hashes.get(role)
            if stored is not None and verify_pin(pin, stored):
                self._failures.pop(client, None)
                return role
        failures = self._failures[client]
        failures.append(now)
        while failures and failures[0] <= now - WINDOW_S:
            failures.popleft()
        if len(failures) >= MAX_FAILURES:
            self._locked_until[client] = now + LOCKOUT_S
            failures.clear()
        return None

    @staticmethod
    def allows(role: str, needed: str) -> bool:
        """Whether ``role`` may do what ``needed`` may."""
        return ROLES.index(role) >= ROLES.index(needed)
