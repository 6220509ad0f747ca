"""Kept files are durable (issue 27 item 4): the PIN file, the journal's key and the feed's key
pair are written under a temporary name, fsynced, renamed into place and their directory
fsynced, in that order; a failure leaves the file as it was and nothing beside it.

``os.fsync`` and the renames are recorded (the path behind each descriptor read from
``/proc/self/fd``), so a test fails if any step is missing or out of order.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from firmware_host import durable
from firmware_host.errors import JournalError
from firmware_host.feed import signing
from firmware_host.host.journal_keys import key_id, load_key, write_key
from firmware_host.web import pins

Events = list[tuple[str, str]]


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> Events:
    """What reaches the disk, in order: ``("fsync", path)``, ``("rename", "from -> to")``."""
    seen: Events = []
    real_fsync, real_replace, real_link = os.fsync, os.replace, os.link

    def fsync(fd: int) -> None:
        seen.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        real_replace(source, target)
        seen.append(("rename", f"{os.fspath(source)} -> {os.fspath(target)}"))

    def link(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        real_link(source, target)
        seen.append(("rename", f"{os.fspath(source)} -> {os.fspath(target)}"))

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "link", link)
    return seen


def assert_written_durably(events: Events, path: Path) -> None:
    """``path`` was fsynced under its temporary name, then renamed to ``path``, then its directory fsynced."""
    renames = [(i, what) for i, (kind, what) in enumerate(events) if kind == "rename" and what.endswith(f"-> {path}")]
    assert len(renames) == 1, events
    at, what = renames[0]
    temporary = what.split(" -> ")[0]
    assert Path(temporary).parent == path.parent and temporary != str(path)
    assert ("fsync", temporary) in events[:at], f"{path}: contents not fsynced before the rename: {events}"
    assert ("fsync", str(path.parent)) in events[at + 1 :], f"{path}: directory not fsynced after it: {events}"
    assert not [p for p in path.parent.iterdir() if p.name.endswith(durable.TEMPORARY_SUFFIX)]


def test_the_pin_file_is_written_durably(tmp_path: Path, events: Events) -> None:
    path = tmp_path / "pins" / "supervisor.pin"
    pins.write_pin_file(path, "123456", n=2)
    assert_written_durably(events, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert pins.verify_pin("123456", pins.read_pin_file(path))
    assert ("fsync", str(tmp_path)) in events  # the new directory's name too


def test_a_pin_file_written_again_is_replaced_whole(tmp_path: Path, events: Events) -> None:
    path = tmp_path / "dealer.pin"
    pins.write_pin_file(path, "1111", n=2)
    events.clear()
    pins.write_pin_file(path, "2222", n=2)
    assert_written_durably(events, path)
    assert pins.verify_pin("2222", pins.read_pin_file(path))


def test_the_journal_key_file_is_written_durably_and_never_overwritten(tmp_path: Path, events: Events) -> None:
    path = tmp_path / "journal.key"
    kid = write_key(path)
    assert_written_durably(events, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o400
    assert key_id(load_key(path)) == kid
    key = path.read_bytes()
    with pytest.raises(JournalError, match="already exists"):
        write_key(path)
    assert path.read_bytes() == key
    assert [p.name for p in tmp_path.iterdir()] == ["journal.key"]


def test_the_feed_key_pair_is_written_durably(tmp_path: Path, events: Events) -> None:
    private, public = tmp_path / "BAC-1.key", tmp_path / f"BAC-1{signing.PUBLIC_SUFFIX}"
    signing.keygen(private, public)
    assert_written_durably(events, private)
    assert_written_durably(events, public)
    assert stat.S_IMODE(private.stat().st_mode) == 0o400 and stat.S_IMODE(public.stat().st_mode) == 0o444


@pytest.mark.parametrize("fails", ["write", "fsync", "rename"])
def test_a_kept_file_that_cannot_be_written_is_left_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    path = tmp_path / "kept"
    durable.write_file(path, b"old\n")

    def broken(*args: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, {"write": "write", "fsync": "fsync", "rename": "replace"}[fails], broken)
    with pytest.raises(OSError, match="Input/output error"):
        durable.write_file(path, b"new\n")
    monkeypatch.undo()
    assert path.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["kept"]
