"""The web face's follower (issue 30): it reads the journal read-only, rebuilt then polled by seq,
across a rotation, each decision once and in order with its journal seq; the writer's checkpoints
are never held up by it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, cast

from drivers.events.shoe import CardRead
from firmware_host.display.follow import JournalFollower
from firmware_host.host.journal import Journal
from firmware_host.host.service import HALTED_META
from firmware_host.tables.decisions import HALTED, Decision


class Hub:
    """What the follower feeds: the decisions by seq, and the steps as they came."""

    def __init__(self) -> None:
        self.seqs: dict[int, Decision] = {}
        self.steps: list[tuple[int, list[str]]] = []

    def rebuild(self, decisions: Iterable[tuple[int, Any, Decision]], recent: Iterable[Any] = ()) -> int:
        for seq, _, decision in decisions:
            self.seqs[seq] = decision
        for first, at, step in recent:
            self.feed(first, step, at)
        return len(self.seqs)

    def feed(self, first_seq: int, decisions: Sequence[Decision], at: float) -> None:
        self.steps.append((first_seq, [d.type for d in decisions]))
        for offset, decision in enumerate(decisions):
            assert first_seq + offset not in self.seqs  # each once
            self.seqs[first_seq + offset] = decision


def step(journal: Journal, n: int) -> int:
    """One step of two decisions (the card's announcement and a prompt); its input's seq."""
    decisions = [Decision("announce", {"card": n}), Decision("prompt", {"action": "deal"})]
    return journal.append_step(1000.0 + n, CardRead(device="shoe", rank="9", suit="S"), decisions)


def decision_seqs(path: Path) -> list[int]:
    from firmware_host.host import segments

    return [r.seq for r in segments.records(path) if r.kind == "decision"]


def test_it_follows_by_seq_across_a_rotation_each_decision_once(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    hub = Hub()
    with Journal.open(path) as journal:
        for n in range(3):
            step(journal, n)
        follower = JournalFollower(path, cast(Any, hub))
        follower.rebuild()
        for n in range(3, 6):
            step(journal, n)
        assert follower.poll() > 0
        journal.rotate({"state": "a"}, at=2000.0)
        for n in range(6, 9):
            step(journal, n)
        journal.rotate({"state": "b"}, at=3000.0)  # steps 6..8 are now only in an archived segment
        step(journal, 9)
        while follower.poll():
            pass
        assert follower.position == journal.last_seq
        follower.stop()
    assert sorted(hub.seqs) == decision_seqs(path)  # every decision, with its journal seq
    assert all(types == ["announce", "prompt"] for _, types in hub.steps)  # one update a step


def test_the_halted_record_becomes_the_banner(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    hub = Hub()
    with Journal.open(path) as journal:
        step(journal, 0)
        follower = JournalFollower(path, cast(Any, hub))
        follower.rebuild()
        seq = journal.append_meta(HALTED_META, {"reason": "disk full"})
        follower.poll()
        follower.stop()
    banner = hub.seqs[seq]
    assert banner.type == HALTED and "disk full" in banner.data["text"]


def test_a_reader_beside_the_writer_never_holds_its_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        follower = JournalFollower(path, cast(Any, Hub()))
        follower.rebuild()
        for n in range(50):
            step(journal, n)
            follower.poll()
        busy, frames, copied = journal._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        follower.stop()
    assert busy == 0 and copied == frames  # no read transaction was left open
