"""Benchmark of the display's HTTP face under attack (issue 20 item 4), loopback only.

A simulated Baccarat table deals as fast as it can (pace 0), its display served on a free
loopback port, its PIN files at the real scrypt cost (N = 2**14). A reader on 127.0.0.1 (the
Pi's own screen) follows the dealer stream. Three phases of ``--seconds`` each:

1. quiet: nobody else;
2. wrong-PIN flood: a separate process keeps ``--flood`` wrong PINs in flight at once, each
   from another source address (127.0.0.2 to 127.0.0.250: the per-address lockout and the
   global budget both meet it);
3. 1,000 connections: a separate process holds ``--connections`` connections from the
   network addresses, each asking for the board's stream and never reading it, reopening any
   the server closes.

The attacker shares the machine's CPUs with the table (on a floor it would be elsewhere).
Figures per phase: the service loop's rate (steps per second), the stream's delay from a
step's decisions being durable to the reader receiving its event (p50/p99/max), the HTTP
answers the attacker got, the scrypt checks run, the journal's refusal records, the table
process's resident memory (and its peak).

Usage: ``python bench/bench_http_hostile.py [--seconds S] [--flood N] [--connections N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if os.environ.get("BENCH_SOURCE"):  # another tree's firmware_host (an older main, for the figures before)
    sys.path.insert(0, os.environ["BENCH_SOURCE"])

from bench.bench_display import Durable, memory_kib, percentiles  # noqa: E402
from bench.display.table import BACCARAT, DEALER_PIN, SUPERVISOR_PIN, start, write_profile  # noqa: E402
from firmware_host.web.pins import write_pin_file  # noqa: E402

#: The attacker's source addresses (never 127.0.0.1, the Pi's own).
SOURCES = [f"127.0.0.{i}" for i in range(2, 251)]


# -- the attacker (a separate process) ------------------------------------------------------


async def _answer(reader: asyncio.StreamReader) -> int:
    line = await reader.readline()
    status = int(line.split()[1]) if line.startswith(b"HTTP/") else 0
    length = 0
    while (header := await reader.readline()) not in (b"\r\n", b""):
        if header.lower().startswith(b"content-length:"):
            length = int(header.split(b":")[1])
    await reader.readexactly(length)
    return status


async def flood(host: str, port: int, seconds: float, workers: int) -> collections.Counter[str]:
    """Wrong PINs, ``workers`` in flight at once, each connection from the next source address."""
    seen: collections.Counter[str] = collections.Counter()
    deadline = time.monotonic() + seconds
    body = json.dumps({"command": "reveal", "pin": "0000"}).encode()
    request = (
        f"POST /api/action HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body

    async def worker(index: int) -> None:
        while time.monotonic() < deadline:
            source = SOURCES[(index + seen.total()) % len(SOURCES)]
            try:
                reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
                for _ in range(20):
                    writer.write(request)
                    seen[str(await _answer(reader))] += 1
                    if time.monotonic() >= deadline:
                        break
                writer.close()
            except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
                seen["closed"] += 1
                await asyncio.sleep(0.01)

    await asyncio.gather(*(worker(i) for i in range(workers)))
    return seen


async def hold(host: str, port: int, seconds: float, count: int) -> collections.Counter[str]:
    """``count`` connections that ask for a stream and never read it; reopened when closed."""
    seen: collections.Counter[str] = collections.Counter()
    deadline = time.monotonic() + seconds
    request = f"GET /api/stream?view=scoreboard HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()

    async def one(index: int) -> None:
        while time.monotonic() < deadline:
            try:
                source = SOURCES[index % len(SOURCES)]
                reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
                writer.write(request)
                seen["opened"] += 1
                head = await asyncio.wait_for(reader.read(12), max(0.1, deadline - time.monotonic()))
                seen[head[9:12].decode() or "closed at once"] += 1
                while time.monotonic() < deadline and not reader.at_eof():
                    await asyncio.sleep(0.5)  # holds it, never reads
                writer.close()
            except TimeoutError:
                seen["held to the end"] += 1
            except OSError:
                seen["refused"] += 1
                await asyncio.sleep(0.05)

    await asyncio.gather(*(one(i) for i in range(count)))
    return seen


def attacker(kind: str, url: str, seconds: float, count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    parts = urlsplit(url)
    run = flood if kind == "flood" else hold
    seen = asyncio.run(run(parts.hostname or "127.0.0.1", parts.port or 80, seconds, count))
    print(json.dumps(dict(seen)))


# -- the table side -------------------------------------------------------------------------


class Reader(threading.Thread):
    """The Pi's own screen: follows the dealer stream and notes when each event arrives."""

    def __init__(self, url: str) -> None:
        super().__init__(name="reader", daemon=True)
        self.url, self.at, self.stopping = url, {}, False

    def run(self) -> None:
        parts = urlsplit(self.url)
        with socket.create_connection((parts.hostname, parts.port)) as sock:
            sock.sendall(f"GET /api/stream?view=dealer HTTP/1.1\r\nHost: {parts.hostname}\r\n\r\n".encode())
            sock.settimeout(1)
            buffer = b""
            while not self.stopping:
                try:
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    return
                now = time.time() * 1000
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    if line.startswith(b"id: "):
                        self.at[int(line[4:].rpartition(b".")[2])] = now  # id: <epoch>.<seq>


