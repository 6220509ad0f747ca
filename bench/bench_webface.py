"""Benchmark of the web face in its own process (issue 30 item 4): the service loop beside a
hostile network, this build against the last one, in the same run.

Two trees: this one, and main before the split (:data:`LAST_BUILD`, extracted with ``git
archive`` as :mod:`bench.bench_lean` does). For each, a simulated Baccarat table deals as fast as
it can (pace 0) with its display on a free loopback port and its PIN files at the real scrypt
cost, in a process of its own (``--table``): this build's web face is that process's child, the
last build's display is in the service's process. Attacks, each phase ``--seconds`` long:

- wrong-PIN flood: :mod:`bench.bench_http_hostile`'s attacker, ``--flood`` wrong PINs in flight
  from rotating addresses;
- ``--connections`` connections holding unread streams (its other attacker);
- control-socket flood (this build only): ``--clients`` processes of the service's own uid
  asking the control socket ``status`` as fast as it answers, one in ten requests malformed.

The machine's load drifts by tens of percent within a minute, so each attack phase is paired with
a quiet phase just before it, and the pairs are interleaved ``--repeats`` times (quiet, PIN flood,
quiet, streams, quiet, socket flood, quiet, PIN flood...): each pair gives the attack's share of
its own quiet rate, and the summary gives the medians over the repeats.

Figures per phase: the service loop's steps per second; card → decision, the time from a
``CardRead`` being queued by the shoe's driver to its decisions being durable and handed to the
outputs (p50, p99, max); the CPU the service's process and its web face used, as a share of one
core (``/proc/PID/stat``: what the web face took from the loop, less sensitive to the machine's
load than the rates); how far the dealer display stands behind the journal at the phase's end
(what a web face that yields the CPU costs); and the resident memory of both (peak). Then the peak RSS of ``tablehost
run --http`` (``make run``'s table with its display) and its web face, and of ``make run`` (20
rounds, no display; goal: at most 36 MiB), of each tree. With ``--split-cpus`` the attackers run
on every CPU but the first, as another machine's work would not be on the Pi at all; a build that
places itself (``firmware_host.host.cpus``) keeps the first for its service and puts its web face on
the others, as ``tablehost run`` does; the last build's table is pinned to the first. Without it
the attackers share the machine's CPUs with the table. Prints figures, asserts nothing.

    .venv/bin/python bench/bench_webface.py [--seconds 8] [--repeats 3] [--split-cpus] [--flood 40]
        [--connections 1000] [--clients 4] [--only flood|hold|socket ...]
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if os.environ.get("BENCH_SOURCE"):  # the last build's firmware_host, drivers and sim
    sys.path.insert(0, os.environ["BENCH_SOURCE"])

from bench.bench_lean import PROFILE, Tree, extract  # noqa: E402

#: The last build: main before the web face left the service's process.
LAST_BUILD = "61e3076"
#: The attacks, as ``--only`` names them.
ATTACKS = ("flood", "hold", "socket")
#: Rounds of ``make run``, and of the ``run --http`` whose processes' memory is read.
MAKE_RUN_ROUNDS = 20


def memory_kib(pid: int) -> tuple[int, int]:
    """A process's resident set and its peak, KiB (``/proc/PID/status``)."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(status["VmRSS"].split()[0]), int(status["VmHWM"].split()[0])


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    return (
        f"p50 {ordered[len(ordered) // 2]:.1f} ms, p99 {p99(ordered):.1f} ms, max {ordered[-1]:.1f} ms"
        f" ({len(ordered)} cards)"
    )


class Stamped:
    """The service's event queue, noting when each ``CardRead`` was queued (the driver's emit)."""

    def __init__(self, events: Any) -> None:
        self.events = events
        self.queued: dict[int, float] = {}

    def put(self, item: Any) -> None:
        if type(item).__name__ == "CardRead":
            self.queued[id(item)] = time.perf_counter()
        self.events.put(item)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self.events.get(*args, **kwargs)


class CardToDecision:
    """A step observer (after the outputs): each CardRead's seconds from queued to handed out."""

    def __init__(self, stamped: Stamped) -> None:
        self.stamped = stamped
        self.samples: list[tuple[float, float]] = []  # (when, milliseconds)

    def __call__(self, event: Any, decisions: Any, seconds: float) -> None:
        queued = self.stamped.queued.pop(id(event), None)
        if queued is not None:
            now = time.perf_counter()
            self.samples.append((now, (now - queued) * 1000))


