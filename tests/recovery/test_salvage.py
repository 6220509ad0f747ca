"""``tablehost journal salvage`` (issue 27, item 5): from a damaged journal, the intact part kept
as it was, every later record the damaged file still gives and proves restored, what follows
restored from the floor's signed copy, and exactly what could not be said; the result verifies
and ``run`` resumes it. A tampered floor copy is refused and named; without a floor copy the
rest is reported lost.

The table is played once (a keyed journal, a signed feed); each test damages its own copy. The
floor's copy is what the collector stores of the table's feed (``Collector.process``, the same
admission and store as ``tablehost floor``); one test runs it all through Mosquitto and
PostgreSQL, and resumes the table's feed after the salvage.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.feed.broker import Broker, have_mosquitto
from bench.floor.tables import FloorDb, floor_keys, provision, run_table, table_profile
from firmware_host.cli import main
from firmware_host.feed import schema, signing
from firmware_host.feed.broker import BrokerSettings
from firmware_host.feed.schema import FeedState
from firmware_host.floor.collector import Collector
from firmware_host.floor.store import SqliteStore, SqlStore
from firmware_host.host import segments
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import Record
from firmware_host.host.journal_keys import write_key
from firmware_host.host.journal_verify import verify
from firmware_host.tables.decisions import ROUNDS_LOST
from firmware_host.wiring import salvage as salvage_module
from firmware_host.wiring.salvage import SALVAGE_META, SALVAGED_META
from tests.support.floor_run import collecting, wait_for, wait_for_the_floor

TABLE = "SIM-BAC-1"
#: Rounds played before the damage, and after the salvage.
ROUNDS, MORE = 16, 3


@dataclasses.dataclass(frozen=True)
class Played:
    directory: Path
    profile: Path
    key_file: Path
    signing_key: Path

    @property
    def journal(self) -> Path:
        return self.directory / "j.sqlite"

    @property
    def feed_key(self) -> Path:
        return floor_keys(self.directory) / f"{TABLE}.pub"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The simulated Baccarat table played once: a keyed journal, a feed signing key."""
    directory = tmp_path_factory.mktemp("played")
    key_file = directory / "journal.key"
    write_key(key_file)
    profile = table_profile(directory, journal=f'hmac_key_file = "{key_file}"')
    made = Played(directory, profile, key_file, provision(directory))
    run_table(profile, made.journal, ROUNDS, seed=3)
    return made


def records(path: Path) -> list[Record]:
    return list(segments.records(path))


def copy_of(played: Played, tmp_path: Path) -> Path:
    journal = tmp_path / "j.sqlite"
    shutil.copy(played.journal, journal)
    return journal


def to_the_floor(played: Played, journal: Path, store: SqlStore) -> list[dict[str, Any]]:
    """Store the table's feed of ``journal`` as the collector does; return the messages."""
    signer = signing.Signer.from_file(played.signing_key)
    messages = [signer.sign(m) for m, _ in schema.derive(TABLE, records(journal), FeedState())]
    collector = Collector(store, BrokerSettings("mqtt://127.0.0.1:1"), signing.Keyring(floor_keys(played.directory)))
    outcomes = collector.process([(f"tablehost/{TABLE}/events", schema.encode(m)) for m in messages])
    assert {o.kind for o in outcomes} == {"stored"}
    return messages