def phase(name: str, running: Any, probe: Durable, reader: Reader, seconds: float, attack: list[str] | None) -> None:
    service, journal = running.service, running.table.journal
    checked, records = _checks(running), _refusal_records(journal)
    steps, started = service.steps, time.monotonic()
    since = time.time() * 1000
    child = None
    if attack:
        child = subprocess.Popen(
            [sys.executable, __file__, "--attack", *attack, "--url", running.url, "--seconds", str(seconds)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
    time.sleep(seconds)
    rate = (service.steps - steps) / (time.monotonic() - started)
    answers = json.loads(child.communicate(timeout=seconds + 60)[0] or "{}") if child else {}
    delays = [at - probe.at[seq] for seq, at in reader.at.items() if seq in probe.at and probe.at[seq] >= since]
    rss, peak = memory_kib(os.getpid())
    print(
        f"{name}: service loop {rate:,.0f} steps/s; stream delay {percentiles(delays) if delays else 'no events'}; "
        f"scrypt checks {_checks(running) - checked}; "
        f"refusal records {_refusal_records(journal) - records}; "
        f"RSS {rss / 1024:.0f} MiB (peak {peak / 1024:.0f} MiB)" + (f"; attacker got {answers}" if child else "")
    )


def _checks(running: Any) -> int:
    """scrypt checks run so far (-1 where the display does not count them)."""
    state = getattr(getattr(running.table.display.server, "app", None), "state", None)
    return state.credentials.lockout.checked if state is not None else -1


def _refusal_records(journal: Any) -> int:
    return len(journal.meta("display_refused"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per phase (default 10)")
    parser.add_argument("--flood", type=int, default=40, help="wrong PINs in flight at once (default 40)")
    parser.add_argument("--connections", type=int, default=1000, help="connections held (default 1000)")
    parser.add_argument("--attack", nargs=2, metavar=("KIND", "COUNT"), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attack:
        attacker(args.attack[0], args.url, args.seconds, int(args.attack[1]))
        return
    with tempfile.TemporaryDirectory() as folder:
        profile = write_profile(Path(folder), BACCARAT.format(decks=8, rules=""))
        write_pin_file(Path(folder) / "dealer.pin", DEALER_PIN)  # the real cost, N = 2**14
        write_pin_file(Path(folder) / "supervisor.pin", SUPERVISOR_PIN)
        running = start(profile, Path(folder) / "j.sqlite", pace=0.0)
        probe = Durable(running.service)
        outputs = running.service.outputs
        outputs.insert(0, probe)  # when each step is durable (the display follows the journal after)
        reader = Reader(running.url)
        reader.start()
        time.sleep(1)
        try:
            phase("quiet", running, probe, reader, args.seconds, None)
            phase(
                f"wrong-PIN flood ({args.flood} in flight, rotating addresses)",
                running,
                probe,
                reader,
                args.seconds,
                ["flood", str(args.flood)],
            )
            phase(
                f"{args.connections} connections holding unread streams",
                running,
                probe,
                reader,
                args.seconds,
                ["hold", str(args.connections)],
            )
        finally:
            reader.stopping = True
            running.stop()


if __name__ == "__main__":
    main()
