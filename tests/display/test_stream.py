"""The live stream: SSE ids are journal seqs, and a client that reconnects catches up (issue 14 item 2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2

from firmware_host.display.hub import BACKLOG
from tests.display.conftest import Running

WAIT_MS = 30_000


def read_events(
    url: str, headers: dict[str, str], until_seq: int, epochs: list[str] | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """The stream's events up to the one with ``until_seq``, by the seq of their id
    (``<epoch>.<seq>``; the epochs are appended to ``epochs``)."""
    events: list[tuple[int, dict[str, Any]]] = []
    with httpx2.stream("GET", url, headers=headers, timeout=10) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        event_id = None
        for line in response.iter_lines():
            if line.startswith("id: "):
                epoch, _, seq = line[4:].partition(".")
                event_id = int(seq)
                if epochs is not None:
                    epochs.append(epoch)
            elif line.startswith("data: "):
                assert event_id is not None
                events.append((event_id, json.loads(line[6:])))
                if event_id >= until_seq:
                    return events
    return events


def test_a_reconnecting_page_catches_up(run_table: Callable[..., Running], browser: Any) -> None:
    table = run_table(rounds=3, pace=0.03, hold_at={"load_shoe"})
    context = browser.new_context(bypass_csp=True)  # Playwright waits eval
    steady, dropped = context.new_page(), context.new_page()
    for page in (steady, dropped):
        page.goto(table.url + "/")
        page.wait_for_function("window.tablehost.messages.length === 1", timeout=WAIT_MS)
    table.gate.release()
    dropped.wait_for_function("window.tablehost.messages.length >= 5", timeout=WAIT_MS)
    dropped.evaluate("window.tablehost.disconnect()")
    seen = dropped.evaluate("window.tablehost.messages.length")
    steady.wait_for_function(f"window.tablehost.messages.length >= {seen + 10}", timeout=WAIT_MS)
    assert dropped.evaluate("window.tablehost.messages.length") == seen  # nothing arrives while it is away
    dropped.evaluate("window.tablehost.reconnect()")
    table.thread.join(timeout=60)
    assert table.flush()
    final = table.seq()
    for page in (steady, dropped):
        page.wait_for_function(f"window.tablehost.seq === {final}", timeout=WAIT_MS)
    everything = steady.evaluate("window.tablehost.messages")
    caught_up = dropped.evaluate("window.tablehost.messages")
    assert [m["id"] for m in caught_up] == [m["id"] for m in everything]  # no update lost, none twice
    assert all(m["data"]["types"] != ["snapshot"] for m in caught_up[seen:])  # from the backlog, in order
    assert caught_up[-1]["data"]["state"] == everything[-1]["data"]["state"]
    assert all(m["id"] == m["data"]["seq"] for m in everything)
    context.close()


def test_last_event_id_resumes_after_it_and_an_old_one_gets_a_snapshot(run_table: Callable[..., Running]) -> None:
    table = run_table(rounds=2)
    table.thread.join(timeout=60)
    assert table.flush()
    final = table.seq()
    url = table.url + "/api/stream?view=dealer"
    epochs: list[str] = []
    first = read_events(url, {}, final, epochs)
    assert [data["types"] for _, data in first] == [["snapshot"]] and first[0][0] == final
    journal_types = {r.seq: r.type for r in table.table.journal.records()}
    middle = final - 20
    resumed = read_events(url, {"Last-Event-ID": f"{epochs[0]}.{middle}"}, final)
    assert resumed and all(seq > middle for seq, _ in resumed) and resumed[-1][0] == final
    assert all(data["types"][-1] == journal_types[seq] for seq, data in resumed)  # id: the seq of its last record
    if final > BACKLOG:
        old = read_events(url, {"Last-Event-ID": f"{epochs[0]}.1"}, final)
        assert [data["types"] for _, data in old] == [["snapshot"]]


def test_the_scoreboard_stream_sends_only_board_changes(run_table: Callable[..., Running]) -> None:
    table = run_table(rounds=3)
    table.thread.join(timeout=60)
    assert table.flush()
    events = read_events(table.url + "/api/stream?view=scoreboard", {"Last-Event-ID": "0"}, table.seq())
    boards = [data["scoreboard"] for _, data in events]
    assert all(a != b for a, b in zip(boards, boards[1:]))
    assert boards[-1]["roads"]["rounds"] == 3
    assert httpx2.get(table.url + "/api/stream?view=nope").status_code == 400
