"""sd_notify against a fake notify socket: READY, STATUS, STOPPING and WATCHDOG at half the interval."""

from __future__ import annotations

import os

import pytest

from firmware_host.host.systemd import Notifier


def test_ready_status_and_stopping_reach_the_socket(notify_socket) -> None:
    path, sock = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": path})
    notifier.ready("table SIM-BAC-1 open")
    assert sock.recv(4096).decode().split("\n") == ["READY=1", "STATUS=table SIM-BAC-1 open"]
    notifier.stopping()
    assert sock.recv(4096) == b"STOPPING=1"


def test_watchdog_pings_at_half_of_watchdog_sec(notify_socket) -> None:
    path, sock = notify_socket
    now = [100.0]
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"}, clock=lambda: now[0])
    assert notifier.ping_interval == 2.0
    notifier.watchdog()
    assert sock.recv(64) == b"WATCHDOG=1"
    now[0] += 1.9
    notifier.watchdog()  # too early: nothing sent
    now[0] += 0.1
    notifier.watchdog()
    assert sock.recv(64) == b"WATCHDOG=1"
    sock.setblocking(False)
    with pytest.raises(BlockingIOError):
        sock.recv(64)  # exactly two pings were sent


def test_watchdog_meant_for_another_pid_is_ignored() -> None:
    notifier = Notifier(
        {"NOTIFY_SOCKET": "/nonexistent", "WATCHDOG_USEC": "1000", "WATCHDOG_PID": str(os.getpid() + 1)}
    )
    assert notifier.ping_interval is None


def test_outside_systemd_nothing_is_sent() -> None:
    notifier = Notifier({})
    assert not notifier.enabled
    notifier.ready("x")  # no socket: must not raise


def test_abstract_namespace_address_gets_a_leading_nul() -> None:
    assert Notifier({"NOTIFY_SOCKET": "@tablehost/notify"}).address == "\0tablehost/notify"
