"""The floor soak's pieces that need no server: re-issuing a journal's feed under another table's
id and key (bench/floor/soak_issue.py), the end check that compares the store with what was
issued (bench/floor/soak_report.py), the use of the dashboard probe's interface, and the rig's wait
for a collector's subscription (bench/floor/soak_rig.py)."""

from __future__ import annotations

import dataclasses
import random
import sys
import threading
import types
from pathlib import Path

import pytest

from bench.bench_floor_soak import Soak, arguments
from bench.floor.records import RECORDS
from bench.floor.soak_issue import PACES, reissue, schedule
from bench.floor.soak_measure import Row
from bench.floor.soak_report import differences
from bench.floor.soak_rig import DASHBOARD_PIN, SUBSCRIBED, wait_for_line
from firmware_host.feed import schema, signing
from firmware_host.feed.schema import FeedState


def _groups() -> list[list[dict]]:
    messages = [m for m, _ in schema.derive("SOURCE", RECORDS, FeedState())]
    return [messages[:3], messages[3:]]


def test_a_reissued_feed_is_the_new_tables_own_signed_chain(tmp_path: Path) -> None:
    private, public = tmp_path / "B001.key", tmp_path / "B001.pub"
    signing.keygen(private, public)
    bursts = reissue(_groups(), "B001", signing.Signer.from_file(private), [100.0, 104.8])
    messages = [schema.check_message(payload, signed=True) for burst in bursts for payload in burst.payloads]
    keys = signing.load_public_keys(public)
    assert [m["seq"] for m in messages] == list(range(1, len(messages) + 1))
    assert {m["table"] for m in messages} == {"B001"}
    assert [m["at"] for m in messages] == [100.0] * 3 + [104.8] * (len(messages) - 3)
    assert [m["prev_hash"] for m in messages] == [schema.GENESIS_HASH] + [m["hash"] for m in messages[:-1]]
    assert all(signing.verify(m, keys) is None for m in messages)
    assert [h for burst in bursts for h in burst.hashes] == [m["hash"] for m in messages]


def test_a_schedule_starts_within_2_s_and_keeps_the_games_round_period() -> None:
    period = PACES["baccarat"].period_s(10)
    times = schedule(1000.0, period, 5, random.Random(1))
    assert 1000.0 <= times[0] <= 1002.0
    assert [round(b - a, 9) for a, b in zip(times[1:], times[2:])] == [round(period, 9)] * 4
    assert period == 4.8  # 75 hands an hour, ten times over


def test_the_end_check_finds_a_lost_a_doubled_and_a_changed_message() -> None:
    issued = {"B000": ["a" * 64, "b" * 64], "P001": ["c" * 64], "B002": ["d" * 64], "P003": ["e" * 64]}
    rows = [
        Row("B000", 1, "a" * 64, 1.0, 1.1),
        Row("B000", 2, "b" * 64, 1.0, 1.1),  # exact
        Row("B002", 1, "d" * 64, 1.0, 1.1),
        Row("B002", 2, "x" * 64, 1.0, 1.1),  # one more than issued
        Row("P003", 1, "f" * 64, 1.0, 1.1),  # another hash
    ]  # P001: lost
    assert differences(rows, issued) == ["P001", "B002", "P003"]


class _FakeProbe:
    """bench/floor/dashboard_probe.py's interface (another branch builds the real one)."""

    made: list[tuple[str, str, str]] = []

    def __init__(self, url: str, role: str, credential: str, *, chromium: Path | None = None) -> None:
        self.made.append((url, role, credential))
        self._batches = [[Drawn("B000", 1, 10.5)], [Drawn("P001", 2, 11.0)]]

    def __enter__(self) -> _FakeProbe:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def drawn(self) -> list[Drawn]:
        return self._batches.pop(0) if self._batches else []

    def frame_stats(self) -> dict[str, float]:
        return {"fps": 30.0}


@dataclasses.dataclass(frozen=True)
class Drawn:
    table: str
    seq: int
    at: float


def _soak(tmp_path: Path) -> Soak:
    return Soak(arguments(["--tables", "2", "--live", "1", "--duration", "20"]), tmp_path)


def test_the_soak_reads_the_dashboard_probe_through_its_interface(tmp_path: Path, monkeypatch) -> None:
    module = types.ModuleType("bench.floor.dashboard_probe")
    module.DashboardProbe = _FakeProbe  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench.floor.dashboard_probe", module)
    soak, stop = _soak(tmp_path), threading.Event()
    stop.set()
    soak.watch_dashboard(types.SimpleNamespace(dashboard_url="http://127.0.0.1:9"), stop)  # type: ignore[arg-type]
    assert _FakeProbe.made == [("http://127.0.0.1:9", "surveillance", DASHBOARD_PIN)]
    assert [(d.table, d.seq) for d in soak.drawn] == [("B000", 1)]
    assert soak.frames == {"fps": 30.0} and not soak.notes


def test_without_the_dashboard_probe_the_soak_says_so_and_goes_on(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "bench.floor.dashboard_probe", None)  # import fails
    soak = _soak(tmp_path)
    soak.watch_dashboard(types.SimpleNamespace(dashboard_url="http://127.0.0.1:9"), threading.Event())  # type: ignore[arg-type]
    assert soak.drawn == [] and soak.notes == [
        "dashboard: bench/floor/dashboard_probe.py is not in this tree, no dashboard figure"
    ]


class _Alive:
    """A child process that has not exited (what :func:`wait_for_line` asks of it)."""

    def poll(self) -> None:
        return None


def test_the_rig_waits_for_the_collectors_subscription_not_its_connection(tmp_path: Path) -> None:
    """A new session hears nothing published before its SUBACK; the rig waited for the collector's
    ``connected`` line (CONNACK). It now waits for ``subscribed``, counting the lines a restarted
    collector adds to the same log."""
    import time

    log = tmp_path / "floor-a.log"
    log.write_text("floor: connected to mqtt://x (session new)\nfloor: subscribed to tablehost/+/events\n")
    log.write_text(log.read_text() + "floor: connected to mqtt://x (session resumed)\n")  # restarted: no SUBACK yet
    waited = threading.Thread(target=wait_for_line, args=(log, SUBSCRIBED, 1, _Alive(), time.monotonic() + 30))
    waited.start()
    waited.join(0.5)
    assert waited.is_alive()  # connected again, not yet subscribed: still waiting
    log.write_text(log.read_text() + "floor: subscribed to tablehost/+/events\n")
    waited.join(30)
    assert not waited.is_alive()
    with pytest.raises(RuntimeError, match="did not log 'floor: subscribed to'"):
        wait_for_line(log, SUBSCRIBED, 2, _Alive(), time.monotonic())  # the deadline passed
