"""Recovery benchmark: rebuilding the table from a full day's journal, and the kill-loop soak.

Recovery (the default): a journal of ``--rounds`` rounds (2,000: a day at a busy
Minibaccarat table) is written by the real service code in-process — the table
``tablehost run`` builds from the simulated profile, fed by a scripted dealer who never
errs, with a day's worth of receive times — then timed:

- ``recover``: what a restart does before the table can resume: open the journal (tail
  check), build the controller, replay every step through it comparing every decision
  (``Service.recover``), and find where the simulated shoe stands; seconds, steps/s, the
  longest time without a replay progress call (each one sends systemd ``EXTEND_TIMEOUT_USEC``;
  the first interval includes opening the journal), and ``--days`` such days extrapolated
  from the measured steps/s (not measured);
- ``verify``: ``tablehost journal verify`` of the same journal;
- ``restart``: the real ``tablehost run`` on that journal asked for one more round: from
  the process's start to its exit, through replay, the devices' handshake and a round.

Soak (``--kills N``): :func:`bench.soak.killloop.kill_loop` SIGKILLs the real service
N times over a run with every fault (a keyed journal), restarting it until the run ends,
then audits the journal; ``--exact`` leaves out the dealer's errors (whose timing the
simulation does not fix) and compares the rounds with an uninterrupted run of the seed.
``--table shuffler`` soaks the shuffler tests' table instead (§ 541.3(b): 6-deck batches,
every shuffler fault): the N seeded kills, then a kill at each moment of N / 20 more
changes of shoe (:func:`~bench.soak.killloop.kill_at_shoe_changes`);
the audit also checks each shoe against the batch the shuffler released. A soak that finds
a problem keeps its journal and the processes' log (the path is printed).

    .venv/bin/python bench/bench_recovery.py [--rounds 2000] [--days 30] [--dir DIR]
    .venv/bin/python bench/bench_recovery.py --kills 200 [--exact] [--seed S] [--table shoe|shuffler]

Run the recovery figures on the disk the journal lives on (``--dir``; writing the day's
journal does an fsync per step, so it takes minutes on an SD card; recovery only reads).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the soak harness is the package bench.soak

from bench_journal import filesystem_of  # noqa: E402  (bench/ is the script's directory, so on sys.path)

from bench.soak.audit import audit, compare_runs, seeded_shoe, shoes_played  # noqa: E402
from bench.soak.killloop import SHOE_CHANGE, KillLoopReport, Run, kill_at_shoe_changes, kill_loop, run_to_end  # noqa: E402
from bench.soak.profiles import shuffler_profile, write_profile  # noqa: E402
from bench.soak.shuffler_audit import shuffler_troubles  # noqa: E402
from drivers.events import DeviceEvent  # noqa: E402
from drivers.events.lifecycle import DeviceIdentified  # noqa: E402
from drivers.events.shoe import CardRead, CutCard  # noqa: E402
from firmware_host.cli.run import STARTUP_EXTENSION_S  # noqa: E402
from firmware_host.config.profiles import load_table  # noqa: E402
from firmware_host.host.journal import Journal  # noqa: E402
from firmware_host.host.journal_export import shoe_results  # noqa: E402
from firmware_host.host.journal_keys import write_key  # noqa: E402
from firmware_host.host.journal_verify import verify  # noqa: E402
from firmware_host.host.service import Service  # noqa: E402
from firmware_host.tables.events import DealerCommand, WagerPlaced  # noqa: E402
from firmware_host.wiring import build_table, game_wiring  # noqa: E402
from sim.devices.resume import shoe_resume_point  # noqa: E402

DEFAULT_ROUNDS = 2000
#: Days of such play the replay time is extrapolated to (a journal never started afresh).
DEFAULT_DAYS = 30
SEED = 7
#: Seconds between steps of the scripted day: 2,000 rounds of about 20 steps in 16 hours.
STEP_SECONDS = 1.5
#: Timings of the recovery, repeated; the median is reported.
REPEATS = 3
#: Faults of the soak (the integration tests' "every fault", link and card).
SOAK_FAULTS = (
    "corrupt_byte = 0.01, drop_frame = 0.01, duplicate_frame = 0.01, unreadable_card = 0.02, "
    "face_up_card = 0.005, empty_early = 0.001"
)
SOAK_DEALER = "card_drawn_in_error = 0.02\ncard_disclosed = 0.5"
#: Rounds a 6-deck shoe deals at most (312 cards, 4 a round at the fewest): the shuffler soak's
#: run is long enough for every change of shoe it aims at.
SHOE_ROUNDS_AT_MOST = 312 // 4
#: The shuffler soak aims at the moments of one change of shoe per this many seeded kills.
KILLS_PER_SHOE_CHANGE = 20


# --------------------------------------------------------------------------- a day's journal


def scripted_day(controller: Any, seed: int, decks: int) -> Iterator[DeviceEvent]:
    """The events of a dealer who follows every prompt: shoes of the simulator's seeded cards, seeded bets."""
    rng, shoe_number, cards = random.Random(seed), 0, iter(())
    yield DeviceIdentified(device="shoe", model="TS-8", serial="SIM-0001", firmware="2.1.1")
    while True:
        prompt = controller.prompt()
        action = prompt["action"]
        if action == "load_shoe":
            shoe_number += 1
            cards = iter(seeded_shoe(seed, decks, shoe_number, decks * 52 + 1))
            yield DealerCommand(device="console", command="shoe_loaded")
        elif action in ("burn", "deal", "discard"):
            card = next(cards)
            yield (
                CutCard(device="shoe")
                if card is None
                else CardRead(device="shoe", rank=card[0], suit=card[1], burn=action == "burn")
            )
        elif action == "place_bets":
            for seat in rng.sample(range(1, 8), rng.randint(2, 6)):
                yield WagerPlaced(
                    device="console",
                    seat=seat,
                    kind=rng.choice(("banker", "player", "tie")),
                    amount=rng.choice((500, 1000, 2500, 5000)),
                )
            yield DealerCommand(device="buttons", command="no_more_bets")
        elif action in ("reveal", "settle_pairs"):
            yield DealerCommand(device="buttons", command="reveal" if action == "reveal" else "pairs_settled")
        else:
            raise AssertionError(f"the scripted dealer cannot act on {prompt}")