# -- the attacker on the control socket (a process of the service's uid) -------------------------


def socket_flood(path: str, seconds: float) -> None:
    from firmware_host.web.control import ControlClient, ControlError

    client = ControlClient(Path(path))
    sent = answered = refused = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sent += 1
        try:
            reply = client.request("status") if sent % 10 else client.request("nope", junk="x" * 900)
        except ControlError:
            refused += 1
            continue
        answered += reply.get("ok") is True
        refused += reply.get("ok") is not True
    print(json.dumps({"answered": answered, "refused": refused}))


# -- the table (one tree, in a process of its own) ---------------------------------------------


def table(seconds: float, flood: int, connections: int, clients: int, repeats: int, only: list[str]) -> None:
    from bench.display.table import BACCARAT, DEALER_PIN, SUPERVISOR_PIN, start, write_profile
    from firmware_host.web.pins import write_pin_file
    from firmware_host.wiring import build_table

    split = "web_face" in inspect.signature(build_table).parameters
    with tempfile.TemporaryDirectory() as folder:
        profile = write_profile(Path(folder), BACCARAT.format(decks=8, rules=""))
        write_pin_file(Path(folder) / "dealer.pin", DEALER_PIN)  # the real cost, N = 2**14
        write_pin_file(Path(folder) / "supervisor.pin", SUPERVISOR_PIN)
        options = {"web_face": "child"} if split else {}
        running = _started(start, profile, Path(folder) / "j.sqlite", options)
        time.sleep(1)
        try:
            _place_as_run_does()
            child = getattr(running.table, "web_child", None)
            if child is not None and child.pid:
                print(f"  web face (pid {child.pid}): {scheduling(child.pid)}", flush=True)
            attacks: list[tuple[str, list[str]]] = [
                (f"wrong-PIN flood ({flood} in flight)", ["flood", str(flood)]),
                (f"{connections} unread streams", ["hold", str(connections)]),
            ]
            if split:
                attacks.append((f"control-socket flood ({clients} clients)", ["socket", str(clients)]))
            attacks = [(name, attack) for name, attack in attacks if not only or attack[0] in only]
            pairs: dict[str, list[tuple[Phase, Phase]]] = {name: [] for name, _ in attacks}
            for _ in range(repeats):
                for name, attack in attacks:
                    pairs[name].append(
                        (_phase("quiet", running, seconds, None), _phase(name, running, seconds, attack))
                    )
        finally:
            running.stop()
    print(RESULT + json.dumps(pairs), flush=True)


def _place_as_run_does() -> None:
    """Where this build places its processes itself (``firmware_host.host.cpus``), keep the service's
    core as ``tablehost run`` does; its web face was given the others when it started."""
    try:
        from firmware_host.host import cpus
    except ImportError:  # the last build: the bench pinned this process to the table's CPU
        return
    placed = cpus.split(os.sched_getaffinity(0))
    if placed is not None:
        cpus.keep_to(placed[0])
        print(f"  the service kept CPU {min(placed[0])}, its web face has {sorted(placed[1])}", flush=True)


def scheduling(pid: int) -> str:
    """A process's scheduling policy and nice, and its autogroup's nice where the kernel has them."""
    names = {getattr(os, name, None): name for name in ("SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE")}
    policy = names.get(os.sched_getscheduler(pid), str(os.sched_getscheduler(pid)))
    group = Path(f"/proc/{pid}/autogroup")
    grouped = f", {group.read_text().strip()}" if group.exists() else ""
    return f"{policy}, nice {os.getpriority(os.PRIO_PROCESS, pid)}{grouped}"


def _started(start: Any, profile: Path, journal: Path, options: dict[str, Any]) -> Any:
    """The table started with its card → decision probe (the queue wrapped before the drivers run)."""
    from firmware_host.wiring import Table

    original = Table.start

    def probed(self: Any) -> None:
        stamped = Stamped(self.service._events)
        self.service._events = stamped
        self.service.observer = self.probe = CardToDecision(stamped)
        original(self)

    Table.start = probed  # type: ignore[method-assign]
    try:
        return start(profile, journal, pace=0.0, **options)
    finally:
        Table.start = original  # type: ignore[method-assign]


