"""The web face yields the CPU to the service's loop (issue 30 item 4): its priority is lowered,
and so is its scheduling group's, which a process in a session of its own has with the kernel's
``sched_autogroup`` (without it, a web face at nice 10 still took half the CPU from the loop)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from firmware_host.cli.webface import lower_priority


def test_the_web_face_lowers_its_nice_and_its_autogroups() -> None:
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the web face's situation: a session of its own
        try:
            os.setsid()
            lower_priority(7)
            os.write(writing, b"x")
            signal.pause()
        finally:
            os._exit(0)
    try:
        assert os.read(reading, 1) == b"x"
        assert os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0) + 7
        group = Path(f"/proc/{pid}/autogroup")
        if not group.exists() or Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() != "1":
            pytest.skip("this kernel schedules no autogroups")
        assert group.read_text().split()[-2:] == ["nice", "7"]
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(reading)
        os.close(writing)
