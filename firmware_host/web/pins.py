"""PINs of a face's roles (the dealer's and the supervisor's; the floor dashboard's surveillance
and pit): stored hashed in files, checked with a rate limit.

A PIN file holds one line, ``scrypt$N$r$p$<salt hex>$<hash hex>`` (:func:`hashlib.scrypt`, a
fresh 16-byte salt per file), written mode 0600 by ``tablehost display pin``; the profile names
the files, never a PIN. A supervisor's PIN also does what a dealer's does.

Every PIN file is checked at start (:func:`read_pin_file`): one that holds a hash this
machine cannot compute (scrypt's cost out of range, its memory over :data:`MAX_SCRYPT_BYTES`) is
refused naming the file, so no wrong PIN can ever meet it. PINs are checked through a
:class:`~firmware_host.web.lockout.Lockout`: wrong ones are counted per client address (after
:data:`MAX_FAILURES` within :data:`WINDOW_S` seconds that client is refused, even with a right
PIN, for :data:`LOCKOUT_S`) and in all, the place taken before the hash is computed, one at a
time in a thread.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import hmac
import re
import secrets
from pathlib import Path

from firmware_host import durable
from firmware_host.errors import TablehostError
from firmware_host.text import TextError, read_file
from firmware_host.web.lockout import Busy, Locked, Lockout, LockoutPolicy

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
    "write_secret_file",
    "read_pin_file",
    "check_stored",
    "Credentials",
]

#: Who may act, lowest first: a supervisor may do whatever a dealer may.
ROLES = ("dealer", "supervisor")
#: Shortest PIN accepted when a PIN file is written.
MIN_PIN_DIGITS = 4
#: scrypt's cost: N = 2**14, r = 8, p = 1 (16 MiB, about 50 ms here and 0.2 s on a Pi 4 per check).
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
#: Bytes of salt and of derived key.
SALT_BYTES, KEY_BYTES = 16, 32
#: Wrong PINs from one client within the window before it is locked out, and for how long.
MAX_FAILURES, WINDOW_S, LOCKOUT_S = 5, 60.0, 60.0
#: Longest PIN checked (a longer one is wrong without being hashed).
MAX_PIN_DIGITS = 32
#: The most memory one check may take (scrypt needs 128 * r * N bytes): 32 MiB.
MAX_SCRYPT_BYTES = 32 * 1024 * 1024
_SCHEME = "scrypt"
#: ``scrypt$N$r$p$salt$key``: N, r, p decimal; salt 8 to 64 bytes and key 16 to 64 bytes, in hex.
_STORED = re.compile(
    r"scrypt\$([0-9]{1,8})\$([0-9]{1,3})\$([0-9]{1,3})"
    r"\$((?:[0-9a-f]{2}){8,64})\$((?:[0-9a-f]{2}){16,64})"
)


class PinError(TablehostError):
    """A PIN file that cannot be read or written, or a PIN that cannot be one."""


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
    derived = hashlib.scrypt(
        pin.encode(),
        salt=bytes.fromhex(salt),
        n=int(n),
        r=int(r),
        p=int(p),
        dklen=len(key) // 2,
        maxmem=MAX_SCRYPT_BYTES + 1024 * 1024,
    )
    return hmac.compare_digest(derived.hex(), key)


def write_secret_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` durably, mode 0600: a temporary name beside it, fsynced, renamed
    over ``path``, and the directory fsynced (a power cut leaves the old file or the new, whole).

    The one place a face's secret files (PIN files, the floor's users file) are written.

    :raises OSError: the file cannot be written (the temporary file is removed).
    """
    durable.make_directories(path.parent)
    durable.write_file(path, text.encode("utf-8"), mode=0o600)


def write_pin_file(path: Path, pin: str, n: int = SCRYPT_N) -> None:
    """Write ``pin`` hashed to a new file, mode 0600 (an existing file is replaced), durably."""
    if not (pin.isdecimal() and len(pin) >= MIN_PIN_DIGITS):
        raise PinError(f"a PIN is {MIN_PIN_DIGITS} or more digits")
    try:
        write_secret_file(path, hash_pin(pin, n=n) + "\n")
    except OSError as exc:
        raise PinError(f"PIN file {path}: cannot write: {exc.strerror or exc}") from None