def _attacker_cpus() -> None:
    """With ``--split-cpus``, an attacker runs on the CPUs the table does not (as on a floor, where
    the attacker is another machine and only the web face's work lands on the Pi)."""
    cpus = os.environ.get("BENCH_ATTACKER_CPUS")
    if cpus:
        os.sched_setaffinity(0, {int(cpu) for cpu in cpus.split(",")})


def _table_cpus(cpus: set[int] | None) -> None:
    if cpus:
        os.sched_setaffinity(0, cpus)


#: One phase's figures: steps/s, card -> decision p99 (ms), the CPU share of one core the service's
#: process and its web face used (None: no web face process), and a line for the log.
Phase = dict[str, Any]
#: Prefix of the ``--table`` process's last line: its phases, as JSON.
RESULT = "RESULT "
#: Clock ticks a second, the unit of ``/proc/PID/stat``'s CPU times.
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int, task: int | None = None) -> float:
    """A process's CPU time so far, user and system, all its threads (``/proc/PID/stat``), or one
    thread's (``/proc/PID/task/TID/stat``)."""
    where = Path(f"/proc/{pid}") if task is None else Path(f"/proc/{pid}/task/{task}")
    fields = (where / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def control_cpu() -> dict[int, float]:
    """The CPU time so far of each of this process's control-socket threads, by native id: what
    the socket's server (accepting, reading, refusing, answering) took from the service."""
    found = {}
    for thread in threading.enumerate():
        if thread.name.startswith("control") and thread.native_id is not None:
            try:
                found[thread.native_id] = cpu_seconds(os.getpid(), thread.native_id)
            except FileNotFoundError:  # ended meanwhile
                pass
    return found


def socket_cost(before: dict[int, float], was: dict[str, int], counts: dict[str, int], wall: float) -> str:
    """The requests a second that reached the socket's server in a phase, and its threads' CPU per
    request (threads that ended within the phase are not counted)."""
    requests = sum(counts.values()) - sum(was.values())
    cpu = sum(seconds - before.get(tid, 0.0) for tid, seconds in control_cpu().items())
    each = f", {cpu / requests * 1e6:.0f} µs of the server's CPU each" if requests else ""
    return f"{requests / wall:,.0f} requests/s reached the server{each} ({cpu / wall:.0%} of a core)"


def _phase(name: str, running: Any, seconds: float, attack: list[str] | None) -> Phase:
    service, probe = running.service, running.table.probe
    child = getattr(running.table, "web_child", None)
    face_pid = child.pid if child is not None else None
    steps, started, since = service.steps, time.monotonic(), time.perf_counter()
    cpu = (cpu_seconds(os.getpid()), cpu_seconds(face_pid) if face_pid else 0.0)
    control = getattr(running.table, "control", None)
    socket_was = (control_cpu(), dict(control.counts) if control is not None else {})
    attackers: list[subprocess.Popen[str]] = []
    if attack and attack[0] == "socket":
        path = str(running.table.control.path)
        command = [sys.executable, __file__, "--socket-flood", path, "--seconds", str(seconds)]
        attackers = [
            subprocess.Popen(command, stdout=subprocess.PIPE, text=True, preexec_fn=_attacker_cpus)
            for _ in range(int(attack[1]))
        ]
    elif attack:
        command = [sys.executable, str(ROOT / "bench" / "bench_http_hostile.py"), "--attack", *attack]
        attackers = [
            subprocess.Popen(
                [*command, "--url", running.url, "--seconds", str(seconds)],
                stdout=subprocess.PIPE,
                text=True,
                preexec_fn=_attacker_cpus,
            )
        ]
    time.sleep(seconds)
    wall = time.monotonic() - started
    rate = (service.steps - steps) / wall
    service_cpu = (cpu_seconds(os.getpid()) - cpu[0]) / wall
    cost = socket_cost(*socket_was, dict(control.counts), wall) if control is not None else None
    face_cpu = None
    if face_pid and child is not None and child.pid == face_pid:  # not restarted meanwhile
        face_cpu = (cpu_seconds(face_pid) - cpu[1]) / wall
    behind = display_behind(running)
    got = [_answer(attacker, seconds + 15) for attacker in attackers]
    latencies = [ms for at, ms in probe.samples if at >= since]
    own = memory_kib(os.getpid())
    face = memory_kib(face_pid) if face_pid and face_cpu is not None else None
    memory = f"service RSS {own[0] / 1024:.0f} MiB (peak {own[1] / 1024:.0f})" + (
        f", web face RSS {face[0] / 1024:.0f} MiB (peak {face[1] / 1024:.0f})" if face else ", display in the service"
    )
    shares = f"CPU: service {service_cpu:.0%}" + (f", web face {face_cpu:.0%}" if face_cpu is not None else "")
    counts = getattr(control, "counts", None)
    print(
        f"  {name}: {rate:,.0f} steps/s; card -> decision "
        f"{percentiles(latencies) if latencies else 'no cards'}; {shares}; display {behind}; {memory}"
        + (f"; attackers got {got}" if got else "")
        + (f"; socket counts {counts}, {cost}" if counts and attack and attack[0] == "socket" else ""),
        flush=True,
    )
    return {
        "rate": rate,
        "p99": p99(latencies) if latencies else None,
        "service_cpu": service_cpu,
        "face_cpu": face_cpu,
    }


def display_behind(running: Any) -> str:
    """How far the dealer display stands behind the journal at the phase's end (journal seqs), as
    its ``/api/state`` says within 2 s: the price of a web face that yields the CPU."""
    last = running.table.journal.last_seq
    display = getattr(running.table, "display", None)
    if display is not None:  # in the service's process (the last build)
        return f"{last - display.hub.snapshot.seq} seqs behind"
    try:
        with urllib.request.urlopen(running.url + "/api/state", timeout=2) as answer:
            return f"{last - int(json.load(answer)['seq'])} seqs behind"
    except (OSError, ValueError, KeyError) as exc:
        return f"no answer in 2 s ({type(exc).__name__})"


def _answer(attacker: subprocess.Popen[str], timeout: float) -> Any:
    """What an attacker says it got; on a machine too busy for it to end in time, that it did not."""
    try:
        return json.loads(attacker.communicate(timeout=timeout)[0] or "{}")
    except subprocess.TimeoutExpired:
        attacker.kill()
        attacker.communicate()
        return {"did not end in time": True}


def summary(pairs: dict[str, list[tuple[Phase, Phase]]]) -> dict[str, str]:
    """Per attack, one line: the medians over the repeats of the quiet and the attacked rates, each
    pair's share of its quiet rate and their median, the p99s and the web face's CPU share."""

    def median(values: list[Any]) -> float | None:
        known = [v for v in values if v is not None]
        return statistics.median(known) if known else None

    lines = {}
    for name, runs in pairs.items():
        quiet, attacked = [q for q, _ in runs], [a for _, a in runs]
        shares = [a["rate"] / q["rate"] for q, a in runs if q["rate"]]
        face = median([a["face_cpu"] for a in attacked])
        lines[name] = (
            f"{median([a['rate'] for a in attacked]):,.0f} steps/s against {median([q['rate'] for q in quiet]):,.0f} "
            f"quiet: {statistics.median(shares):.0%} of quiet (pairs: {', '.join(f'{x:.0%}' for x in shares)}); "
            f"p99 {_ms(median([a['p99'] for a in attacked]))} against {_ms(median([q['p99'] for q in quiet]))}; "
            + (f"web face CPU {face:.1%} of a core" if face is not None else "display in the service")
            + f", service {median([a['service_cpu'] for a in attacked]):.0%}"
        )
    return lines


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


# -- both trees ---------------------------------------------------------------------------------


def run_memory(tree: Tree, folder: Path, *, http: bool) -> str:
    """The peak RSS of ``make run``'s table (20 rounds; with ``http``, its display on) and of its
    web face's process, where it has one, read from ``/proc`` every 50 ms (``VmHWM``)."""
    work = folder / f"run-{tree.name.replace(' ', '-')}-{http}"
    (work / "tables").mkdir(parents=True)
    text = PROFILE.read_text()
    (work / "tables" / "sim.toml").write_text("\n".join(x for x in text.splitlines() if "_pin_file" not in x))
    shutil.copytree(PROFILE.parents[1] / "devices", work / "devices")
    command = [sys.executable, "-m", "firmware_host", "run", "--profile", str(work / "tables" / "sim.toml")]
    command += ["--rounds", str(MAKE_RUN_ROUNDS), "--seed", "1", "--journal", str(work / "j.sqlite")]
    process = subprocess.Popen(
        [*command, *(["--http", "127.0.0.1:0"] if http else [])], cwd=tree.root, env=tree.env, stdout=subprocess.DEVNULL
    )
    peaks: dict[int, int] = {}
    while process.poll() is None:
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
        for pid in [process.pid, *(int(p) for p in (children.read_text().split() if children.exists() else []))]:
            try:
                peaks[pid] = max(peaks.get(pid, 0), memory_kib(pid)[1])
            except (FileNotFoundError, ProcessLookupError, KeyError):
                pass
        time.sleep(0.05)
    service = peaks.pop(process.pid, 0)
    faces = ", ".join(f"{kib / 1024:.1f} MiB" for kib in peaks.values())
    inside = " (display inside)" if http else ""
    others = ", web face" if http else ", other children"  # a plain run may run a helper for a moment
    return f"service peak RSS {service / 1024:.1f} MiB" + (f"{others} peak RSS {faces}" if faces else inside)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds per phase (default 8)")
    parser.add_argument("--repeats", type=int, default=3, help="quiet and attacked pairs of each attack (default 3)")
    parser.add_argument("--flood", type=int, default=40, help="wrong PINs in flight (default 40)")
    parser.add_argument("--connections", type=int, default=1000, help="unread streams held (default 1000)")
    parser.add_argument("--clients", type=int, default=4, help="control-socket flooders (default 4)")
    parser.add_argument("--baseline", default=LAST_BUILD, help=f"the last build's revision (default {LAST_BUILD})")
    parser.add_argument(
        "--split-cpus",
        action="store_true",
        help="the attackers on every CPU but the first; the table's service on the first",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the runs that measure peak RSS")
    parser.add_argument(
        "--only",
        action="append",
        choices=ATTACKS,
        default=[],
        help="run only this attack (repeatable): flood (wrong PINs), hold (unread streams), socket",
    )
    parser.add_argument("--table", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--socket-flood", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.socket_flood:
        socket_flood(args.socket_flood, args.seconds)
        return
    if args.table:
        table(args.seconds, args.flood, args.connections, args.clients, args.repeats, args.only)
        return
    with tempfile.TemporaryDirectory() as folder:
        last = extract(args.baseline, Path(folder) / "last")
        trees = [Tree("this build", ROOT, {**os.environ}), last]
        results = {tree.name: summary(_table_run(tree, args)) for tree in trees}
        print(f"summary, medians over {args.repeats} quiet/attacked pairs of {args.seconds:g} s:")
        for attack in results[trees[0].name]:
            print(f"  {attack}:")
            for tree in trees:
                print(f"    {tree.name}: {results[tree.name].get(attack, '-')}")
        if args.no_memory:
            return
        for tree in trees:
            print(f"run --http ({tree.name}): {run_memory(tree, Path(folder), http=True)}", flush=True)
        for tree in trees:  # VmHWM from /proc: a child's ru_maxrss would count its parent's memory at the fork
            print(f"make run ({tree.name}): {run_memory(tree, Path(folder), http=False)}", flush=True)


def _table_run(tree: Tree, args: argparse.Namespace) -> dict[str, list[tuple[Phase, Phase]]]:
    """One tree's table in a process of its own (``--table``), its phases printed as they end."""
    print(f"{tree.name}:", flush=True)
    env = {**tree.env, "BENCH_SOURCE": str(tree.root)} if tree.root != ROOT else tree.env
    flags = ["--seconds", str(args.seconds), "--repeats", str(args.repeats), "--flood", str(args.flood)]
    flags += ["--connections", str(args.connections), "--clients", str(args.clients)]
    flags += [f"--only={attack}" for attack in args.only]
    own: set[int] | None = None
    if args.split_cpus:
        cpus = sorted(os.sched_getaffinity(0))
        env = {**env, "BENCH_ATTACKER_CPUS": ",".join(map(str, cpus[1:]))}
        if not (tree.root / "firmware_host" / "host" / "cpus.py").exists():
            own = {cpus[0]}  # a build that does not place itself: its table on the first CPU

    process = subprocess.Popen(
        [sys.executable, __file__, "--table", *flags],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: _table_cpus(own),
    )
    assert process.stdout is not None
    pairs: dict[str, list[tuple[Phase, Phase]]] = {}
    for line in process.stdout:
        if line.startswith(RESULT):
            pairs = json.loads(line[len(RESULT) :])
        else:
            print(line, end="", flush=True)
    if process.wait() != 0:
        raise SystemExit(f"{tree.name}: the table's process exited with status {process.returncode}")
    return pairs


if __name__ == "__main__":
    main()
