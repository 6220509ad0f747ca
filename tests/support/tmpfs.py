r"""Test directories in memory (tmpfs), for runs whose disk's ``fsync`` is none of what they check.

A journal commits and ``fsync``\ s once per step (``synchronous=FULL``); on a shared machine's disk
that was a third of a long simulated run and most of a SIGKILL loop's wall time. On tmpfs the same
code calls the same ``fsync``, which returns at once. A SIGKILLed process loses or keeps the same
on either file system (its writes are in the kernel's page cache); what a cut power does is the
power-cut tests', on a file system of their own, and those keep the disk.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["TMPFS", "TMPFS_FREE", "in_memory"]

#: Linux's tmpfs for shared memory, present on every Linux machine the suite runs on (containers too).
TMPFS = Path("/dev/shm")
#: Free space :data:`TMPFS` must have to be used (a container's may be 64 MiB): a 500-round run's
#: journal takes 5 MB, and a worker runs one test at a time.
TMPFS_FREE = 256 * 2**20


def in_memory(name: str) -> Path | None:
    """A new empty directory on :data:`TMPFS` named after ``name``, or None if it is not writable
    or short of space (:data:`TMPFS_FREE`)."""
    if not (TMPFS.is_dir() and os.access(TMPFS, os.W_OK | os.X_OK)) or shutil.disk_usage(TMPFS).free < TMPFS_FREE:
        return None
    return Path(tempfile.mkdtemp(prefix=f"tablehost-{name[:30]}-", dir=TMPFS))