def read_pin_file(path: Path) -> str:
    """The stored PIN hash in ``path``; :class:`PinError` naming the file if it is not one."""
    try:  # a PIN file is one line of ~180 characters; a FIFO is never waited on
        text = read_file(path, 512).decode("ascii", "replace").strip()
    except TextError as exc:
        raise PinError(f"PIN file {path}: {exc} (write it with `tablehost display pin ROLE FILE`)") from exc
    except OSError as exc:
        raise PinError(
            f"PIN file {path}: cannot read: {exc.strerror} (write it with `tablehost display pin ROLE "
            "FILE`; `make demo-pins` for the simulated tables)"
        ) from exc
    return check_stored(text, f"PIN file {path}", "`tablehost display pin`")


def check_stored(text: str, where: str, remedy: str, what: str = "PIN", trial: bool = True) -> str:
    """``text`` if it is a stored hash this machine can compute (with ``trial``: one is computed);
    :class:`PinError` naming ``where`` and the ``remedy`` otherwise."""
    match = _STORED.fullmatch(text)
    if match is None:
        raise PinError(f"{where}: not a hashed {what} (write it with {remedy})")
    n, r, p = (int(match[i]) for i in (1, 2, 3))
    if n < 2 or n & (n - 1) or not 1 <= r <= 32 or not 1 <= p <= 16 or 128 * r * n > MAX_SCRYPT_BYTES:
        raise PinError(
            f"{where}: unusable scrypt cost N={n} r={r} p={p} (N a power of two, r 1 to 32, "
            f"p 1 to 16, 128 * r * N at most {MAX_SCRYPT_BYTES >> 20} MiB): write it again with {remedy}"
        )
    try:
        if trial:
            verify_pin("0", text)  # what a wrong secret will meet: it must be computable here, now
    except (ValueError, MemoryError) as exc:
        raise PinError(f"{where}: unusable hash ({exc}): write it again with {remedy}") from None
    return text


class Credentials:
    """Check PINs against the role files, through a lockout.

    :param files: the PIN file of each role that has one (a role without one cannot act); each
        is checked now (:func:`read_pin_file`).
    :param lockout: counts wrong PINs per client and in all (a new one with the default numbers).
    :param roles: the face's roles, lowest first (a higher one may do what a lower one may).
    """

    def __init__(self, files: dict[str, Path], lockout: Lockout | None = None, roles: tuple[str, ...] = ROLES) -> None:
        self.roles = roles
        with concurrent.futures.ThreadPoolExecutor(max(1, len(files))) as threads:  # the trial hashes side by side
            self.hashes = dict(zip(files, threads.map(read_pin_file, files.values())))
        self.lockout = lockout or Lockout(LockoutPolicy(MAX_FAILURES, WINDOW_S, LOCKOUT_S))

    def match(self, pin: str) -> str | None:
        """The highest role ``pin`` is the PIN of, or None (slow: scrypt; call it off the event loop)."""
        if not (pin.isascii() and pin.isdecimal() and len(pin) <= MAX_PIN_DIGITS):
            return None  # no PIN file holds it: wrong, without a hash
        for role in reversed(self.roles):
            stored = self.hashes.get(role)
            if stored is not None and verify_pin(pin, stored):
                return role
        return None

    async def role(self, pin: str, client: str, exempt: bool = False) -> str | None:
        """:meth:`match`, counted against ``client`` when wrong, run in a thread of the lockout
        (``exempt``: a request with a live session, held to its address's count only).

        :raises Locked: ``client`` (or every address) is locked out: the PIN is not checked.
        :raises Busy: too many checks at once: the PIN is not checked, nor counted.
        """
        return await self.lockout.check(client, lambda: self.match(pin), exempt=exempt)

    def allows(self, role: str, needed: str) -> bool:
        """Whether ``role`` may do what ``needed`` may."""
        return self.roles.index(role) >= self.roles.index(needed)
