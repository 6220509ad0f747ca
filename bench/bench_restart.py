"""Restart benchmark: process start to READY with 1, 30 and 365 days of play in the journal.

A day (``--rounds``, 2,000 rounds: a busy Minibaccarat table) is written by the real service
code in-process (``bench_recovery.write_day``: the table ``tablehost run`` builds, a scripted
dealer, checkpoints every ``--checkpoint-every`` steps: 1,000, a profile's default). Longer journals are synthesised from it,
as a table that rotates at each gaming day's end (``gaming_day_starts``) leaves them:

- the live segment (the last day) is the day's records re-sealed with the seq, chain and
  segment number of day N, opened by a checkpoint (the day's last one, as a rotation writes
  it); it verifies as a segment, and its last checkpoint and the steps after it are the day's;
- the N - 1 archived days before it are the day's file compressed with xz, hard-linked N - 1
  times: a restart never opens archived segments (only ``verify`` and ``export`` read them),
  so their content does not change what is measured; they are not one chain and are not
  verified across here.

Then, for each N, the real ``python -m firmware_host run`` is started on the live segment
(simulated devices) and timed from the process's start to its systemd ``READY=1`` (a notify
socket of our own), median of ``--repeats``; the same for a journal holding a single round.
Also: ``journal verify`` time of one day's segment, the checkpoint's size, journal bytes per
round, and the start with checkpoints off (the whole day replayed) for comparison.

    .venv/bin/python bench/bench_restart.py [--rounds 2000] [--days 1,30,365] [--repeats 3]
        [--checkpoint-every 1000] [--dir DIR]

``--flat [100,6000]``: restart stays flat (issue 27 item 6). Journals of 100 and 6,000 rounds
written by a profile with ``[journal]``'s defaults (a checkpoint every 1,000 steps, a new
segment at ``rotate_mb``), started side by side (alternately, so both see the same load); then
the worst case, a live segment just short of ``rotate_mb`` (the 6,000-round journal's largest
segment as its live file); and, for comparison, the 6,000 rounds in one file (``rotate_mb = 0``),
which ``run`` verifies whole at every start. ``--keyed``: the same with an HMAC key.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_recovery import write_day  # noqa: E402  (bench/ is the script's directory, so on sys.path)
from notify import notify_socket, wait_ready  # noqa: E402

from bench.floor.tables import run_command  # noqa: E402
from bench.soak.profiles import write_profile  # noqa: E402
from firmware_host.host import segments  # noqa: E402
from firmware_host.host.journal import Journal  # noqa: E402
from firmware_host.host.journal_codec import CHECKPOINT_TYPE, FORMAT, canonical_json, seal  # noqa: E402
from firmware_host.host.journal_file import APPLICATION_ID, COLUMNS, INSERT, SCHEMA  # noqa: E402
from firmware_host.host.journal_keys import write_key  # noqa: E402
from firmware_host.host.journal_verify import verify  # noqa: E402

#: Seconds a start may take before the benchmark gives up on it.
START_TIMEOUT_S = 120.0


def reseal(
    day: Path, out: Path, number: int, seq_offset: int, prev_hash: str, checkpoints: bool = True
) -> tuple[int, str]:
    """Write ``day``'s records as segment ``number`` of a longer journal: seq moved on by
    ``seq_offset``, chained from ``prev_hash``, opened by the day's last checkpoint (unkeyed);
    without its checkpoints if ``checkpoints`` is false (then a segment 1 only)."""
    source = sqlite3.connect(day)
    rows = source.execute(f"SELECT {COLUMNS} FROM records ORDER BY seq").fetchall()
    if not checkpoints:
        rows = [r for r in rows if r[2] != CHECKPOINT_TYPE]
    last_checkpoint = next((r for r in reversed(rows) if r[1] == "meta" and r[2] == CHECKPOINT_TYPE), None)
    source.close()
    body = [r for r in rows if r[0] > 1]  # the genesis is the first day's only
    if number > 1 and last_checkpoint is not None:
        opening = json.loads(last_checkpoint[5])
        opening["segment"] = {"number": number, "format": FORMAT, "keyed": False, "key_id": None}
        body = [
            (
                "",
                "meta",
                CHECKPOINT_TYPE,
                last_checkpoint[3],
                None,
                canonical_json(opening, "opening"),
                "",
                "",
                None,
            ),
            *body,
        ]
    else:
        body = rows[:1] + body
    target = sqlite3.connect(out, isolation_level=None)
    target.execute("PRAGMA journal_mode=WAL")
    target.execute("BEGIN")
    target.execute(SCHEMA)
    target.execute(f"PRAGMA application_id={APPLICATION_ID}")
    seq = seq_offset
    sealed = []
    for _, kind, type_, at, round_, data, _, _, _ in body:
        seq += 1
        row = seal(seq, kind, type_, at, round_, data, prev_hash, None)
        sealed.append(row)
        prev_hash = row[7]
    target.executemany(INSERT, sealed)
    target.execute("COMMIT")
    target.close()
    return seq, prev_hash


def start_to_ready(profile: Path, journal: Path) -> tuple[float, float]:
    """Seconds from starting ``tablehost run`` on ``journal`` to its READY=1: (wall, the
    process's CPU time then, from /proc: steady while other work shares the machine)."""
    with tempfile.TemporaryDirectory() as tmp, notify_socket(Path(tmp), START_TIMEOUT_S) as (sock, env):
        started = time.perf_counter()
        proc = subprocess.Popen(
            run_command(profile, journal),
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_ready(sock)
            wall = time.perf_counter() - started
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
            return wall, cpu
        finally:
            proc.terminate()
            proc.wait(30)


def time_to_ready(profile: Path, journal: Path, repeats: int) -> float:
    """Median seconds from starting ``tablehost run`` on ``journal`` to its READY=1."""
    return statistics.median(start_to_ready(profile, journal)[0] for _ in range(repeats))


def synthesise(day: Path, days: int, directory: Path, name: str) -> Path:
    """A journal of ``days`` days in ``directory`` (see the module docstring); returns its live path."""
    directory.mkdir(parents=True, exist_ok=True)
    live = directory / name
    records = sqlite3.connect(day).execute("SELECT count(*) FROM records").fetchone()[0]
    archived = directory / "day.sqlite.xz"
    if days > 1:
        with open(day, "rb") as source, lzma.open(archived, "wb", preset=6) as target:
            shutil.copyfileobj(source, target)
        for number in range(1, days):
            os.link(
                archived,
                segments.archive_path(live, number).with_name(segments.archive_path(live, number).name + ".xz"),
            )
        archived.unlink()
    reseal(day, live, days, (days - 1) * records, "0" * 64 if days == 1 else "f" * 64)
    return live


def time_rotation(day: Path, live: Path) -> float:
    """Seconds :meth:`~firmware_host.host.journal.Journal.rotate` takes on a copy of the day's
    segment (copy, cut, vacuum), opened by the day's last checkpoint as the service writes it."""
    live.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(day, live)
    with Journal.open(live) as journal:
        checkpoint = journal.last_checkpoint()
        assert checkpoint is not None
        started = time.perf_counter()
        journal.rotate(checkpoint.data, at=checkpoint.at or 0.0)
        return time.perf_counter() - started


def time_side_by_side(starts: list[tuple[Path, Path]], repeats: int) -> list[tuple[float, float]]:
    """Median (wall, CPU) seconds to READY of each ``(profile, journal)``, started in turn
    ``repeats`` times, so that all see the same load."""
    times: list[list[tuple[float, float]]] = [[] for _ in starts]
    for _ in range(repeats):
        for index, (profile, journal) in enumerate(starts):
            times[index].append(start_to_ready(profile, journal))
    return [(statistics.median(w for w, _ in each), statistics.median(c for _, c in each)) for each in times]


def flat(base: Path, rounds: list[int], repeats: int, keyed: bool = False) -> None:
    """Restart time of journals of ``rounds`` rounds, with the profile's default upkeep (``--flat``;
    ``keyed``: with an HMAC key, as a table is installed)."""
    key = None
    if keyed:
        key = base / "journal.key"
        base.mkdir(parents=True, exist_ok=True)
        write_key(key)
    profile = write_profile(base / "flat", decks=8, journal="", key_file=key)  # [journal]'s defaults
    whole = write_profile(base / "whole", decks=8, journal="rotate_mb = 0", key_file=key)  # never rotated
    starts = []
    for count in rounds:
        journal = base / f"flat-{count}" / "journal.sqlite"
        steps, seconds = write_day(profile, journal, count)
        print(
            f"{count} rounds, {steps} steps, written in {seconds:.0f} s: {len(segments.segments_of(journal))} "
            f"segment(s), the live one {journal.stat().st_size / 1e6:.1f} MB"
        )
        starts.append((profile, journal))
    names = [f"{count} rounds" for count in rounds]
    largest = max(segments.segments_of(starts[-1][1]), key=lambda s: s.path.stat().st_size)
    fullest = base / "fullest" / "journal.sqlite"
    fullest.parent.mkdir()
    shutil.copyfile(largest.path, fullest)
    starts.append((whole, fullest))
    names.append(f"a live segment at its largest ({fullest.stat().st_size / 1e6:.1f} MB)")
    one_file = base / "one-file" / "journal.sqlite"
    write_day(whole, one_file, rounds[-1])
    starts.append((whole, one_file))
    names.append(f"{rounds[-1]} rounds in one file, rotate_mb = 0 ({one_file.stat().st_size / 1e6:.1f} MB)")
    times = time_side_by_side(starts, repeats)
    (wall0, cpu0) = times[0]
    for name, (wall, cpu), (_, journal) in zip(names, times, starts):
        print(
            f"start to READY, {name}: {wall:.2f} s ({wall / wall0:.2f}x), CPU {cpu:.2f} s ({cpu / cpu0:.2f}x "
            f"{names[0]}); {steps_to_replay(journal)} steps replayed after the last checkpoint"
        )


def steps_to_replay(journal: Path) -> int:
    """The steps a start replays: the inputs after the live file's last checkpoint (a restart's
    other cost, bounded by ``checkpoint_every_steps`` whatever the journal's age)."""
    with sqlite3.connect(f"{journal.absolute().as_uri()}?mode=ro", uri=True) as conn:
        (count,) = conn.execute(
            "SELECT count(*) FROM records WHERE kind = 'input' AND seq > "
            "(SELECT coalesce(max(seq), 0) FROM records WHERE kind = 'meta' AND type = ?)",
            (CHECKPOINT_TYPE,),
        ).fetchone()
    conn.close()
    return int(count)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="rounds in a day (default 2000)")
    parser.add_argument("--days", default="1,30,365", help="journal ages to time, in days (default 1,30,365)")
    parser.add_argument("--repeats", type=int, default=5, help="starts timed per journal; the median is shown")
    parser.add_argument(
        "--checkpoint-every",
        type=int,
        default=1000,
        help="the profile's checkpoint_every_steps (default 1000, the default of a profile)",
    )
    parser.add_argument("--dir", type=Path, help="where the journals go (default: a temporary directory)")
    parser.add_argument(
        "--flat", metavar="N,M", nargs="?", const="100,6000", help="restart of N against M rounds (default 100,6000)"
    )
    parser.add_argument("--keyed", action="store_true", help="--flat with keyed journals (an HMAC key, as installed)")
    args = parser.parse_args(argv)
    base = args.dir or Path(tempfile.mkdtemp(prefix="bench-restart-"))
    try:
        if args.flat:
            flat(base, [int(n) for n in args.flat.split(",")], args.repeats, args.keyed)
            return 0
        upkeep = f"checkpoint_every_steps = {args.checkpoint_every}\nrotate_mb = 0"  # segments are synthesised
        profile = write_profile(base / "table", decks=8, journal=upkeep)
        day = base / "day.sqlite"
        steps, seconds = write_day(profile, day, args.rounds)
        one = base / "one-round.sqlite"
        write_day(profile, one, 1)
        size = day.stat().st_size
        checkpoint = (
            sqlite3.connect(day)
            .execute("SELECT length(data) FROM records WHERE type = ? ORDER BY seq DESC LIMIT 1", (CHECKPOINT_TYPE,))
            .fetchone()
        )
        started = time.perf_counter()
        assert verify(day).ok
        verify_s = time.perf_counter() - started
        print(
            f"a day: {args.rounds} rounds, {steps} steps, written in {seconds:.1f} s; {size / 1e6:.1f} MB, "
            f"{size / args.rounds / 1e3:.1f} KB per round; checkpoint {checkpoint[0] / 1e3:.1f} KB; "
            f"verify of the day's segment {verify_s:.2f} s"
        )
        print(
            f"rotation of the day's segment (the service loop waits for it, between rounds): "
            f"{time_rotation(day, base / 'rotated' / 'journal.sqlite'):.2f} s"
        )
        baseline = time_to_ready(profile, one, args.repeats)
        print(f"start to READY, a journal of one round: {baseline:.2f} s")
        for days in (int(d) for d in args.days.split(",")):
            live = synthesise(day, days, base / f"days-{days}", "journal.sqlite")
            ready = time_to_ready(profile, live, args.repeats)
            print(
                f"start to READY, {days} day(s) ({days * size / 1e9:.2f} GB uncompressed): {ready:.2f} s "
                f"({ready / baseline:.2f}x one round)"
            )
        whole = base / "no-checkpoints.sqlite"
        reseal(day, whole, 1, 0, "0" * 64, checkpoints=False)
        print(
            f"for comparison, the day without its checkpoints (replayed whole): "
            f"{time_to_ready(profile, whole, args.repeats):.2f} s"
        )
    finally:
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
