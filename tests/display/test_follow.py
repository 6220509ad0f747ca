"""The web face's follower (issue 30): it reads the face file read-only, rebuilt then polled by
seq, across a rotation of the journal, each shown decision once and in order with its journal seq;
the face file's writer is never held up by it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, cast

from drivers.events.shoe import CardRead
from firmware_host.display.face_file import PAGE, FaceWriter, _connect_writer, _remove
from firmware_host.display.follow import FaceFollower
from firmware_host.display.hub import BACKLOG
from firmware_host.host.journal import Journal
from firmware_host.host.service import HALTED_META
from firmware_host.tables.decisions import HALTED, Decision


class Hub:
    """What the follower feeds: the decisions by seq, and the steps as they came."""

    def __init__(self) -> None:
        self.seqs: dict[int, Decision] = {}
        self.steps: list[tuple[int, list[str]]] = []
        self.started_again = 0
        #: The epochs the follower gave, by rebuild (None: no file read) or by same_journal.
        self.epochs: list[str | None] = []

    def start_again(self, rebuild: Callable[[], object]) -> threading.Event:
        self.seqs.clear()
        self.steps.clear()
        self.started_again += 1
        rebuild()
        done = threading.Event()
        done.set()
        return done

    def rebuild(
        self, decisions: Iterable[tuple[int, Any, Decision]], recent: Iterable[Any] = (), epoch: str | None = None
    ) -> int:
        self.epochs.append(epoch)
        for seq, _, decision in decisions:
            self.taking(seq)
            self.seqs[seq] = decision
        for first, at, step in recent:
            self.feed(first, step, at)
        return len(self.seqs)

    def taking(self, seq: int) -> None:
        """The rebuild takes the decision at ``seq`` (a test's hook)."""

    def same_journal(self, epoch: str) -> None:
        self.epochs.append(epoch)

    def feed(self, seqs: Sequence[int], decisions: Sequence[Decision], at: float) -> None:
        self.steps.append((seqs[0], [d.type for d in decisions]))
        for seq, decision in zip(seqs, decisions, strict=True):
            assert seq not in self.seqs  # each once
            self.seqs[seq] = decision


def step(journal: Journal, n: int) -> int:
    """One step of three decisions (an announcement, the round's odds, a prompt); its input's seq."""
    decisions = [
        Decision("announce", {"announce": "shoe", "shoe": n, "text": "shoe"}),
        Decision("odds", {"round": n, "seen": 1, "ev": {}}, n),  # for surveillance only: never in the face file
        Decision("prompt", {"action": "deal", "to": "player", "card": 1, "exposed": None, "text": "deal"}),
    ]
    return journal.append_step(1000.0 + n, CardRead(device="shoe", rank="9", suit="S"), decisions)


def shown_seqs(path: Path) -> list[int]:
    from firmware_host.host import segments

    return [r.seq for r in segments.records(path) if r.kind == "decision" and r.type != "odds"]


def following(journal: Journal, hub: Hub, steps: int = 0) -> tuple[FaceWriter, FaceFollower]:
    """The journal's face file written after ``steps`` steps, and a follower of it rebuilt."""
    for n in range(steps):
        step(journal, n)
    writer = FaceWriter(journal)
    assert writer.rebuild()
    follower = FaceFollower(writer.path, cast(Any, hub))
    follower.rebuild()
    return writer, follower


def written(writer: FaceWriter) -> None:
    """What the journal holds so far is in the face file."""
    while writer._catch_up():
        pass


def test_it_follows_by_seq_across_a_rotation_each_decision_once(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    hub = Hub()
    with Journal.open(path) as journal:
        for n in range(3):
            step(journal, n)
        writer, follower = following(journal, hub)
        for n in range(3, 6):
            step(journal, n)
        written(writer)
        assert follower.poll() > 0
        journal.rotate({"state": "a"}, at=2000.0)
        for n in range(6, 9):
            step(journal, n)
        journal.rotate({"state": "b"}, at=3000.0)  # steps 6..8 are now only in an archived segment
        step(journal, 9)
        written(writer)
        while follower.poll():
            pass
        assert follower.position == writer.written == journal.last_seq
        follower.stop()
        writer.stop()
    assert sorted(hub.seqs) == shown_seqs(path)  # every shown decision, with its journal seq
    assert all(types == ["announce", "prompt"] for _, types in hub.steps)  # one update a step, no odds


def test_the_halted_record_becomes_the_banner(tmp_path: Path) -> None:
    hub = Hub()
    with Journal.open(tmp_path / "j.sqlite") as journal:
        writer, follower = following(journal, hub)  # an empty journal: the web face started first
        seq = journal.append_meta(HALTED_META, {"reason": "disk full"})
        written(writer)
        follower.poll()
        follower.stop()
        writer.stop()
    banner = hub.seqs[seq]
    assert banner.type == HALTED and "disk full" in banner.data["text"]


def test_a_reader_beside_the_writer_never_holds_its_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        writer, follower = following(journal, Hub())
        for n in range(50):
            step(journal, n)
            written(writer)
            follower.poll()
        assert writer._conn is not None
        busy, frames, copied = writer._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        follower.stop()
        writer.stop()
    assert busy == 0 and copied == frames  # no read transaction was left open


def test_a_face_file_made_anew_is_opened_again(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    hub = Hub()
    with Journal.open(path) as journal:
        step(journal, 0)
        writer, follower = following(journal, hub)
        writer.stop()
        for name in ("", "-wal", "-shm"):  # removed under the reader that has it open
            Path(str(writer.path) + name).unlink(missing_ok=True)
        writer = FaceWriter(journal)
        assert writer.rebuild()  # a new file, a new inode
        step(journal, 1)
        written(writer)
        assert follower.poll() == 2  # the new file's rows after what it had read
        follower.stop()
        writer.stop()
    assert sorted(hub.seqs) == shown_seqs(path)


def test_a_face_file_gone_bad_is_counted_and_made_anew(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        step(journal, 0)
        writer = FaceWriter(journal)
        writer.path.write_bytes(b"not a database" * 512)
        assert not writer.rebuild() and writer.failures == 1  # counted and logged; the table deals on
        assert writer.rebuild() and writer.written == journal.last_seq
        writer.stop()


def test_a_new_journal_with_lower_seqs_is_read_anew(tmp_path: Path) -> None:
    # Issue 30: a web face that had read the face file of a journal stayed ahead of a new
    # journal's lower seqs (it asked for rows after its old position) until it was restarted.
    path, hub = tmp_path / "j.sqlite", Hub()
    with Journal.open(path) as journal:
        writer, follower = following(journal, hub, steps=6)
        before = follower.position
        writer.stop()
    for name in (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm"))):
        name.unlink(missing_ok=True)  # replaced by a new journal: its seqs start again at 1
    with Journal.open(path) as journal:
        step(journal, 0)
        writer = FaceWriter(journal)
        assert writer.rebuild()  # the service's start on it
        assert follower.poll() == 0 and hub.started_again == 1
        assert 0 < follower.position < before
        step(journal, 1)
        written(writer)
        assert follower.poll() == 2  # then followed as before
        follower.stop()
        writer.stop()
    assert sorted(hub.seqs) == shown_seqs(path) and hub.started_again == 1
    assert len(hub.epochs) == 2 and None not in hub.epochs and hub.epochs[0] != hub.epochs[1] == follower.build


def test_the_same_journal_rebuilt_is_followed_on_not_read_anew(tmp_path: Path) -> None:
    hub = Hub()
    with Journal.open(tmp_path / "j.sqlite") as journal:
        step(journal, 0)
        writer, follower = following(journal, hub)
        writer.stop()
        writer = FaceWriter(journal)
        assert writer.rebuild()  # a restarted service rewrites the same rows
        step(journal, 1)
        written(writer)
        assert follower.poll() == 2 and hub.started_again == 0
        follower.stop()
        writer.stop()


def test_the_rebuild_reads_a_page_at_a_time(tmp_path: Path) -> None:
    # The rebuild read the whole face file (two segments' rows) into memory before applying any.
    pages_read: list[int] = []

    class Counting(Hub):
        def taking(self, seq: int) -> None:
            pages_read.append(reads)

    reads = 0
    with Journal.open(tmp_path / "j.sqlite") as journal:
        for n in range(BACKLOG + 2 * PAGE):  # two shown rows a step: six pages
            step(journal, n)
        writer = FaceWriter(journal)
        assert writer.rebuild()
        hub = Counting()
        follower = FaceFollower(writer.path, cast(Any, hub))
        original = follower._read

        def counted() -> tuple[bool, list[Any]]:
            nonlocal reads
            reads += 1
            return original()

        follower._read = counted  # type: ignore[method-assign]
        follower.rebuild()
        follower.stop()
        writer.stop()
        assert sorted(hub.seqs) == shown_seqs(journal.path)
    kept = 1 + 2 * BACKLOG // PAGE  # the pages of the last BACKLOG steps, held for the backlog
    assert pages_read[0] <= kept < reads - 2  # the first decision applied long before the last page is read
    assert follower.position == max(hub.seqs) and len(hub.steps) == BACKLOG


def test_a_face_file_made_anew_and_not_built_yet_is_no_new_journal(tmp_path: Path) -> None:
    # The writer made a failed file anew: its schema is committed before its rebuild's
    # transaction. A follower that opened it then found the last row read gone and took the
    # empty file for a new journal: the view went blank mid-shoe, every stream ended, and both
    # segments' rows came back as live steps.
    path, hub = tmp_path / "j.sqlite", Hub()
    with Journal.open(path) as journal:
        writer, follower = following(journal, hub, steps=3)
        position, build = follower.position, follower.build
        writer.stop()
        _remove(writer.path)  # FaceWriter._failed: not a face file any more
        _connect_writer(writer.path).close()  # made anew: the schema, not the rebuild yet
        assert follower.poll() == 0 and hub.started_again == 0 and follower.position == position
        writer = FaceWriter(journal)
        assert writer.rebuild()
        step(journal, 3)
        written(writer)
        assert follower.poll() == 2 and hub.started_again == 0  # followed on from where it was
        follower.stop()
        writer.stop()
    assert build is not None and hub.epochs == [build, follower.build] and follower.build != build
    assert sorted(hub.seqs) == shown_seqs(path)


def test_stopping_during_a_rebuild_on_the_hub_thread_reads_no_more(tmp_path: Path) -> None:
    # start_again runs the follower's rebuild on the hub's thread while the follower lives: its
    # stop() closed the connection under the hub's reads, and the next page opened it again.
    taken: list[int] = []

    class Stopping(Hub):
        def taking(self, seq: int) -> None:
            if not taken:
                threading.Thread(target=follower.stop).start()  # another thread, as the web face's
                assert stopped.wait(10)
            taken.append(seq)

    with Journal.open(tmp_path / "j.sqlite") as journal:
        for n in range(BACKLOG + 2 * PAGE):
            step(journal, n)
        writer = FaceWriter(journal)
        assert writer.rebuild()
        follower = FaceFollower(writer.path, cast(Any, Stopping()))
        stopped = threading.Event()
        original = follower._close

        def close() -> None:
            original()
            stopped.set()

        follower._close = close  # type: ignore[method-assign]
        follower.rebuild()
        writer.stop()
    assert 0 < len(taken) < len(shown_seqs(journal.path))  # it ended at the page it had read
    assert follower._conn is None  # and opened the file no more
