"""The web face yields the CPU to the service's loop (issue 30 item 4): it starts at a lowered nice,
and once it serves every thread of it is at nice 19, the lowest, under the normal policy (an idle
policy would leave it no floor of the CPU); so is its scheduling group, which a process in a session of its own has with
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
from firmware_host.cli.webface import YIELD_NICE, lower_priority, yield_cpu
from firmware_host.host import cpus


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


def started_threads_then_yielded() -> None:
    """Three threads already running (a web face's server, follower...), then :func:`yield_cpu`."""
    for _ in range(3):
        threading.Thread(target=signal.pause, daemon=True).start()
    yield_cpu()


def test_yield_cpu_puts_every_thread_at_nice_19_under_the_normal_policy() -> None:
    pid = forked(started_threads_then_yielded)
    try:
        threads = threads_of(pid)
        assert len(threads) == 4
        for thread in threads:
            assert os.sched_getscheduler(thread) == os.SCHED_OTHER, thread
            assert os.getpriority(os.PRIO_PROCESS, thread) == YIELD_NICE == 19, thread
        if autogroup_nice(pid) is not None:
            assert autogroup_nice(pid) == 19
    finally:
        ended(pid)


def test_the_services_web_face_child_serves_at_nice_19(tmp_path: Path) -> None:
    profile = write_profile(tmp_path, BACCARAT.format(decks=8, rules=""))
    running = start(profile, tmp_path / "j.sqlite", web_face="child", hold_at={"load_shoe"})
    try:
        child = running.table.web_child
        assert child is not None and child.pid is not None
        threads = threads_of(child.pid)
        assert len(threads) > 1  # its server's and its follower's, set before it said it serves
        for thread in threads:
            assert os.sched_getscheduler(thread) == os.SCHED_OTHER, thread
            assert os.getpriority(os.PRIO_PROCESS, thread) == 19, thread
        assert os.getpriority(os.PRIO_PROCESS, 0) < 19  # the service's loop is not lowered
        if autogroup_nice(child.pid) is not None:
            assert autogroup_nice(child.pid) == 19
    finally:
        running.stop()


TWO_CPUS = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs this process may use")


def _affinities(pid: int) -> set[frozenset[int]]:
    return {frozenset(os.sched_getaffinity(int(task.name))) for task in Path(f"/proc/{pid}/task").iterdir()}


def _kept_and_given_back() -> None:
    threading.Thread(target=signal.pause, daemon=True).start()
    allowed = os.sched_getaffinity(0)
    with cpus.kept_to({min(allowed)}):
        assert _affinities(os.getpid()) == {frozenset({min(allowed)})}
    assert _affinities(os.getpid()) == {frozenset(allowed)}


@TWO_CPUS
def test_kept_to_moves_every_thread_and_gives_them_back() -> None:
    ended(forked(_kept_and_given_back))  # in a child: this worker's own CPUs are never touched
