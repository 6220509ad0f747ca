"""The power-cut tests' file system keeps what a disk keeps, and cuts where it is told (issue 27 item 7).

:mod:`tests.support.cutfs` is itself tested here: a test of durability is only as good as
its model of a disk (file contents up to their fsync, directory entries up to their
directory's fsync), and a cut must freeze the program at the operation named, kill its whole
process group and leave no mount and no process behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cutfs import CutMount, fuse_unavailable

UNAVAILABLE = fuse_unavailable()
pytestmark = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"cutfs needs FUSE: {UNAVAILABLE}")


def _write(path: Path, data: bytes, *, sync: bool) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _sync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _files(image: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in image.iterdir()}


def test_only_what_was_fsynced_is_on_the_disk_after_the_power_goes(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    (disk / "old").write_bytes(b"on the disk at mount")
    (disk / "doomed").write_bytes(b"unlinked, never its directory synced")
    with CutMount(disk, tmp_path / "mnt") as fs:
        mnt = fs.mountpoint
        _write(mnt / "synced", b"contents and name", sync=True)
        _write(mnt / "unsynced", b"never fsynced", sync=False)
        _sync_directory(mnt)  # both names are durable now, one file's contents only
        _write(mnt / "synced", b"rewritten, not synced", sync=False)
        _write(mnt / "nameless", b"fsynced, its directory not", sync=True)
        os.rename(mnt / "old", mnt / "renamed")  # not durable: the directory is not synced again
        os.unlink(mnt / "doomed")
        assert sorted(os.listdir(mnt)) == ["nameless", "renamed", "synced", "unsynced"]  # as a program sees it
        assert (mnt / "synced").read_bytes() == b"rewritten, not synced"
        fs.arm(1)
        cut = fs.cut(_Done(), tmp_path / "image")
    assert cut.op is None
    assert _files(tmp_path / "image") == {
        "old": b"on the disk at mount",
        "doomed": b"unlinked, never its directory synced",
        "synced": b"contents and name",
        "unsynced": b"",
    }


def test_a_rename_and_an_unlink_are_durable_once_their_directory_is_fsynced(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    (disk / "sub").mkdir(parents=True)
    (disk / "sub" / "a").write_bytes(b"a")
    (disk / "sub" / "b").write_bytes(b"b")
    with CutMount(disk, tmp_path / "mnt") as fs:
        sub = fs.mountpoint / "sub"
        _write(sub / "a.tmp", b"new a", sync=True)
        os.replace(sub / "a.tmp", sub / "a")
        os.unlink(sub / "b")
        _sync_directory(sub)
        with (sub / "a").open("r+b") as grown:  # a truncation and a write past it, fsynced
            grown.truncate(2)
            grown.seek(5000)
            grown.write(b"!")
            grown.flush()
            os.fsync(grown.fileno())
        fs.cut(_Done(), tmp_path / "image")
    assert _files(tmp_path / "image" / "sub") == {"a": b"ne" + bytes(4998) + b"!"}


def test_a_cut_freezes_the_program_at_the_operation_named_and_kills_its_process_group(tmp_path: Path) -> None:
    # The program writes five synced lines to a file, a child of its group sleeping beside it.
    program = f"""
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
fd = os.open({str(tmp_path / "mnt" / "log")!r}, os.O_WRONLY | os.O_CREAT, 0o600)
for n in range(5):
    os.write(fd, b"line %d\\n" % n)
    os.fsync(fd)
    print(n, flush=True)
"""
    (tmp_path / "disk").mkdir()
    with CutMount(tmp_path / "disk", tmp_path / "mnt") as fs:
        _sync_directory(fs.mountpoint)  # before the log is made: its name is never durable
        fs.arm(5, after="/log")  # the log's create, write, fsync, write: cut at its second fsync
        proc = subprocess.Popen([sys.executable, "-c", program], start_new_session=True, stdout=subprocess.PIPE)
        cut = fs.cut(proc, tmp_path / "image")
        assert (cut.op, cut.kind, cut.path) == (6, "fsync", "/log")  # counted from the mount: 1 is the fsyncdir
        assert proc.returncode == -9
        assert proc.stdout is not None and proc.stdout.read() == b"0\n"  # it had printed what it had synced
        assert _group_ends(proc.pid), "the sleeping child of the program's group lives on"
        assert fs.status()["log"][:6] == [
            ["fsyncdir", "/"],
            ["create", "/log"],
            ["write", "/log"],
            ["fsync", "/log"],
            ["write", "/log"],
            ["fsync", "/log"],
        ]
    assert not os.path.ismount(tmp_path / "mnt")
    assert _files(tmp_path / "image") == {}  # the log's name was never made durable


def _group_ends(group: int, seconds: float = 10.0) -> bool:
    """Whether process group ``group`` is gone within ``seconds`` (its orphans reaped by init)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


class _Done:
    """A program that has already ended (``cut`` then only writes the image)."""

    pid = 0
    returncode = 0

    def poll(self) -> int:
        return 0

    def wait(self, timeout: float | None = None) -> int:
        return 0


def test_a_test_failing_while_the_program_is_frozen_leaves_no_mount_and_no_file_system(tmp_path: Path) -> None:
    (tmp_path / "disk").mkdir()
    program = f"open({str(tmp_path / 'mnt' / 'f')!r}, 'w')"  # frozen at its create, then EIO
    with pytest.raises(RuntimeError, match="the test fails"), CutMount(tmp_path / "disk", tmp_path / "mnt") as fs:
        fs.arm(1)
        proc = subprocess.Popen([sys.executable, "-c", program], stderr=subprocess.PIPE)
        assert fs.frozen(10.0)["op"] == "create"
        raise RuntimeError("the test fails")
    assert not os.path.ismount(tmp_path / "mnt") and fs.proc is None
    assert proc.wait(timeout=10) == 1  # let go with an I/O error, not left hanging
    assert proc.stderr is not None and b"Input/output error" in proc.stderr.read()
