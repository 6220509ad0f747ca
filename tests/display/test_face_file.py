"""The face file through the real service (issue 30): a face-down shoe (§ 541.9(c)(2)) dealt with the
web face in its own process never puts a card in the face file before the journal shows the table
exposing it (§ 541.10(a)); the file holds exactly what the filter keeps of the journal, under the
journal's seqs; and a service SIGKILLed mid-shoe and started again catches its face file up with no
seq missing or twice, while a web face that outlived it follows on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

from bench.display.table import BACCARAT, write_profile
from bench.soak.profiles import PROFILES
from firmware_host.display.face import shown
from firmware_host.display.face_file import MODE, FaceRow, connect_reader, face_path, read_after
from firmware_host.host import segments
from firmware_host.host.journal_codec import Record
from tests.display.conftest import Running
from tests.support.device_events import eventually
from tests.support.nothing_early import CARD
from tests.support.paths import REPO

ROUNDS = 6


def face_rows(path: Path) -> list[FaceRow]:
    conn = connect_reader(path)
    try:
        rows: list[FaceRow] = []
        while page := read_after(conn, rows[-1].seq if rows else 0):
            rows += page
        return rows
    finally:
        conn.close()


def expected_rows(journal: Path) -> list[tuple[int, str, dict[str, object]]]:
    """What the filter keeps of the journal's live segment and the one before it."""
    live = segments.segments_of(journal)[-2:]
    records: list[Record] = []
    for segment in live:
        with segments.opened(segment) as conn:
            records += [Record.from_row(row) for row in conn.execute("SELECT * FROM records ORDER BY seq")]
    return [(r.seq, d.type, d.data) for r in records if (d := shown(r)) is not None]


def exposed_at(journal: list[Record]) -> dict[int, int]:
    """Of each round, the seq of the reveal's point counts: the initial cards face up (§ 541.10(a))."""
    return {
        r.round: r.seq
        for r in journal
        if r.kind == "decision" and r.type == "announce" and r.data["announce"] == "point_counts" and r.round
    }


def test_541_9_c_2_the_face_file_never_holds_a_card_before_the_journal_exposes_it(
    run_table: Callable[..., Running],
) -> None:
    table = run_table(face_down=True, rounds=ROUNDS, web_face="child")
    table.thread.join(timeout=120)
    assert table.service.rounds_finished == ROUNDS and table.flush()  # the child web face shows it all
    face = table.table.face
    assert face is not None and face.failures == 0
    assert face.path.stat().st_mode & 0o777 == MODE
    journal = list(table.table.journal.records())
    rows = face_rows(face.path)
    assert [(row.seq, row.decision.type, row.decision.data) for row in rows] == expected_rows(face.path.with_suffix(""))
    assert table.seq() == rows[-1].seq == face.written  # the pages' event id is the journal seq

    kinds = {r.seq: (r.kind, r.type) for r in journal}
    assert all(kinds[row.seq] in {("decision", row.decision.type), ("meta", "halted")} for row in rows)
    assert not any(row.decision.type == "odds" for row in rows)  # protection data: surveillance's only
    points = exposed_at(journal)
    assert len(points) == ROUNDS
    reads = [r.seq for r in journal if r.kind == "input" and r.type == "CardRead"]
    early = 0
    for row in rows:
        named = CARD.findall(json.dumps(row.decision.data))
        if row.decision.type == "announce" and row.decision.data["announce"] == "burn_card":
            continue  # § 541.5(g): the first burn card is shown as it is drawn
        if row.decision.round in points and row.seq < points[row.decision.round]:
            assert not named, (row.seq, row.decision)  # face down until the reveal
            early += any(r < row.seq for r in reads) and row.decision.type == "prompt"
        assert len(named) <= sum(r < row.seq for r in reads)  # no card the shoe had not yet given
    assert early > 0  # prompts while cards lay face down were there, and named none


def run_command(profile: Path, journal: Path, web_face: str) -> list[str]:
    return [
        sys.executable, "-m", "firmware_host", "run", "--profile", str(profile), "--journal", str(journal),
        "--rounds", str(ROUNDS), "--seed", "3", "--pace", "0.01", "--quiet", "--web-face", web_face,
    ]  # fmt: skip


def test_a_killed_service_catches_its_face_file_up_with_no_seq_missing_or_twice(tmp_path: Path) -> None:
    (tmp_path / "tables").mkdir()
    (tmp_path / "devices").symlink_to(PROFILES / "devices")  # where a profile's device models are
    profile = write_profile(tmp_path / "tables", BACCARAT.format(decks=8, rules='initial_deal = "face_down"'))
    journal = tmp_path / "journal.sqlite"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    log = (tmp_path / "run.log").open("ab")
    # The web face as systemd runs it, its own process: it outlives the service's kill.
    service = subprocess.Popen(run_command(profile, journal, "external"), cwd=REPO, env=env, stdout=log, stderr=log)
    web = None
    try:
        eventually(lambda: face_path(journal).exists() and journal.with_name("journal.sqlite.ctl").exists(), 60)
        web = subprocess.Popen(
            [sys.executable, "-m", "firmware_host.cli.webface", "--profile", str(profile), "--journal", str(journal),
             "--socket", str(journal.with_name("journal.sqlite.ctl")), "--http", "127.0.0.1:0"],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=log, text=True,
        )  # fmt: skip
        assert web.stdout is not None
        url = json.loads(web.stdout.readline())["display"]

        def shows() -> int:
            with urllib.request.urlopen(url + "/api/state", timeout=5) as answer:
                return int(json.load(answer)["seq"])

        eventually(lambda: any(row.decision.type == "round_result" for row in face_rows(face_path(journal))), 120)
        service.send_signal(signal.SIGKILL)  # mid-shoe
        service.wait(timeout=30)
        before = face_rows(face_path(journal))
        assert before and before[-1].decision.type != "shoe_result"
        eventually(lambda: shows() >= before[-1].seq, 30)

        again = subprocess.run(run_command(profile, journal, "external"), cwd=REPO, env=env, stdout=log, stderr=log,
                               timeout=300)  # fmt: skip
        assert again.returncode == 0
        after = face_rows(face_path(journal))
        assert [(row.seq, row.decision.type, row.decision.data) for row in after] == expected_rows(journal)
        assert [row.seq for row in after] == sorted({row.seq for row in after})  # none twice, in order
        assert [row for row in after if row.seq <= before[-1].seq] == before  # what the web face had read stands
        eventually(lambda: shows() == after[-1].seq, 30)  # the web face followed across the restart
    finally:
        for process in (service, web):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(timeout=10)
        log.close()