def zero_a_leaf(journal: Path) -> int:
    """Overwrite the middle leaf page of the records with zeros (a disk's bad sector); return its number."""
    with contextlib.closing(sqlite3.connect(journal)) as conn:
        leaves = [n for (n,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'records' AND pagetype = 'leaf'")]
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    page = leaves[len(leaves) // 2]
    with journal.open("r+b") as file:
        file.seek((page - 1) * size)
        file.write(bytes(size))
    return page


def change_a_result(journal: Path, round: int) -> Record:
    """Change one byte of round ``round``'s result in the file (bit rot): the record no longer
    matches its hash, SQLite still reads it. Return the record as it was."""
    record = next(r for r in records(journal) if r.type == "round_result" and r.round == round)
    with contextlib.closing(sqlite3.connect(journal)) as conn:
        (text,) = conn.execute("SELECT data FROM records WHERE seq = ?", (record.seq,)).fetchone()
    raw = journal.read_bytes()
    where = raw.find(text.encode())
    assert where > 0 and raw.find(text.encode(), where + 1) == -1
    at = where + text.index('"round":') + len('"round":')
    with journal.open("r+b") as file:
        file.seek(at)
        file.write(b"9" if raw[at : at + 1] != b"9" else b"8")
    return record


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def salvage(played: Played, journal: Path, *floor: str) -> tuple[int, list[str]]:
    status, out, err = cli("journal", "salvage", str(journal), "--key-file", str(played.key_file), *floor)
    assert err == "" and status in (0, 1), err
    return status, out.splitlines()


def with_a_floor(played: Played, tmp_path: Path) -> tuple[Path, list[Record], list[dict[str, Any]]]:
    """The test's copy of the journal, its records, and the floor's copy of its feed (``floor.sqlite`` beside it)."""
    journal = copy_of(played, tmp_path)
    store = SqliteStore(tmp_path / "floor.sqlite")
    messages = to_the_floor(played, journal, store)
    store.close()
    return journal, records(journal), messages


def salvage_from_the_floor(played: Played, journal: Path) -> tuple[int, list[str]]:
    """``journal salvage`` with the floor's copy beside the journal."""
    floor = ["--floor-db", str(journal.with_name("floor.sqlite")), "--feed-key", str(played.feed_key)]
    return salvage(played, journal, *floor)


def the_salvage(journal: Path) -> tuple[list[Record], dict[str, Any], list[dict[str, Any]]]:
    """The salvaged journal's kept records, its salvage record's data, its restored items."""
    every = records(journal)
    at = next(i for i, r in enumerate(every) if r.type == SALVAGE_META)
    restored = [r.data for r in every[at + 1 :] if r.type == SALVAGED_META]
    return every[:at], every[at].data, restored


def check_accounted(original: list[Record], journal: Path, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Every original record is kept as it was, restored as it was, or reported lost: once each."""
    kept, summary, restored = the_salvage(journal)
    assert [dataclasses.astuple(r) for r in kept] == [dataclasses.astuple(r) for r in original[: len(kept)]]
    from_journal = [item["record"] for item in restored if item["source"] == "journal"]
    assert from_journal == [original[r["seq"] - 1].to_json() for r in from_journal]
    unsigned = [{k: v for k, v in m.items() if k not in schema.SIGNATURE_FIELDS} for m in messages]
    by_journal_seq = {m["journal_seq"]: m for m in unsigned}
    from_floor = [
        {k: v for k, v in item["message"].items() if k not in schema.SIGNATURE_FIELDS}
        for item in restored
        if item["source"] == "floor"
    ]
    assert from_floor == [by_journal_seq[m["journal_seq"]] for m in from_floor]
    lost = [seq for a, b in summary["lost_journal_seqs"] for seq in range(a, b + 1)]
    seqs = [r.seq for r in kept] + [r["seq"] for r in from_journal] + [m["journal_seq"] for m in from_floor] + lost
    assert summary["known_end"] <= len(original)
    assert sorted(seqs) == list(range(1, summary["known_end"] + 1))  # each once
    return summary


def resumes(played: Played, journal: Path) -> None:
    """``journal verify`` accepts the salvaged journal and ``run`` plays on from it."""
    status, out, _ = cli("journal", "verify", str(journal), "--key-file", str(played.key_file))
    assert status == 0 and "intact" in out
    before = sum(1 for r in records(journal) if r.type == "round_result")
    run_table(played.profile, journal, before + MORE, seed=3)
    assert verify(journal, hmac_key=played.key_file.read_bytes()).ok
    assert sum(1 for r in records(journal) if r.type == "round_result") == before + MORE
    deep = ("--deep", "--profile", str(played.profile))
    status, out, err = cli("journal", "verify", str(journal), "--key-file", str(played.key_file), *deep)
    assert status == 0 and "intact" in out, err  # replayed from its first record: the salvage's step too
    rounds_go_on_past_the_salvage(journal)


def known_rounds(journal: Path) -> set[int]:
    """Every round number the salvaged journal knows was issued: in its kept records, and in those
    it restored from the damaged file or the floor."""
    kept, _, restored = the_salvage(journal)
    named = [r.round for r in kept]
    named += [item["record"]["round"] for item in restored if item["source"] == "journal"]
    named += [item["message"].get("round") for item in restored if item["source"] == "floor"]
    return {n for n in named if n is not None}


def rounds_go_on_past_the_salvage(journal: Path) -> None:
    """§ 541.12(c): a round number names one round. The rounds played after a salvage are numbered
    past every round the journal knows was issued (none reused); ``journal export --rounds`` goes
    from the kept rounds to them, and the ``rounds_lost`` decision names the numbers between."""
    known = known_rounds(journal)
    every = records(journal)
    salvaged_at = next(r.seq for r in every if r.type == SALVAGE_META)
    played_after = [r.round for r in every if r.type == "round_result" and r.seq > salvaged_at and r.round]
    assert played_after and min(played_after) > max(known), (sorted(known)[-3:], played_after)
    assert len(set(played_after)) == len(played_after)
    (gap,) = [r for r in every if r.type == ROUNDS_LOST]  # journaled once, by the salvage, as a step's decision
    assert gap.seq > salvaged_at and gap.data["last"] == max(known) and gap.data["next"] == min(played_after)
    status, out, _ = cli("journal", "export", str(journal), "--rounds")
    exported = [json.loads(line) for line in out.splitlines()]
    numbers = [r["round"] for r in exported]
    assert status == 0 and len(set(numbers)) == len(numbers)
    assert [n for n in numbers if n >= gap.data["first"]] == played_after  # the gap, then the rounds played
    status, out, err = cli("journal", "report", str(journal), "--json")
    assert status == 0 and json.loads(out), err


def test_a_bad_page_loses_only_what_neither_the_file_nor_the_floor_holds(played: Played, tmp_path: Path) -> None:
    journal, original, messages = with_a_floor(played, tmp_path)
    zero_a_leaf(journal)
    damaged = journal.read_bytes()
    assert not verify(journal, hmac_key=played.key_file.read_bytes()).ok

    status, lines = salvage_from_the_floor(played, journal)
    summary = check_accounted(original, journal, messages)
    kept_last = summary["kept"][1]
    lost = sum(b - a + 1 for a, b in summary["lost_journal_seqs"])
    assert status == 1 and 0 < lost < 40  # one page of records, less what the floor had of it
    assert summary["known_end"] == len(original)  # the file still names its last record
    assert summary["refused"] == [] and summary["refused_from_journal"] == []
    assert lines[1] == f"kept as it was: records 1..{kept_last} ({kept_last})"
    assert any(line.startswith(f"restored from the floor {tmp_path / 'floor.sqlite'}: ") for line in lines)
    assert any(line.startswith(f"lost: {lost} records, journal seq ") for line in lines)
    assert (tmp_path / "j.sqlite.damaged").read_bytes() == damaged  # kept as it was, under its new name
    resumes(played, journal)


def test_a_truncated_journal_is_salvaged(played: Played, tmp_path: Path) -> None:
    journal, original, messages = with_a_floor(played, tmp_path)
    with journal.open("r+b") as file:
        file.truncate(journal.stat().st_size * 2 // 3 // 4096 * 4096)
    status, _ = salvage_from_the_floor(played, journal)
    summary = check_accounted(original, journal, messages)
    assert status == 1 and summary["restored"] > 0  # what the file lost, the floor's copy gives back in part
    resumes(played, journal)


def test_a_broken_record_mid_way_is_restored_from_the_floor(
    played: Played, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(salvage_module, "FLOOR_PAGE", 7)  # the floor read in many pages
    journal, original, messages = with_a_floor(played, tmp_path)
    broken = change_a_result(journal, 8)
    finding = verify(journal, hmac_key=played.key_file.read_bytes()).finding()
    assert finding.startswith(f"BROKEN at record {broken.seq}: changed content")

    status, lines = salvage_from_the_floor(played, journal)
    summary = check_accounted(original, journal, messages)
    assert status == 1 and lines[0] == f"{journal}: {finding}" and summary["kept"][1] < broken.seq
    assert summary["refused_from_journal"] == [
        [broken.seq, "changed content: its content does not match its stored hash"]
    ]
    restored = [item for item in the_salvage(journal)[2] if item["source"] == "floor"]
    assert [item["message"]["journal_seq"] for item in restored] == [broken.seq]
    assert (
        restored[0]["record_checked"] and restored[0]["message"]["data"] == broken.data
    )  # proven by the record's hash
    assert summary["lost_journal_seqs"] == [] and summary["record_hashes_checked"] == 1
    resumes(played, journal)


def test_a_tampered_floor_copy_is_refused_and_named(played: Played, tmp_path: Path) -> None:
    journal, original, messages = with_a_floor(played, tmp_path)
    broken = change_a_result(journal, 8)
    message = next(m for m in messages if m["journal_seq"] == broken.seq)
    with contextlib.closing(sqlite3.connect(tmp_path / "floor.sqlite")) as conn, conn:
        conn.execute(  # the banker's total, changed on the floor
            "UPDATE messages SET data = json_set(data, '$.banker_total', 0) WHERE table_id = ? AND seq = ?",
            (TABLE, message["seq"]),
        )
    status, lines = salvage_from_the_floor(played, journal)
    summary = check_accounted(original, journal, [m for m in messages if m is not message])
    why = f"message {message['seq']}: its content does not match its hash"
    assert status == 1 and summary["refused"] == [[message["seq"], why]]
    assert f"refused from the floor: feed seq {message['seq']}: {why}" in lines
    assert summary["lost_journal_seqs"] == [[broken.seq, broken.seq]] and summary["restored"] == 0
    assert f"lost: 1 records, journal seq {broken.seq} (" in "\n".join(lines)


def test_without_a_floor_copy_the_rest_is_reported_lost(played: Played, tmp_path: Path) -> None:
    journal = copy_of(played, tmp_path)
    original = records(journal)
    with journal.open("r+b") as file:
        file.truncate(journal.stat().st_size // 2 // 4096 * 4096)
    status, lines = salvage(played, journal)
    summary = check_accounted(original, journal, [])
    assert status == 1 and summary["floor"] is None and summary["restored"] == 0
    assert "restored from the floor: nothing (no floor copy given)" in lines
    assert summary["lost_journal_seqs"] == []  # all the file still gives is kept or restored; nothing more is known
    assert (
        f"unknown: whatever followed record {summary['known_end']} (neither the damaged file nor the floor names a later one)"
        in lines
    )
    resumes(played, journal)


def test_a_salvage_cut_short_after_keeping_the_damaged_file_goes_on_from_it(played: Played, tmp_path: Path) -> None:
    journal = copy_of(played, tmp_path)
    broken = change_a_result(journal, 8)
    damaged = journal.with_name("j.sqlite.damaged")
    os.link(journal, damaged)  # where a power cut left the last salvage: the file under both names
    status, _ = salvage(played, journal)
    assert status == 1 and verify(journal, hmac_key=played.key_file.read_bytes()).ok
    assert not os.path.samefile(journal, damaged) and the_salvage(journal)[1]["kept"][1] < broken.seq
    assert damaged.read_bytes() != journal.read_bytes() and verify(damaged).broken_seq == broken.seq


def test_salvage_refuses_a_running_table_and_an_earlier_salvage(played: Played, tmp_path: Path) -> None:
    journal = copy_of(played, tmp_path)
    with Journal.open(journal, hmac_key=played.key_file.read_bytes()):  # the table running
        status, _, err = cli("journal", "salvage", str(journal), "--key-file", str(played.key_file))
    assert status == 75 and "another process is writing to it" in err  # EX_TEMPFAIL: try again
    (tmp_path / "j.sqlite.damaged").write_bytes(b"")
    status, _, err = cli("journal", "salvage", str(journal), "--key-file", str(played.key_file))
    assert status == 2 and "j.sqlite.damaged is there already" in err
    status, _, err = cli("journal", "salvage", str(journal), "--floor-db", str(tmp_path / "f.sqlite"))
    assert status == 2 and "--floor-db needs --feed-key" in err


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Broker]:
    if not have_mosquitto():
        pytest.skip("needs the Debian package mosquitto (make deps)")
    with Broker(tmp_path / "broker") as running:
        yield running


@pytest.mark.slow  # a table run twice through Mosquitto to PostgreSQL: about 15 s
def test_on_postgresql_the_resumed_feed_follows_the_floors_copy(
    played: Played, tmp_path: Path, postgres_db: FloorDb, mosquitto: Broker
) -> None:
    """Through Mosquitto to a collector on PostgreSQL; salvaged from it; the table's feed, resumed,
    goes on after the floor's last message: no gap, no break."""
    profile = table_profile(
        tmp_path, feed=f'broker = "{mosquitto.url}"', journal=f'hmac_key_file = "{played.key_file}"'
    )
    feed_key = floor_keys(tmp_path) / f"{TABLE}.pub"
    journal = tmp_path / "j.sqlite"
    with collecting(postgres_db, mosquitto.url) as floor:
        run_table(profile, journal, ROUNDS, mosquitto.url, seed=3)
        # A clean stop waits 3 s for the floor's acknowledgements; on a loaded machine the rest
        # goes at the next start, which this makes (it only publishes: the rounds are played).
        wait_for_the_floor(postgres_db, journal, profile, mosquitto.url, ROUNDS)
        last = max(r.seq for r in records(journal))
        wait_for(
            lambda: (
                floor.collector.stats.last_seq.get(TABLE, 0)
                >= len(list(schema.derive(TABLE, records(journal), FeedState())))
            ),
            30,
            "the floor's copy",
        )
    original = records(journal)
    messages = [m for m, _ in schema.derive(TABLE, original, FeedState())]
    zero_a_leaf(journal)
    args = ["--floor-db", postgres_db.spec, "--floor-password-file", str(postgres_db.password_file)]
    status, _ = salvage(played, journal, *args, "--feed-key", str(feed_key))
    summary = check_accounted(original, journal, messages)
    assert status == 1 and summary["kept"][1] < last
    assert summary["feed_cursor"]["seq"] == len(messages)

    with collecting(postgres_db, mosquitto.url) as floor:
        before = sum(1 for r in records(journal) if r.type == "round_result")
        run_table(profile, journal, before + MORE, mosquitto.url, seed=3)
        wait_for(lambda: floor.collector.stats.last_seq.get(TABLE, 0) > len(messages), 30, "the resumed feed")
    store = postgres_db.open(read_only=True)
    try:
        status_now = store.status(TABLE)
    finally:
        store.close()
    assert status_now.gaps == [] and status_now.breaks == 0 and status_now.last_seq > len(messages)
