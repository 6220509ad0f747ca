"""The floor soak's end checks, figures, plain-text report and plot (bench/bench_floor_soak.py)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.floor.soak_issue import PACES
from bench.floor.soak_measure import Row, per_second, percentiles
from bench.floor.soak_publish import game_of
from bench.floor.tables import floor_export, journal_export

if TYPE_CHECKING:
    from bench.bench_floor_soak import Soak
    from bench.floor.soak_rig import Rig

__all__ = ["checks", "differences", "figures", "text", "plot"]

#: Seconds after a fault whose messages count as "around" it.
AFTER_FAULT_S = 30.0


def _check(name: str, ok: bool, detail: str = "") -> dict[str, Any]:
    return {"name": name, "ok": bool(ok), "detail": detail}


def differences(rows: list[Row], issued: dict[str, list[str]]) -> list[str]:
    """The tables of ``issued`` (table -> hashes of seq 1, 2, ...) whose stored messages are not exactly those."""
    stored: dict[str, dict[int, str]] = defaultdict(dict)
    for row in rows:
        stored[row.table][row.seq] = row.hash
    return [
        table
        for table, hashes in issued.items()
        if stored.get(table, {}) != {seq: digest for seq, digest in enumerate(hashes, 1)}
    ]


def checks(
    rig: Rig, rows: list[Row], issued: dict[str, Any], live: list[str], drained: bool, sources: dict[str, Path]
) -> list[dict[str, Any]]:
    """Pass or fail, each with what it found (``sources``: the journal each game's tables re-issue)."""
    made = [_check("drain: the store holds everything before the timeout", drained)]
    made.append(
        _check("publishers: every republished message PUBACKed", issued["acked_all"], f"unacked {issued['unacked']}")
    )
    wrong = differences(rows, issued["issued"])
    count = sum(len(hashes) for hashes in issued["issued"].values())
    made.append(
        _check(
            f"republished: {len(issued['issued'])} tables' {count} messages stored exactly as issued",
            bool(issued["issued"]) and not wrong,
            f"differ: {wrong[:10]}" if wrong else "",
        )
    )
    made.append(_republished_rounds(rig, list(issued["issued"]), sources))
    for table in live:
        floor, journal = floor_export(rig.db, table), journal_export(rig.journal(table))
        made.append(
            _check(
                f"live {table}: floor export --rounds == journal export --rounds ({len(journal.splitlines())} rounds)",
                floor == journal and bool(journal),
                "" if floor == journal else f"floor {len(floor.splitlines())} rounds",
            )
        )
    store = rig.db.open(read_only=True)
    try:
        statuses = [store.status(table) for table in store.tables()]
    finally:
        store.close()
    bad = [s.table for s in statuses if s.gaps or s.breaks or s.refused or s.unreadable]
    unknown = sorted({s.table for s in statuses} - set(issued["issued"]) - set(live))
    made.append(
        _check(
            f"floor status: {len(statuses)} tables, no gap, break, refusal or unreadable record",
            not bad and not unknown,
            f"bad {bad[:10]} unknown {unknown[:10]}" if bad or unknown else "",
        )
    )
    alive = [name for name, child in rig.collectors.items() if child.poll() is None]
    made.append(_check("collectors: both alive at the end", len(alive) == 2, f"alive {alive}"))
    return made


def _republished_rounds(rig: Rig, tables: list[str], sources: dict[str, Path]) -> dict[str, Any]:
    """Each republished table's ``floor export --rounds`` is its source journal's ``journal export
    --rounds``, as far as the table published (its rounds are the source's first ones)."""
    exported = {game: journal_export(journal).splitlines() for game, journal in sources.items()}
    wrong, rounds = [], 0
    for table in tables:
        floor = floor_export(rig.db, table).splitlines()
        rounds += len(floor)
        if not floor or floor != exported[game_of(table)][: len(floor)]:
            wrong.append(table)
    return _check(
        f"republished: {len(tables)} tables' floor export --rounds == their source's journal export --rounds "
        f"({rounds} rounds)",
        bool(tables) and not wrong,
        f"differ: {wrong[:10]}" if wrong else "",
    )


def _moment(soak: Soak, what: str) -> float | None:
    return next((at for name, at in soak.events if name == what), None)


def _latency(rows: list[Row], low: float | None, high: float | None) -> dict[str, float]:
    """Decision -> stored (ms) of the messages decided in ``[low, high)`` (None: unbounded)."""
    return percentiles(
        (row.received_at - row.at) * 1000
        for row in rows
        if (low is None or row.at >= low) and (high is None or row.at < high)
    )


def figures(
    soak: Soak, rig: Rig, groups: dict[str, list[list[dict[str, Any]]]], rows: list[Row], made: list[dict[str, Any]]
) -> dict[str, Any]:
    """Everything the report prints, JSON-ready."""
    args, start, until = soak.args, soak.start, soak.until
    republished = [row for row in rows if row.table not in soak.live]
    per_round = {game: statistics.mean(len(g) for g in groups[game][1:]) for game in PACES}
    per_table = {game: per_round[game] * pace.hands_per_hour * args.speed / 3600 for game, pace in PACES.items()}
    target = sum(per_table[game_of(table)] for table in soak.tables)
    end = max((row.received_at for row in rows), default=until)
    series = per_second((row.received_at for row in rows), start)
    windows = [sum(series[n : n + 10]) / 10 for n in range(0, max(0, int(until - start) - 9), 10)]
    killed, restarted = _moment(soak, "floor-a killed"), _moment(soak, "floor-a restarted")
    broker = _moment(soak, "broker restarted")
    warm = start + 0.1 * args.duration
    phases = {
        "all": _latency(republished, None, None),
        "warm-up (first 10%: connections, first rows)": _latency(republished, start, warm),
        "steady (10% .. the kill)": _latency(republished, warm, killed),
        "floor-a down (kill .. restart + 30 s)": _latency(
            republished, killed, restarted + AFTER_FAULT_S if restarted else None
        ),
        "broker restart (.. + 30 s)": _latency(republished, broker, broker + AFTER_FAULT_S if broker else None),
    }
    live = {table: _latency([row for row in rows if row.table == table], None, None) for table in soak.live}
    at_of = {(row.table, row.seq): row.at for row in rows}
    drawn = [(d.at - at_of[(d.table, d.seq)]) * 1000 for d in soak.drawn if (d.table, d.seq) in at_of]
    wall = end - start
    pg = [cpu for moment, cpu in soak.postgres_cpu if moment >= start]
    return {
        "scale": {
            "tables": args.tables,
            "live": args.live,
            "duration_s": args.duration,
            "speed": args.speed,
            "publishers": args.publishers,
            "load_before": soak.load_before,
            "load_after": soak.load_after,
        },
        "pace": {
            game: {"hands_per_hour": PACES[game].hands_per_hour, "messages_per_round": per_round[game]}
            for game in PACES
        },
        "target_messages_per_s": target,
        "stored": {
            "messages": len(rows),
            "messages_per_s": len(rows) / wall if wall > 0 else 0.0,
            "per_10s_min": min(windows, default=0.0),
            "per_10s_median": statistics.median(windows) if windows else 0.0,
            "per_10s_max": max(windows, default=0.0),
            "drained_after_s": end - until,
        },
        "latency_ms": phases,
        "live_latency_ms": live,
        "processes": {
            name: {"cpu_s": meter.cpu_s, "core_pct": 100 * meter.cpu_s / wall, "peak_rss_mb": meter.peak_rss_mb}
            for name, meter in soak.meters.items()
        },
        "postgres": {"cpu_s": pg[-1] - pg[0] if pg else 0.0, "core_pct": 100 * (pg[-1] - pg[0]) / wall if pg else 0},
        "publishers": {
            "published": soak.published["published"],
            "reconnects": soak.published["reconnects"],
            "cpu_s": soak.published["cpu_s"],
        },
        "publishers_late_s": soak.published["late_s"],
        "dashboard": {"drawn": percentiles(drawn), "tiles": len({d.table for d in soak.drawn}), "frames": soak.frames}
        if soak.drawn
        else None,
        "events": [(what, at - start) for what, at in soak.events],
        "series": {
            "stored_per_s": series,
            "p99_ms_per_s": _p99_series(rows, start, len(series)),
        },
        "notes": soak.notes,
        "checks": made,
    }


def _p99_series(rows: list[Row], start: float, seconds: int) -> list[float]:
    by_second: list[list[float]] = [[] for _ in range(seconds)]
    for row in rows:
        index = int(row.received_at - start)
        if 0 <= index < seconds:
            by_second[index].append((row.received_at - row.at) * 1000)
    return [percentiles(values)["p99"] for values in by_second]


def text(f: dict[str, Any]) -> str:
    """The report, plain text (what the README quotes)."""
    s, st = f["scale"], f["stored"]
    lines = [
        f"floor soak: {s['tables']} republished + {s['live']} live tables, {s['duration_s']:g} s at "
        f"{s['speed']:g}x a real table's pace, {s['publishers']} publisher processes; load {s['load_before']} "
        f"before, {s['load_after']} after",
        "pace: "
        + "; ".join(
            f"{game} {p['hands_per_hour']:g} hands/h x {p['messages_per_round']:.1f} messages/round"
            for game, p in f["pace"].items()
        )
        + f" -> target {f['target_messages_per_s']:.0f} messages/s at {s['speed']:g}x",
        f"stored: {st['messages']} messages, {st['messages_per_s']:.0f}/s over the run; 10-s windows min "
        f"{st['per_10s_min']:.0f}, median {st['per_10s_median']:.0f}, max {st['per_10s_max']:.0f}/s; last "
        f"stored {st['drained_after_s']:.1f} s after play ended",
    ]
    for phase, p in f["latency_ms"].items():
        lines.append(
            f"decision -> stored, {phase}: p50 {p['p50']:.0f} ms, p99 {p['p99']:.0f} ms, max {p['max']:.0f} ms "
            f"({p['n']} messages)"
        )
    for table, p in f["live_latency_ms"].items():
        lines.append(
            f"decision -> stored, live {table}: p50 {p['p50']:.0f} ms, p99 {p['p99']:.0f} ms, "
            f"max {p['max']:.0f} ms ({p['n']})"
        )
    for name, p in f["processes"].items():
        lines.append(
            f"{name}: CPU {p['cpu_s']:.1f} s ({p['core_pct']:.0f}% of a core), peak RSS {p['peak_rss_mb']:.0f} MB"
        )
    pg = f["postgres"]
    lines.append(f"PostgreSQL (postmaster and backends): CPU {pg['cpu_s']:.1f} s ({pg['core_pct']:.0f}% of a core)")
    pub = f["publishers"]
    lines.append(
        f"publishers: {pub['published']} publishes (resends included), {pub['reconnects']} reconnects, CPU "
        f"{pub['cpu_s']:.1f} s (pre-computation included); pre-computation {f['publishers_late_s']:.1f} s late"
    )
    if f["dashboard"]:
        d = f["dashboard"]
        lines.append(
            f"dashboard ({d['tiles']} tiles): publish -> drawn p50 {d['drawn']['p50']:.0f} ms, p99 "
            f"{d['drawn']['p99']:.0f} ms, max {d['drawn']['max']:.0f} ms ({d['drawn']['n']} tile updates)"
        )
        fr = d["frames"]
        lines.append(
            f"  page: {fr['batches']:.0f} SSE batches, {fr['draws']:.0f} frames drew tiles (mean "
            f"{fr['mean_draw_ms']:.1f} ms, max {fr['max_draw_ms']:.1f} ms of script; style, layout and paint "
            f"max {fr['max_render_ms']:.0f} ms); long tasks {fr['long_tasks']:.0f} ({fr['long_task_ms']:.0f} ms in all)"
        )
    lines += [f"note: {note}" for note in f["notes"]]
    lines.append("events: " + ", ".join(f"{what} {at:.0f} s" for what, at in f["events"]))
    lines += [
        f"{'PASS' if c['ok'] else 'FAIL'} {c['name']}" + (f": {c['detail']}" if c["detail"] else "")
        for c in f["checks"]
    ]
    return "\n".join(lines)


def plot(f: dict[str, Any], path: Path) -> str:
    """A PNG of stored msg/s and p99 latency per second, the faults marked; a line saying what was done."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plot: matplotlib is not installed, no plot"
    figure, rate = plt.subplots(figsize=(10, 4))
    rate.plot(f["series"]["stored_per_s"], color="tab:blue", linewidth=0.8)
    rate.set_xlabel("seconds from the start")
    rate.set_ylabel("stored messages/s", color="tab:blue")
    latency = rate.twinx()
    latency.plot(f["series"]["p99_ms_per_s"], color="tab:red", linewidth=0.8)
    latency.set_ylabel("decision -> stored p99, ms", color="tab:red")
    latency.set_yscale("log")
    for what, at in f["events"]:
        rate.axvline(at, color="grey", linestyle="--", linewidth=0.8)
        rate.text(at, rate.get_ylim()[1], what, rotation=90, fontsize=7, va="top")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return f"plot: {path}"
