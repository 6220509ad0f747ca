"""The journal's HMAC key: key files (made, read), the key's public id, and the key a journal
file names in its first record."""

from __future__ import annotations

import hmac
import os
import pathlib
import stat

from firmware_host import durable
from firmware_host.errors import JournalError
from firmware_host.host.journal_codec import CHECKPOINT_TYPE, GENESIS_TYPE, Record, segment_info
from firmware_host.text import TextError, read_file

__all__ = ["KEY_BYTES", "key_id", "key_mismatch", "load_key", "recorded_key_id", "write_key"]

#: Length of keys made by ``tablehost journal keygen``; the shortest key :func:`load_key` accepts.
KEY_BYTES = 32
#: Largest key file read, bytes.
KEY_FILE_LONGEST = 4096


def key_id(key: bytes) -> str:
    """A short public name of a key (16 hex digits), recorded in the journal's first record."""
    return hmac.digest(key, b"tablehost journal key id", "sha256")[:8].hex()


def load_key(path: str | os.PathLike[str]) -> bytes:
    """Read an HMAC key file (raw bytes, at least :data:`KEY_BYTES` long, readable by its owner only).

    :raises JournalError: missing, unreadable, too short, or readable/writable by group or others.
    """
    path = pathlib.Path(path)
    try:
        mode = path.stat().st_mode
        key = read_file(path, KEY_FILE_LONGEST)  # never waits on a FIFO; a regular file, bounded
    except OSError as exc:
        raise JournalError(f"key file {path}: cannot read: {exc.strerror or exc}") from exc
    except TextError as exc:
        raise JournalError(f"key file {path}: {exc}") from exc
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise JournalError(f"key file {path}: mode {stat.S_IMODE(mode):04o} lets others read it; chmod 0400 {path}")
    if len(key) < KEY_BYTES:
        raise JournalError(
            f"key file {path}: {len(key)} bytes; a key has at least {KEY_BYTES} (tablehost journal keygen)"
        )
    return key


def write_key(path: str | os.PathLike[str]) -> str:
    """Create a new key file of :data:`KEY_BYTES` random bytes, mode 0400, durably; return its :func:`key_id`.

    :raises JournalError: the file exists (never overwritten) or cannot be written.
    """
    key = os.urandom(KEY_BYTES)
    try:
        durable.write_file(path, key, mode=0o400, replace=False)
    except FileExistsError as exc:
        raise JournalError(f"key file {path}: already exists; a key is never overwritten") from exc
    except OSError as exc:
        raise JournalError(f"key file {path}: cannot create: {exc.strerror or exc}") from exc
    return key_id(key)


def recorded_key_id(record: Record) -> str | None:
    """The key id the file's first record names (None: unkeyed): the journal's genesis (seq 1),
    or the checkpoint that opens a later segment; :class:`JournalError` if it is neither."""
    header = record.data if record.seq == 1 else segment_info(record)
    if header is None or (record.seq == 1 and (record.kind != "meta" or record.type != GENESIS_TYPE)):
        raise JournalError(
            f"record {record.seq} is not a journal's first record ('meta', {GENESIS_TYPE!r}) "
            f"nor a segment's ('meta', {CHECKPOINT_TYPE!r} with a segment)"
        )
    if not header.get("keyed"):
        return None
    recorded = header.get("key_id")
    if not isinstance(recorded, str):
        raise JournalError(f"record {record.seq} says the journal is keyed but names no key id: {header!r}")
    return recorded


def key_mismatch(recorded_id: str | None, given_id: str | None) -> str:
    if recorded_id is None:
        return "it is not keyed, but a key was given"
    if given_id is None:
        return f"it is keyed (key id {recorded_id}): give its key file"
    return f"it is keyed with key id {recorded_id}, the key given is {given_id}"
