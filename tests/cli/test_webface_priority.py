"""The web face yields the CPU to the service's loop (issue 30 item 4): it starts at a lowered nice,
and once it serves it runs under ``SCHED_IDLE`` (only on CPU time nothing else wants) at nice 19,
every thread of it; so does its scheduling group, which a process in a session of its own has with
the kernel's ``sched_autogroup`` (without it, a web face at nice 10 still took half the CPU from
the loop). Its systemd unit says the same (tests/deploy)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.display.table import BACCARAT, start, write_profile
from firmware_host.cli.webface import IDLE_NICE, lower_priority, run_idle


def autogroup_nice(pid: int) -> int | None:
    """The nice of ``pid``'s scheduling autogroup, or None where the kernel schedules none."""
    group = Path(f"/proc/{pid}/autogroup")
    if not group.exists() or Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() != "1":
        return None
    return int(group.read_text().split()[-1])


def threads_of(pid: int) -> list[int]:
    return [int(task.name) for task in Path(f"/proc/{pid}/task").iterdir()]


def forked(act: Callable[[], None]) -> int:
    """A child in a session of its own (the web face's situation) that has done ``act``: its pid."""
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            act()
            os.write(writing, b"x")
            signal.pause()
        finally:
            os._exit(0)
    try:
        assert os.read(reading, 1) == b"x"
    finally:
        os.close(reading)
        os.close(writing)
    return pid


def ended(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def test_the_web_face_lowers_its_nice_and_its_autogroups() -> None:
    pid = forked(lambda: lower_priority(7))
    try:
        assert os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0) + 7
        assert os.sched_getscheduler(pid) == os.sched_getscheduler(0)  # a nice only: the policy is kept
        if autogroup_nice(pid) is None:
            pytest.skip("this kernel schedules no autogroups")
        assert autogroup_nice(pid) == 7
    finally:
        ended(pid)


def started_threads_then_idled() -> None:
    """Three threads already running (a web face's server, follower...), then :func:`run_idle`."""
    for _ in range(3):
        threading.Thread(target=signal.pause, daemon=True).start()
    run_idle()


def test_run_idle_puts_every_thread_under_sched_idle_at_nice_19() -> None:
    pid = forked(started_threads_then_idled)
    try:
        threads = threads_of(pid)
        assert len(threads) == 4
        for thread in threads:
            assert os.sched_getscheduler(thread) == os.SCHED_IDLE, thread
            assert os.getpriority(os.PRIO_PROCESS, thread) == IDLE_NICE == 19, thread
        if autogroup_nice(pid) is not None:
            assert autogroup_nice(pid) == 19
    finally:
        ended(pid)


def test_a_web_face_refused_sched_idle_still_goes_to_nice_19(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "sched_setscheduler", refused)  # a seccomp filter's answer
    pid = forked(run_idle)
    try:
        assert os.sched_getscheduler(pid) == os.sched_getscheduler(0)
        assert os.getpriority(os.PRIO_PROCESS, pid) == IDLE_NICE
    finally:
        ended(pid)


def test_the_services_web_face_child_serves_under_sched_idle_at_nice_19(tmp_path: Path) -> None:
    profile = write_profile(tmp_path, BACCARAT.format(decks=8, rules=""))
    running = start(profile, tmp_path / "j.sqlite", web_face="child", hold_at={"load_shoe"})
    try:
        child = running.table.web_child
        assert child is not None and child.pid is not None
        threads = threads_of(child.pid)
        assert len(threads) > 1  # its server's and its follower's, set before it said it serves
        for thread in threads:
            assert os.sched_getscheduler(thread) == os.SCHED_IDLE, thread
            assert os.getpriority(os.PRIO_PROCESS, thread) == 19, thread
        assert os.sched_getscheduler(0) != os.SCHED_IDLE  # the service's loop is not
        if autogroup_nice(child.pid) is not None:
            assert autogroup_nice(child.pid) == 19
    finally:
        running.stop()