def write_day(profile_path: Path, journal_path: Path, rounds: int) -> tuple[int, float]:
    """Write a journal of ``rounds`` rounds with the service ``tablehost run`` builds; (steps, seconds)."""
    started = time.perf_counter()
    table = build_table(load_table(profile_path), journal_path=journal_path, seed=SEED, stream=io.StringIO())
    clock = [1.75e9]
    table.service.clock = lambda: clock[0]
    table.service.outputs.clear()  # no simulated dealer, no dealer view: the script plays
    profile = load_table(profile_path)
    for event in scripted_day(table.service.controller, SEED, profile.decks):
        clock[0] += STEP_SECONDS
        table.service.step(event)
        if table.service.rounds_finished >= rounds:
            break
    steps = table.service.steps
    table.journal.close()
    return steps, time.perf_counter() - started


def time_recovery(profile_path: Path, journal_path: Path) -> tuple[float, int, float]:
    """What a restart does before the table can resume; (seconds, steps replayed, longest
    interval between the start, the replay's progress calls and the end)."""
    started = time.perf_counter()
    calls = [started]
    profile = load_table(profile_path)
    with Journal.open(journal_path) as journal:
        service = Service(game_wiring(profile.game).controller(profile), journal)
        steps = service.recover(lambda _: calls.append(time.perf_counter()))
        shoe_resume_point(journal.steps())
    calls.append(time.perf_counter())
    return calls[-1] - started, steps, max(b - a for a, b in zip(calls, calls[1:]))


def recovery(rounds: int, days: int, directory: Path) -> None:
    # a whole day replayed, in one file
    profile = write_profile(directory, decks=8, journal="checkpoint_every_steps = 0\nrotate_mb = 0")
    journal = directory / "day.sqlite"
    print(f"journal on {filesystem_of(directory)}")
    steps, seconds = write_day(profile, journal, rounds)
    records = Journal.open(journal)
    count = records.last_seq
    records.close()
    size = journal.stat().st_size / 1e6
    print(
        f"wrote {rounds} rounds: {steps} steps, {count} records, {size:.1f} MB in {seconds:.1f} s "
        f"({steps / seconds:.0f} durable steps/s)"
    )
    timings = [time_recovery(profile, journal) for _ in range(REPEATS)]
    took = statistics.median(t for t, _, _ in timings)
    rate = timings[0][1] / took
    print(
        f"recover: {took:.2f} s for {timings[0][1]} steps ({rate:.0f} steps/s, "
        f"{count / took:.0f} records/s), median of {REPEATS}"
    )
    print(
        f"replay progress: at most {max(w for _, _, w in timings):.3f} s without a progress call "
        f"(each asks systemd for {STARTUP_EXTENSION_S:.0f} s more)"
    )
    print(
        f"extrapolated, not measured: {days} such days ({days * timings[0][1]} steps) replay in "
        f"{days * timings[0][1] / rate:.0f} s at {rate:.0f} steps/s"
    )
    started = time.perf_counter()
    report = verify(journal)
    print(f"verify: {time.perf_counter() - started:.2f} s for {report.records_checked} records (ok={report.ok})")
    run = Run(profile, journal, rounds + 1, SEED)
    started = time.perf_counter()
    status = run_to_end(run)
    print(
        f"restart: tablehost run replayed the day, handshook and played round {rounds + 1} in "
        f"{time.perf_counter() - started:.2f} s (exit {status})"
    )


# --------------------------------------------------------------------------- the soak


@dataclasses.dataclass
class Kills:
    """What a soak's kills did: the run they left, the kill loop's report, and the kills aimed
    at the moments of a change of shoe (``(aim, the journal's last input)``, a shuffler table)."""

    run: Run
    loop: KillLoopReport
    at_shoe_changes: list[tuple[str, str]]
    starts: int
    seconds: float


def loop_rounds(kills: int) -> int:
    """The kill loop's rounds: 4 a kill, 100 at least."""
    return max(100, 4 * kills)


