"""A FUSE file system that keeps only what was fsynced, and cuts the power (issue 27 item 7).

The power-cut tests run ``tablehost run`` on this file system (:func:`serve`, libfuse 3 through
mfusepy), in a process of its own so that a test can freeze it: forked from a warm server
(:mod:`tests.support.cutfs_forks`), or started as ``python -m tests.support.cutfs BACKING
MOUNTPOINT``. Every operation passes through to a backing directory, so the program under test
sees an ordinary disk. Beside it the file system keeps the **durable image**: what a disk
would still hold if the power went now.

The model: strict POSIX
-----------------------

Stricter than LazyFS (a FUSE file system whose own page cache loses unsynced file data on
request, its directory operations passing straight through), this model loses unsynced
directory entries too, as the crash-consistency studies' strictest file system does.

* **File contents** are durable up to the last ``fsync``/``fdatasync`` of the file (through
  any descriptor): the file's size and every byte it held then. A write or a truncation after
  it is lost with the power; nothing written is ever torn or reordered *within* what was synced.
* **Directory entries** are durable only once *their directory* is fsynced (``fsync`` of a
  descriptor opened on the directory). Until then a created file has no name on the disk, a
  renamed file keeps its old name, and an unlinked one is still there, holding what was last
  synced of it (the durable image keeps its contents after the live file is gone). Fsyncing a
  file never makes its name durable, which ext4 (``data=ordered``) often does by the way it
  commits: what survives here survives there, not the other way round. SQLite follows this
  model (it fsyncs the directory after creating a rollback journal or a WAL file).
* A file named in a durable entry but never fsynced is empty; a directory never fsynced has
  no entries. What was on the backing directory at mount is durable. A file keeps the mode
  it was first seen with (``chmod`` is a cut point, not modelled).
* SQLite's ``-shm`` files (the WAL index, shared through ``mmap`` and written back by the kernel
  whenever it likes) pass through like any file, but their operations are not counted as cut
  points: their timing is the kernel's, and SQLite rebuilds the index after a crash.

The operations that are counted (the **cut points**) are those that change the file system or
make it durable: create, mkdir, write, truncate, rename, link, symlink, unlink, rmdir, chmod,
fsync and fsyncdir. A cut at point *i* blocks operation *i* before it runs, and every later
one: the program is frozen where the power went. Reads are not cut points: a cut before a read
leaves the same disk as the cut at the next counted operation, which comes later for the program
(it may have printed more by then).

Cutting: :class:`CutMount` starts the file system, :meth:`CutMount.arm` names the operation to
cut at (counted from the mount, or from the first operation on a path containing a given
text), and :meth:`CutMount.cut` waits for it, kills the program's process group, fails the
frozen operation and everything after it with ``EIO``, and writes the durable image to a
directory: the disk the next start finds. :meth:`CutMount.close` unmounts and ends the file
system; it is safe to call at any time (teardown).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import errno
import json
import os
import queue
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.cutfs_forks import CutfsProcess, fork_cutfs

__all__ = ["CutMount", "Cut", "fuse_unavailable", "PAGE"]

#: Bytes per page the durable image tracks as written since the last fsync.
PAGE = 4096
#: Seconds to wait for a mount, an answer of the file system or its end.
WAIT_SECONDS = 20.0
#: What a counted operation on a path containing this is not (SQLite's WAL index).
NOT_COUNTED = "-shm"
#: The ``stat`` fields a ``getattr`` answers.
STAT_FIELDS = ("st_mode", "st_ino", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime")


def fuse_unavailable() -> str | None:
    """Why FUSE cannot be mounted here at all (no ``/dev/fuse``, not root), or None.

    Only these skip the power-cut tests: without libfuse 3 or mfusepy (``make deps``, ``make
    setup``) a mount fails and the tests fail, saying so, rather than pass unseen in CI.
    """
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse (load the fuse module: modprobe fuse; make deps makes the node)"
    if os.geteuid() != 0:
        return "the power-cut tests mount FUSE file systems as root (CI runs as root)"
    return None


# --------------------------------------------------------------------------- the durable image


@dataclasses.dataclass(eq=False)
class _Node:
    """A file or directory, whatever its names: ``durable`` is what the disk holds of its contents."""

    is_dir: bool
    mode: int
    durable: bytearray = dataclasses.field(default_factory=bytearray)
    #: Pages written or truncated since the last fsync.
    dirty: set[int] = dataclasses.field(default_factory=set)
    #: A directory's durable entries.
    entries: dict[str, _Node] = dataclasses.field(default_factory=dict)
    counted: bool = True


class DurableImage:
    """The durable image beside a backing directory (the model of the module's docstring)."""

    def __init__(self, backing: Path) -> None:
        self.backing = backing
        self._by_ino: dict[int, _Node] = {}
        self.root = self._scan(backing)

    def _scan(self, path: Path) -> _Node:
        """What is on the backing directory at mount: durable as it stands."""
        info = path.lstat()
        node = self.node(path, info)
        if node.is_dir:
            node.entries = {child.name: self._scan(child) for child in path.iterdir()}
        else:
            node.durable = bytearray(path.read_bytes())
        return node

    def node(self, path: Path, info: os.stat_result | None = None) -> _Node:
        """The node a live backing path is (made on first sight: a file created since the last look)."""
        info = info or path.lstat()
        node = self._by_ino.get(info.st_ino)
        if node is None:
            node = _Node(stat.S_ISDIR(info.st_mode), stat.S_IMODE(info.st_mode), counted=NOT_COUNTED not in path.name)
            self._by_ino[info.st_ino] = node
        return node

    def forget(self, info: os.stat_result) -> None:
        """A live name is gone for good (unlinked, replaced): its inode number may be given again."""
        if info.st_nlink <= 1:
            self._by_ino.pop(info.st_ino, None)

    def written(self, node: _Node, offset: int, length: int) -> None:
        """``length`` bytes were written at ``offset``: their pages differ from the durable ones."""
        node.dirty.update(range(offset // PAGE, (offset + max(length, 1) - 1) // PAGE + 1))

    def truncated(self, node: _Node, length: int) -> None:
        """Every page from ``length`` to the end of what is durable may differ now."""
        node.dirty.update(range(length // PAGE, max(len(node.durable), length) // PAGE + 1))

    def sync_file(self, node: _Node, written: int) -> None:
        """``fsync`` of descriptor ``written``: the file's size and its written pages become durable."""
        fd = os.open(f"/proc/self/fd/{written}", os.O_RDONLY)  # ``written`` may be write-only
        try:
            self._copy(node, fd)
        finally:
            os.close(fd)

    @staticmethod
    def _copy(node: _Node, fd: int) -> None:
        size = os.fstat(fd).st_size
        durable = node.durable
        del durable[size:]
        durable.extend(bytes(size - len(durable)))
        for page in sorted(node.dirty):
            start = page * PAGE
            if start < size:
                durable[start : min(start + PAGE, size)] = os.pread(fd, min(PAGE, size - start), start)
        node.dirty.clear()

    def sync_dir(self, node: _Node, path: Path) -> None:
        """``fsync`` of a directory: its live entries become its durable ones."""
        node.entries = {child.name: self.node(child) for child in path.iterdir()}

    def write(self, target: Path) -> list[str]:
        """Write the image to ``target`` (an empty or new directory); return the files written."""
        written: list[str] = []
        self._write(self.root, target, "", written)
        return written

    def _write(self, node: _Node, target: Path, relative: str, written: list[str]) -> None:
        target.mkdir(parents=True, exist_ok=True)
        for name, child in sorted(node.entries.items()):
            path = target / name
            if child.is_dir:
                self._write(child, path, f"{relative}{name}/", written)
            else:
                path.write_bytes(bytes(child.durable))
                path.chmod(child.mode)
                written.append(f"{relative}{name}")


# --------------------------------------------------------------------------- the file system


class _Frozen(Exception):
    """The power is cut: the operation fails (``EIO``) without touching anything."""


class _CutFS:
    """The FUSE operations (mfusepy's high-level API): pass-through, counting, freezing."""

    def __init__(self, backing: Path, tell: Callable[[dict[str, Any]], None]) -> None:
        self.backing = backing
        self.image = DurableImage(backing)
        self.tell = tell
        self.lock = threading.Lock()
        self.ops = 0
        self.log: list[tuple[str, str]] = []
        self.target: int | None = None
        self.anchor: str | None = None
        self.anchored_at: int | None = None
        self.cut = False
        self.released = threading.Event()
        self.files: dict[int, tuple[_Node, str]] = {}

    # ---- counting and cutting

    def arm(self, target: int, anchor: str | None) -> None:
        with self.lock:
            self.target, self.anchor, self.anchored_at = target, anchor, (0 if anchor is None else None)

    def _count(self, kind: str, path: str, node: _Node | None = None) -> None:
        """Count operation ``kind`` on ``path``; freeze here if it is the one armed; ``EIO`` once cut."""
        with self.lock:
            if self.cut:
                raise _Frozen
            if (node is not None and not node.counted) or NOT_COUNTED in path:
                return
            self.ops += 1
            self.log.append((kind, path))
            if self.anchored_at is None and self.anchor is not None and self.anchor in path:
                self.anchored_at = self.ops - 1
            due = (
                self.target is not None and self.anchored_at is not None and self.ops - self.anchored_at == self.target
            )
            if due:
                self.cut = True
        if due:
            self.tell({"frozen": self.ops, "op": kind, "path": path})
            self.released.wait()
            raise _Frozen

    def status(self) -> dict[str, Any]:
        with self.lock:
            since = None if self.anchored_at is None else self.ops - self.anchored_at
            return {"ops": self.ops, "since": since, "cut": self.cut, "log": self.log}

    def power_off(self) -> None:
        """After the kill: the frozen operation and every later one fail; nothing changes any more."""
        with self.lock:
            self.cut = True
        self.released.set()

    # ---- helpers

    def _real(self, path: str) -> Path:
        return self.backing / path.lstrip("/")

    def _node_of(self, fh: int | None, path: str | None) -> tuple[_Node, str]:
        if fh is not None and fh in self.files:
            return self.files[fh]
        assert path is not None
        return self.image.node(self._real(path)), path

    def _opened(self, fd: int, path: str) -> int:
        self.files[fd] = (self.image.node(self._real(path), os.fstat(fd)), path)
        return fd

    # ---- reading (not cut points)

    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        info = os.fstat(fh) if fh is not None and fh in self.files else os.lstat(self._real(path))
        return {key: getattr(info, key) for key in STAT_FIELDS}

    def readdir(self, path: str, fh: int) -> list[str]:
        return [".", "..", *os.listdir(self._real(path))]

    def readlink(self, path: str) -> str:
        return os.readlink(self._real(path))

    def access(self, path: str, amode: int) -> int:
        if not os.access(self._real(path), amode):
            raise OSError(errno.EACCES, "access")
        return 0

    def statfs(self, path: str) -> dict[str, int]:
        info = os.statvfs(self._real(path))
        keys = ("f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree", "f_favail", "f_namemax")
        return {key: getattr(info, key) for key in keys}

    def open(self, path: str, flags: int) -> int:
        if flags & os.O_TRUNC:
            self._count("truncate", path)
        fd = self._opened(os.open(self._real(path), flags), path)
        if flags & os.O_TRUNC:
            self.image.truncated(self.files[fd][0], 0)
        return fd

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        return os.pread(fh, size, offset)

    def flush(self, path: str, fh: int) -> int:
        return 0

    def release(self, path: str, fh: int) -> int:
        self.files.pop(fh, None)
        os.close(fh)
        return 0

    # ---- changing (cut points)

    def create(self, path: str, mode: int, flags: int) -> int:
        self._count("create", path)
        return self._opened(os.open(self._real(path), flags | os.O_CREAT, mode), path)

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        node, name = self._node_of(fh, path)
        self._count("write", name, node)
        written = os.pwrite(fh, data, offset)
        self.image.written(node, offset, written)
        return written

    def truncate(self, path: str, length: int, fh: int | None = None) -> int:
        node, name = self._node_of(fh, path)
        self._count("truncate", name, node)
        if fh is not None and fh in self.files:
            os.ftruncate(fh, length)
        else:
            os.truncate(self._real(name), length)
        self.image.truncated(node, length)
        return 0

    def fsync(self, path: str, datasync: int, fh: int) -> int:
        node, name = self._node_of(fh, path)
        self._count("fsync", name, node)
        os.fsync(fh)
        self.image.sync_file(node, fh)
        return 0

    def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
        self._count("fsyncdir", path)
        real = self._real(path)
        self.image.sync_dir(self.image.node(real), real)
        return 0

    def mkdir(self, path: str, mode: int) -> int:
        self._count("mkdir", path)
        os.mkdir(self._real(path), mode)
        return 0

    def rmdir(self, path: str) -> int:
        return self._remove("rmdir", path, os.rmdir)

    def unlink(self, path: str) -> int:
        return self._remove("unlink", path, os.unlink)

    def _remove(self, kind: str, path: str, remove: Callable[[Path], None]) -> int:
        """A name goes (the node keeps its durable contents while a durable entry names it)."""
        self._count(kind, path)
        info = os.lstat(self._real(path))
        remove(self._real(path))
        self.image.forget(info)
        return 0

    def rename(self, old: str, new: str) -> int:
        self._count("rename", f"{old} -> {new}")
        self.image.node(self._real(old))
        replaced = os.lstat(self._real(new)) if os.path.lexists(self._real(new)) else None
        os.rename(self._real(old), self._real(new))
        if replaced is not None:
            self.image.forget(replaced)
        return 0

    def link(self, target: str, source: str) -> int:
        self._count("link", target)
        os.link(self._real(source), self._real(target))
        return 0

    def symlink(self, target: str, source: str) -> int:
        self._count("symlink", target)
        os.symlink(source, self._real(target))
        return 0

    def chmod(self, path: str, mode: int) -> int:
        self._count("chmod", path)
        os.chmod(self._real(path), mode)
        return 0

    def chown(self, path: str, uid: int, gid: int) -> int:
        os.lchown(self._real(path), uid, gid)
        return 0

    def utimens(self, path: str, times: tuple[int, int] | None = None) -> int:
        os.utime(self._real(path), ns=times) if times else os.utime(self._real(path))
        return 0


def _operations(fs: _CutFS) -> Any:
    """``fs`` as an :class:`mfusepy.Operations`: errors become errnos, a cut one ``EIO``."""
    import mfusepy

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        def call(_self: Any, *args: Any) -> Any:
            try:
                return method(*args)
            except _Frozen:
                raise mfusepy.FuseOSError(errno.EIO) from None
            except OSError as exc:  # the backing directory's answer (ENOENT for a lookup...)
                raise mfusepy.FuseOSError(exc.errno or errno.EIO) from None

        call.__name__ = method.__name__
        return call

    names = [name for name in vars(_CutFS) if not name.startswith("_") and hasattr(mfusepy.Operations, name)]
    namespace: dict[str, Any] = {name: wrap(getattr(fs, name)) for name in names}
    # mfusepy passes ``create`` the open flags when it takes three arguments.
    create = wrap(fs.create)
    namespace["create"] = lambda self, path, mode, flags: create(self, path, mode, flags)
    namespace["use_ns"] = True
    return type("CutOperations", (mfusepy.Operations,), namespace)()


def die_with_parent() -> None:
    """SIGTERM (libfuse unmounts on it) when the test process goes, however it goes."""
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def serve(backing: Path, mountpoint: Path) -> None:
    """The file system process: mount, answer the control lines on standard input (JSON), and
    tell (JSON lines on standard output) when an armed cut froze the program."""
    import mfusepy

    die_with_parent()
    out = sys.stdout
    out_lock = threading.Lock()

    def tell(message: dict[str, Any]) -> None:
        with out_lock:
            out.write(json.dumps(message) + "\n")
            out.flush()

    fs = _CutFS(backing, tell)

    def control() -> None:
        for line in sys.stdin:
            request = json.loads(line)
            if "arm" in request:
                fs.arm(int(request["arm"]), request.get("after"))
                tell({"armed": request["arm"]})
            elif "status" in request:
                tell({"status": fs.status()})
            elif "release" in request:
                fs.power_off()
                tell({"released": True})
            elif "image" in request:
                fs.power_off()
                tell({"written": fs.image.write(Path(request["image"]))})
        fs.power_off()  # the test went away: let nothing hang on a frozen operation

    threading.Thread(target=control, daemon=True).start()
    # One thread: operations come one at a time, in the order the program made them.
    mfusepy.FUSE(_operations(fs), str(mountpoint), foreground=True, nothreads=True, hard_remove=True,
                 fsname="cutfs", subtype="cutfs")  # fmt: skip


# --------------------------------------------------------------------------- the test's side


@dataclasses.dataclass(frozen=True)
class Cut:
    """Where the power went: operation ``op`` (counted from the mount or the anchor) of kind
    ``kind`` on ``path``; ``None``s if the program ended before it (``ended``: its exit status)."""

    op: int | None
    kind: str | None
    path: str | None
    ended: int | None = None

    def __str__(self) -> str:
        return f"op {self.op}: {self.kind} {self.path}" if self.op is not None else f"exited {self.ended} uncut"


class CutMount:
    """A :mod:`cutfs <tests.support.cutfs>` file system over ``backing`` at ``mountpoint``, as a
    context manager: it is unmounted and its process ended on exit, whatever happened."""

    def __init__(self, backing: Path, mountpoint: Path) -> None:
        self.backing, self.mountpoint = backing, mountpoint
        self.proc: CutfsProcess | None = None
        self._answers: queue.Queue[dict[str, Any]] = queue.Queue()

    def __enter__(self) -> CutMount:
        self.backing.mkdir(parents=True, exist_ok=True)
        self.mountpoint.mkdir(parents=True, exist_ok=True)
        self.proc = fork_cutfs(self.backing, self.mountpoint, lambda line: self._answers.put(json.loads(line)))
        deadline = time.monotonic() + WAIT_SECONDS
        while not os.path.ismount(self.mountpoint):
            if self.proc.ended() or time.monotonic() > deadline:
                ended = "it ended" if self.proc.ended() else f"not within {WAIT_SECONDS:.0f} s"
                self.close()
                raise RuntimeError(
                    f"cutfs did not mount {self.mountpoint} ({ended}; its error above): libfuse 3 "
                    "and fusermount3 come with `make deps` (Debian's fuse3), mfusepy with `make setup`"
                )
            time.sleep(0.005)
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _ask(self, request: dict[str, Any], answer: str) -> Any:
        assert self.proc is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._await(answer, WAIT_SECONDS)

    def _await(self, key: str, seconds: float) -> Any:
        deadline = time.monotonic() + seconds
        while True:
            try:
                message = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"cutfs: no {key!r} within {seconds} s") from None
            if key in message:
                return message if key == "frozen" else message[key]

    def frozen(self, seconds: float) -> dict[str, Any]:
        """Wait for the armed cut: ``{"frozen": op, "op": kind, "path": path}``.

        :raises TimeoutError: no program reached it within ``seconds``.
        """
        message: dict[str, Any] = self._await("frozen", seconds)
        return message

    def arm(self, op: int, after: str | None = None) -> None:
        """Cut at operation ``op`` (1: the first) counted from the mount, or from the first
        operation on a path containing ``after`` (that one is 1)."""
        self._ask({"arm": op, "after": after}, "armed")

    def status(self) -> dict[str, Any]:
        """``ops`` counted, ``since`` the anchor, ``log``: every counted ``(kind, path)``."""
        result: dict[str, Any] = self._ask({"status": 1}, "status")
        return result

    def cut(self, program: Any, image: Path, seconds: float = WAIT_SECONDS) -> Cut:
        """Wait until ``program`` (a process leading its own process group, with ``poll`` and
        ``wait``) is frozen at the armed operation, or ends; kill its process group; write the
        durable image to ``image``.

        :raises TimeoutError: neither happened within ``seconds``.
        """
        deadline, frozen = time.monotonic() + seconds, None
        while frozen is None and program.poll() is None:
            try:
                frozen = self.frozen(0.01)
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise
        if frozen is None:
            self._ask({"image": str(image)}, "written")
            return Cut(None, None, None, program.returncode)
        with_group(program.pid, signal.SIGKILL)
        self._ask({"release": 1}, "released")
        program.wait()
        self._ask({"image": str(image)}, "written")
        return Cut(frozen["frozen"], frozen["op"], frozen["path"])

    def close(self) -> None:
        """Let go of any frozen operation, unmount, end the file system process; idempotent."""
        proc = self.proc
        if proc is None:
            return
        if not proc.ended() and not proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError, ValueError):
                proc.stdin.write(json.dumps({"release": 1}) + "\n")
                proc.stdin.flush()
        for lazy in ([], ["-z"]):
            if not os.path.ismount(self.mountpoint):
                break
            subprocess.run(["fusermount3", "-u", *lazy, str(self.mountpoint)], capture_output=True, check=False)
        with contextlib.suppress(BrokenPipeError, ValueError):
            proc.stdin.close()
        if not proc.ended(WAIT_SECONDS):
            proc.kill()
            proc.ended(WAIT_SECONDS)
        self.proc = None


def with_group(pid: int, signum: int) -> None:
    """Send ``signum`` to the process group ``pid`` leads, and to ``pid`` itself (a fork that has
    not made its group yet); gone already: nothing to do."""
    for send in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError):
            send(pid, signum)


if __name__ == "__main__":
    serve(Path(sys.argv[1]), Path(sys.argv[2]))
