"""Named users, each with their own hashed secret and role: the floor dashboard's logins.

The users file holds one user a line, ``NAME ROLE scrypt$N$r$p$<salt hex>$<hash hex>`` (the PIN
files' hash, :func:`~firmware_host.web.pins.hash_pin`, a fresh 16-byte salt per user), ``#``
comments and blank lines. It is written only by ``tablehost floor user add|remove``, durably
(:func:`~firmware_host.web.pins.write_secret_file`: mode 0600, fsynced, renamed, the directory
fsynced), and read at start: a line that is not a user stops the dashboard with one line naming
the file and the line (:class:`~firmware_host.web.pins.PinError`).

A login names its user: :meth:`Users.login` checks the secret through the face's
:class:`~firmware_host.web.lockout.Lockout`, counted per name for a known name and against the
global budget for an unknown one (whose secret is hashed all the same, against a dummy hash,
so a wrong name costs what a wrong secret costs).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from firmware_host.web.lockout import Lockout, LockoutPolicy
from firmware_host.web.pins import (
    LOCKOUT_S,
    MAX_FAILURES,
    SCRYPT_N,
    WINDOW_S,
    PinError,
    check_stored,
    hash_pin,
    verify_pin,
    write_secret_file,
)

__all__ = ["User", "Users", "USER_NAME", "MIN_SECRET", "MAX_SECRET", "read_users", "add_user", "remove_user"]

#: A user name: 1 to 32 of letters, digits, ``. _ @ -``.
USER_NAME = re.compile(r"[A-Za-z0-9._@-]{1,32}")
#: A secret's length, in characters (a passphrase; no control characters).
MIN_SECRET, MAX_SECRET = 8, 128
#: Users a file may hold; bytes of it read.
MAX_USERS, MAX_FILE_BYTES = 4096, 4 * 1024 * 1024
_REMEDY = "`tablehost floor user add NAME --role ROLE`"


@dataclasses.dataclass(frozen=True)
class User:
    """One line of the users file."""

    name: str
    role: str
    stored: str  #: the secret's hash

    def line(self) -> str:
        """The user as a line of the file."""
        return f"{self.name} {self.role} {self.stored}"


def check_secret(secret: str) -> None:
    """:class:`PinError` unless ``secret`` can be a user's secret (its length; printable text)."""
    if not MIN_SECRET <= len(secret) <= MAX_SECRET or not secret.isprintable():
        raise PinError(f"a secret is {MIN_SECRET} to {MAX_SECRET} printable characters")


def read_users(path: Path, roles: tuple[str, ...]) -> dict[str, User]:
    """The users of ``path`` by name (no file: none); :class:`PinError` naming the file and line."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise PinError(f"users file {path}: cannot read: {exc.strerror}") from exc
    if len(raw) > MAX_FILE_BYTES:
        raise PinError(f"users file {path}: longer than {MAX_FILE_BYTES} bytes")
    users: dict[str, User] = {}
    costs: set[str] = set()
    for number, text in enumerate(raw.decode("ascii", "replace").splitlines(), 1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        where = f"users file {path} line {number}"
        name, role, stored = (text.split() + ["", "", ""])[:3]
        if not USER_NAME.fullmatch(name) or role not in roles or len(text.split()) != 3:
            raise PinError(f"{where}: not NAME ROLE HASH with a role of {', '.join(roles)} (write it with {_REMEDY})")
        if name in users:
            raise PinError(f"{where}: {name} is given twice")
        cost = stored.rsplit("$", 2)[0]
        check_stored(stored, where, _REMEDY, "secret", trial=cost not in costs)  # one trial hash per cost
        costs.add(cost)
        users[name] = User(name, role, stored)
        if len(users) > MAX_USERS:
            raise PinError(f"users file {path}: more than {MAX_USERS} users")
    return users


def _write(path: Path, users: dict[str, User]) -> None:
    header = "# tablehost floor users: NAME ROLE HASH (written by `tablehost floor user`; do not edit)\n"
    try:
        write_secret_file(path, header + "".join(user.line() + "\n" for user in users.values()))
    except OSError as exc:
        raise PinError(f"users file {path}: cannot write: {exc.strerror or exc}") from None


def add_user(path: Path, name: str, role: str, secret: str, roles: tuple[str, ...], n: int = SCRYPT_N) -> bool:
    """Add ``name`` (or give them a new secret and role); whether they were new."""
    if not USER_NAME.fullmatch(name):
        raise PinError("a user name is 1 to 32 of letters, digits, . _ @ -")
    if role not in roles:
        raise PinError(f"a role is one of {', '.join(roles)}")
    check_secret(secret)
    users = read_users(path, roles)
    new = name not in users
    users[name] = User(name, role, hash_pin(secret, n=n))
    _write(path, users)
    return new


def remove_user(path: Path, name: str, roles: tuple[str, ...]) -> bool:
    """Remove ``name``; whether they were there."""
    users = read_users(path, roles)
    if users.pop(name, None) is None:
        return False
    _write(path, users)
    return True


class Users:
    """Check named users' secrets, through a lockout.

    :param users: the users by name (:func:`read_users`).
    :param lockout: counts wrong secrets per address and, from an address that never logged in as
        the name, in all (known names and unknown alike).
    """

    def __init__(self, users: dict[str, User], lockout: Lockout | None = None) -> None:
        self.users = users
        self.lockout = lockout or Lockout(LockoutPolicy(MAX_FAILURES, WINDOW_S, LOCKOUT_S))
        #: What an unknown name's secret is hashed against (the cost of a known one's).
        self._dummy = next(iter(users.values())).stored if users else hash_pin("not a secret", n=SCRYPT_N)

    def match(self, name: str, secret: str) -> str | None:
        """``name``'s role if ``secret`` is theirs, else None (slow: scrypt; off the event loop)."""
        user = self.users.get(name)
        if len(secret) > MAX_SECRET:
            return None  # no user has it: wrong, without a hash
        right = verify_pin(secret, user.stored if user else self._dummy)
        return user.role if user is not None and right else None

    async def login(self, name: str, secret: str, client: str) -> str | None:
        """:meth:`match`, counted against ``client`` and, unless ``client`` has logged in as
        ``name``, the global budget, when wrong, run in a thread of the lockout. An unknown name
        is counted, checked (against a dummy hash) and refused exactly as a known one.

        :raises Locked: the address, or every address not trusted for ``name``, is locked out.
        :raises Busy: too many checks at once (nothing checked nor counted).
        """
        return await self.lockout.check(client, lambda: self.match(name, secret), name=name)
