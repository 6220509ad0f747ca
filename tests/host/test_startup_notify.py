"""Issue 6, journal size bounds start-up time: while the journal replays, ``tablehost run``
asks systemd for more start-up time (``EXTEND_TIMEOUT_USEC``, sd_notify(3)) before READY=1,
so a journal of weeks of play does not exceed the unit's ``TimeoutStartSec``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.soak.profiles import make_profile
from drivers.events import DeviceEvent
from firmware_host.cli import main
from firmware_host.cli.run import STARTUP_EXTENSION_S
from firmware_host.host import service
from firmware_host.host.journal import Journal
from firmware_host.host.service import Service
from firmware_host.host.systemd import Notifier
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand

#: The replay's progress interval in these tests: the service's own (1,000 steps) scaled down, so
#: that the journals replayed are a tenth as long and the same multiples of it.
EVERY = 100


@pytest.fixture
def every(monkeypatch: pytest.MonkeyPatch) -> int:
    """:data:`EVERY` as the service's ``REPLAY_PROGRESS_EVERY``."""
    assert service.REPLAY_PROGRESS_EVERY % EVERY == 0  # a scale of the real one
    monkeypatch.setattr(service, "REPLAY_PROGRESS_EVERY", EVERY)
    return EVERY


class DecidesNothing:
    """A controller for which every journaled step replays the same (it decides nothing)."""

    def handle(self, event: DeviceEvent, at: float, mono_ns: int | None = None) -> list[Decision]:
        return []


def test_extend_timeout_sends_microseconds_and_the_status_in_one_datagram(notify_socket, notifications) -> None:
    path, _ = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": path})
    notifier.extend_timeout(30, "replaying journal: 1000 steps")
    notifier.extend_timeout(0.1)  # 0.1 * 1e6 is 100000.00000000001 in floating point
    notifier.extend_timeout(2.5e-6)
    assert notifications() == [
        ["EXTEND_TIMEOUT_USEC=30000000", "STATUS=replaying journal: 1000 steps"],
        ["EXTEND_TIMEOUT_USEC=100000"],
        ["EXTEND_TIMEOUT_USEC=2"],
    ]


@pytest.mark.parametrize("seconds", [0, -1.0])
def test_extend_timeout_refuses_a_window_that_is_not_positive(seconds: float) -> None:
    with pytest.raises(ValueError, match="seconds must be positive"):
        Notifier({}).extend_timeout(seconds)


def test_extend_timeout_outside_systemd_opens_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_socket(*args: Any) -> None:
        raise AssertionError("a socket was opened without NOTIFY_SOCKET")

    monkeypatch.setattr("firmware_host.host.systemd.socket.socket", no_socket)
    Notifier({}).extend_timeout(STARTUP_EXTENSION_S, "replaying journal: 1000 steps")


def test_recover_reports_progress_every_replay_progress_every_steps(tmp_path: Path, every: int) -> None:
    total = 2 * every + every // 2
    with Journal.open(tmp_path / "j.sqlite") as journal:
        for at in range(total):
            journal.append_step(float(at), DealerCommand(device="dealer", command="noop"), [])
    seen: list[int] = []
    with Journal.open(tmp_path / "j.sqlite") as journal:
        assert Service(DecidesNothing(), journal).recover(seen.append) == total
    assert seen == [every, 2 * every]


def test_tablehost_run_extends_the_start_timeout_while_replaying_before_ready(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    notify_socket,
    notifications,
    every: int,
) -> None:
    # Without checkpoints, so that the whole journal is replayed.
    profile, journal = make_profile(tmp_path, journal="checkpoint_every_steps = 0"), tmp_path / "j.sqlite"
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)  # pings would fill the fake socket's queue
    rounds = 13  # about ten steps a round: a journal of more than `every` steps
    run = ["run", "--profile", str(profile), "--seed", "3", "--journal", str(journal), "--quiet", "--rounds"]
    assert main([*run, str(rounds)]) == 0
    with Journal.open(journal) as written:
        steps = sum(1 for _ in written.steps())
    assert steps > every
    monkeypatch.setenv("NOTIFY_SOCKET", notify_socket[0])
    assert main([*run, str(rounds + 1)]) == 0
    capsys.readouterr()
    sent = notifications()
    ready = next(i for i, lines in enumerate(sent) if "READY=1" in lines)
    window = f"EXTEND_TIMEOUT_USEC={round(STARTUP_EXTENSION_S * 1e6)}"
    assert sent[:ready] == [
        [window, f"STATUS=opening journal {journal}"],
        *([window, f"STATUS=replaying journal: {n} steps"] for n in range(every, steps + 1, every)),
    ]
    assert not any(lines[0].startswith("EXTEND_TIMEOUT_USEC") for lines in sent[ready:])
