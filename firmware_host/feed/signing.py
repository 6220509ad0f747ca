"""Ed25519 signatures of the floor feed: each table signs its messages with its own key (docs/feed.md).

- the table's **private key** is a PEM file on the Pi, mode 0400 (:meth:`Signer.from_file`
  refuses a looser or unreadable one, naming it);
- the collector holds the **public keys** in a directory, one file per table id,
  ``<dir>/<table>.pub``, which may hold several keys (PEM blocks) during a rotation
  (:class:`Keyring`); the keys are provisioned, never pinned on first use;
- a message carries ``key_id`` (the first 16 hex digits of SHA-256 of the raw public key) and
  ``sig`` (128 hex digits), the signature of :data:`SIG_PREFIX` and the canonical JSON of every
  other field. The hash chain leaves both out, so a message re-signed under a new key keeps its
  hash and is a duplicate of the one stored.

Ed25519 signing is deterministic: a table that resends signs the same bytes the same way.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import time
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from firmware_host import durable
from firmware_host.errors import TablehostError
from firmware_host.feed import schema
from firmware_host.text import TextError, escaped, read_file

__all__ = [
    "Signer",
    "Keyring",
    "SigningKeyError",
    "key_id",
    "keygen",
    "write_key_file",
    "verify",
    "load_public_keys",
    "SIG_PREFIX",
]

log = logging.getLogger("tablehost.floor")

#: Domain separation of every signed text.
SIG_PREFIX = b"tablehost-feed-sig/1\n"
#: Suffix of a public key file in the collector's directory.
PUBLIC_SUFFIX = ".pub"
#: Most public keys of one table accepted at once (a rotation needs two).
MAX_KEYS_PER_TABLE = 4
#: Largest public key file read, bytes (a PEM Ed25519 key is 113).
MAX_KEY_FILE = 4096
#: The directory is looked at again at most this often, seconds (a rotation lands within it).
RELOAD_EVERY_S = 2.0
_KEY_ID = re.compile(r"[0-9a-f]{16}\Z")
_SIG = re.compile(r"[0-9a-f]{128}\Z")
_PEM_BLOCK = re.compile(rb"-----BEGIN PUBLIC KEY-----.*?-----END PUBLIC KEY-----", re.DOTALL)


class SigningKeyError(TablehostError):
    """A key file that cannot be used (named, with why)."""


def key_id(public: Ed25519PublicKey) -> str:
    """The key's id: the first 16 hex digits of SHA-256 of its 32 raw bytes."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def _signed_text(message: dict[str, Any], prefix: bytes = SIG_PREFIX) -> bytes:
    body = {k: v for k, v in message.items() if k != "sig"}
    return prefix + schema.encode(body)