def shoe_table_kills(kills: int, seed: int, exact: bool, directory: Path, key_file: Path) -> Kills:
    """The kill loop at the table whose shoe shuffles its own cards."""
    profile = write_profile(directory, faults=SOAK_FAULTS, dealer="" if exact else SOAK_DEALER, key_file=key_file)
    run = Run(profile, directory / "soak.sqlite", loop_rounds(kills), seed)
    report = kill_loop(run, kills, seed)
    return Kills(run, report, [], report.starts, report.seconds)


def shuffler_table_kills(kills: int, seed: int, exact: bool, directory: Path, key_file: Path) -> Kills:
    """At the shuffler tests' table: the kill loop (as at the shoe table), then a kill at each
    moment of the next changes of shoe (one per :data:`KILLS_PER_SHOE_CHANGE` seeded kills,
    two at least), then the run to its end."""
    profile = shuffler_profile(directory, key_file, comparable=exact)
    journal, changes = directory / "soak.sqlite", max(2, kills // KILLS_PER_SHOE_CHANGE)
    rounds = loop_rounds(kills) + changes * SHOE_ROUNDS_AT_MOST  # the last change surely comes before the run ends
    started = time.monotonic()
    report = kill_loop(Run(profile, journal, loop_rounds(kills), seed), kills, seed)
    run = Run(profile, journal, rounds, seed)  # --rounds counts from the journal's start
    landed = kill_at_shoe_changes(run, changes)
    status = run_to_end(run)
    if status != 0:
        raise AssertionError(f"tablehost run exited {status}:\n{run.log_tail()}")
    return Kills(run, report, landed, report.starts + len(landed) + 1, time.monotonic() - started)


TABLES = {"shoe": shoe_table_kills, "shuffler": shuffler_table_kills}


def soak(table: str, kills: int, seed: int, exact: bool, directory: Path) -> int:
    key_file = directory / "journal.key"
    write_key(key_file)
    done = TABLES[table](kills, seed, exact, directory, key_file)
    run, key = done.run, key_file.read_bytes()
    found = audit(run, key)
    killed = len(done.loop.kills) + len(done.at_shoe_changes)
    print(
        f"soak ({table} table): {killed} SIGKILLs, {done.starts} starts, {run.rounds} rounds, {found.shoes} shoes, "
        f"{found.draws} draws in {done.seconds:.1f} s ({done.seconds / done.starts:.2f} s per start)"
    )
    print("kills landed: " + ", ".join(f"{moment} {n}" for moment, n in done.loop.moments().most_common()))
    if table == "shuffler":
        aims = Counter(aim for aim, _ in done.at_shoe_changes)
        print(
            "kills at changes of shoe, aimed at: " + ", ".join(f"{aim} {aims[aim]}" for aim in SHOE_CHANGE if aims[aim])
        )
        troubles = shuffler_troubles(run.journal, key)
        print("shuffler troubles in the run: " + (", ".join(f"{t} {n}" for t, n in troubles.most_common()) or "none"))
    print(f"audit: {found.steps_replayed} steps replay identically; {len(found.problems)} problems")
    for problem in found.problems[:20]:
        print(f"  {problem}")
    differences: list[str] = []
    if exact:
        uninterrupted = Run(run.profile, directory / "uninterrupted.sqlite", run.rounds, seed)
        run_to_end(uninterrupted)
        # A restart at a shuffler table adds its own alerts to the shoe (devices lost, a shuffle abandoned).
        differences = compare_runs(
            run.journal, uninterrupted.journal, shoes=shoes_played if table == "shuffler" else shoe_results
        )
        print(
            f"compared with an uninterrupted run of seed {seed}: "
            f"{'identical rounds and shoes' if not differences else f'{len(differences)} differences'}"
        )
        for difference in differences[:20]:
            print(f"  {difference}")
    return 1 if found.problems or differences else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="rounds in the day's journal")
    parser.add_argument(
        "--days", type=int, default=DEFAULT_DAYS, help="days of such play the replay time is extrapolated to"
    )
    parser.add_argument("--dir", type=Path, help="where the journals go (default: a temporary directory)")
    parser.add_argument("--kills", type=int, help="run the kill-loop soak with this many SIGKILLs instead")
    parser.add_argument(
        "--exact", action="store_true", help="soak without dealer errors, compared with an uninterrupted run"
    )
    parser.add_argument("--seed", type=int, default=SEED, help="the soak's seed")
    parser.add_argument(
        "--table",
        choices=sorted(TABLES),
        default="shoe",
        help="the soak's table: the shoe shuffles its cards, or an automatic shuffler does",
    )
    args = parser.parse_args(argv)
    if args.kills:
        directory = Path(tempfile.mkdtemp(prefix="soak-", dir=args.dir))
        status = 1
        try:
            status = soak(args.table, args.kills, args.seed, args.exact, directory)
        finally:
            if status == 0:
                shutil.rmtree(directory)
            else:
                print(f"journal and processes' log kept in {directory}")
        return status
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        recovery(args.rounds, args.days, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