class Signer:
    """A private key; :meth:`sign` adds ``key_id`` and ``sig`` to a message or a status (a table's
    key), or to an acknowledgement (the floor's key, with its own ``prefix``: :mod:`~firmware_host.feed.ack`).

    :param prefix: the domain separation of what this key signs.
    """

    def __init__(self, private: Ed25519PrivateKey, prefix: bytes = SIG_PREFIX) -> None:
        self._private, self.prefix = private, prefix
        #: The id of its public key.
        self.key_id = key_id(private.public_key())

    @classmethod
    def from_file(cls, path: Path, what: str = "feed signing key", prefix: bytes = SIG_PREFIX) -> Signer:
        """The key in ``path``: an unencrypted PEM Ed25519 private key, mode 0400.

        :param what: what the key is called in errors.
        :raises SigningKeyError: missing, unreadable, readable by others or writable, or not such a key.
        """
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
            data = read_file(path, MAX_KEY_FILE)  # never waits on a FIFO; a regular file, bounded
        except OSError as exc:
            raise SigningKeyError(f"{what} {path}: cannot read: {exc.strerror or exc}") from exc
        except TextError as exc:
            raise SigningKeyError(f"{what} {path}: {exc}") from exc
        if mode & 0o377:
            raise SigningKeyError(f"{what} {path}: mode {mode:04o} is looser than 0400; chmod 0400 {path}")
        try:
            private = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise SigningKeyError(f"{what} {path}: not an unencrypted PEM private key ({exc})") from exc
        if not isinstance(private, Ed25519PrivateKey):
            raise SigningKeyError(f"{what} {path}: a {type(private).__name__}, not an Ed25519 key")
        return cls(private, prefix)

    def public_keys(self) -> dict[str, Ed25519PublicKey]:
        """Its public key by id (what :func:`verify` checks its signatures with)."""
        return {self.key_id: self._private.public_key()}

    def sign(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` with ``key_id`` and ``sig``."""
        body = {k: v for k, v in message.items() if k not in schema.SIGNATURE_FIELDS}
        body["key_id"] = self.key_id
        return {**body, "sig": self._private.sign(_signed_text(body, self.prefix)).hex()}


def verify(message: dict[str, Any], keys: dict[str, Ed25519PublicKey], prefix: bytes = SIG_PREFIX) -> str | None:
    """Why ``message`` is not signed by one of ``keys`` (id -> key) under ``prefix``, or None when it is."""
    kid, sig = message.get("key_id"), message.get("sig")
    if kid is None and sig is None:
        return "unsigned"
    if not isinstance(kid, str) or not _KEY_ID.match(kid) or not isinstance(sig, str) or not _SIG.match(sig):
        return "key_id is not 16 hex digits, or sig not 128"
    public = keys.get(kid)
    if public is None:
        return f"signed with key {kid}, not a key of this table" if keys else "no public key for this table"
    try:
        public.verify(bytes.fromhex(sig), _signed_text(message, prefix))
    except InvalidSignature:
        return f"the signature does not check with key {kid}"
    return None


def load_public_keys(path: Path) -> dict[str, Ed25519PublicKey]:
    """The Ed25519 public keys (PEM blocks) in one file, by id.

    :raises SigningKeyError: unreadable, too large, no key, a key that is not Ed25519, or too many.
    """
    try:  # a FIFO or a device named like a key never hangs the collector; a directory is named
        data = read_file(path, MAX_KEY_FILE)
    except OSError as exc:
        raise SigningKeyError(f"public key file {path}: cannot read: {exc.strerror or exc}") from exc
    except TextError as exc:
        raise SigningKeyError(f"public key file {path}: {exc}") from exc
    keys: dict[str, Ed25519PublicKey] = {}
    for block in _PEM_BLOCK.findall(data):
        try:
            public = serialization.load_pem_public_key(block)
        except ValueError as exc:
            raise SigningKeyError(f"public key file {path}: a PEM block that is not a public key ({exc})") from exc
        if not isinstance(public, Ed25519PublicKey):
            raise SigningKeyError(f"public key file {path}: a {type(public).__name__}, not an Ed25519 key")
        keys[key_id(public)] = public
    if not keys:
        raise SigningKeyError(f"public key file {path}: no PEM public key in it")
    if len(keys) > MAX_KEYS_PER_TABLE:
        raise SigningKeyError(f"public key file {path}: {len(keys)} keys (at most {MAX_KEYS_PER_TABLE})")
    return keys


class Keyring:
    """The collector's public keys: ``<directory>/<table>.pub`` for each provisioned table.

    Read at start, then looked at again at most every :data:`RELOAD_EVERY_S` when the directory
    changes (a file renamed into place). A file that cannot be used (malformed, too large, a
    FIFO, a directory, a name that is no table id) is skipped and named once in the log (again
    only when its reason changes), never fatal, never waited on: its table keeps the keys read
    before, if any (:attr:`skipped` says which files and why).

    :raises SigningKeyError: the directory cannot be read at start.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._keys: dict[str, dict[str, Ed25519PublicKey]] = {}
        self._stamp: tuple[int, ...] | None = None
        self._looked = 0.0
        #: The files skipped at the last reading, by name, with why.
        self.skipped: dict[str, str] = {}
        self._load(strict=True)

    @property
    def tables(self) -> frozenset[str]:
        """The tables that have keys."""
        self._refresh()
        return frozenset(self._keys)

    def keys(self, table: str) -> dict[str, Ed25519PublicKey]:
        """The keys of ``table`` by id (empty: not provisioned)."""
        self._refresh()
        return self._keys.get(table, {})

    def _refresh(self) -> None:
        now = time.monotonic()
        if now - self._looked >= RELOAD_EVERY_S:
            self._looked = now
            self._load(strict=False)

    def _listing(self) -> tuple[tuple[int, ...], list[Path]]:
        try:
            info = self.directory.stat()
            files = sorted(p for p in self.directory.iterdir() if p.name.endswith(PUBLIC_SUFFIX))
        except OSError as exc:
            raise SigningKeyError(f"public key directory {self.directory}: cannot read: {exc.strerror or exc}") from exc
        return (info.st_mtime_ns, info.st_ino, *map(_changed, files)), files

    def _load(self, *, strict: bool) -> None:
        try:
            stamp, files = self._listing()
        except SigningKeyError as exc:
            if strict:
                raise
            log.error("floor: %s; keeping the keys read before", exc)
            return
        if stamp == self._stamp:
            return
        keys: dict[str, dict[str, Ed25519PublicKey]] = {}
        skipped: dict[str, str] = {}
        for path in files:
            table = path.name[: -len(PUBLIC_SUFFIX)]
            try:
                if not schema.TABLE_ID.match(table):
                    raise SigningKeyError(f"public key file {path}: {table!r} is not a table id")
                keys[table] = load_public_keys(path)
            except SigningKeyError as exc:
                why = skipped[path.name] = escaped(str(exc))
                if self.skipped.get(path.name) != why:  # named once, not at every look
                    log.error("floor: %s; skipped%s", why, ", the table keeps its keys" if table in self._keys else "")
                if table in self._keys:
                    keys[table] = self._keys[table]
        self._keys, self._stamp, self.skipped = keys, stamp, skipped
        log.info("floor: public keys of %d tables from %s", len(keys), self.directory)


def _changed(path: Path) -> int:
    """When a file in the key directory last changed (-1: it cannot be looked at: a dangling link)."""
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -1


def keygen(private_path: Path, public_path: Path) -> str:
    """Write a new key pair: the private key (PEM, mode 0400) and the public key (PEM, 0444),
    each durably (:func:`firmware_host.durable.write_file`); its id.

    Both ``tablehost feed keygen`` (a table's pair) and ``tablehost floor keygen`` (the floor's)
    write through here, each file by :func:`write_key_file`.

    :raises SigningKeyError: either file exists already (never overwritten), or cannot be written.
    """
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    for path in (private_path, public_path):
        if os.path.lexists(path):
            raise SigningKeyError(f"{path}: exists already; a key is never overwritten (move it away first)")
    write_key_file(private_path, pem, 0o400)
    try:
        write_key_file(public_path, public, 0o444)
    except SigningKeyError:
        durable.remove(private_path)
        raise
    return key_id(private.public_key())


def write_key_file(path: Path, data: bytes, mode: int) -> None:
    """Write a key file durably and never over another (:func:`firmware_host.durable.write_file`
    with ``replace=False``: a temporary name, fsynced, linked into place, the directory fsynced).

    :raises SigningKeyError: ``path`` exists, or cannot be written.
    """
    try:
        durable.write_file(path, data, mode=mode, replace=False)
    except FileExistsError as exc:
        raise SigningKeyError(f"{path}: exists already; a key is never overwritten (move it away first)") from exc
    except OSError as exc:
        raise SigningKeyError(f"{path}: cannot write: {exc.strerror or exc}") from exc
