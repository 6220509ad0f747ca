"""The hub's streams: one wake per event loop and update, one encoding per update, none sent twice."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading

from firmware_host.display.hub import CLIENT_QUEUE, DisplayHub, Update
from firmware_host.display.view import BaccaratView
from tests.support.loops import run


def publish(hub: DisplayHub, seq: int, view: str = "scoreboard") -> None:
    """An update of ``view`` at ``seq`` (the hub thread's part, from the test)."""
    field = "state" if view == "dealer" else "scoreboard"
    fields = {"types": '["x"]', field: json.dumps({"n": seq})} if view == "dealer" else {field: json.dumps({"n": seq})}
    hub._publish(dataclasses.replace(hub.snapshot, seq=seq), [(view, fields)])


def count_wakes(loop: asyncio.AbstractEventLoop) -> list[int]:
    """Count the calls into ``loop`` from other threads (a wake each), in the list returned."""
    calls = [0]
    original = loop.call_soon_threadsafe

    def counted(*args: object) -> asyncio.Handle:
        calls[0] += 1
        return original(*args)  # type: ignore[arg-type]

    loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
    return calls


def test_an_update_wakes_a_loop_once_whatever_its_streams_and_is_encoded_once() -> None:
    # Issue 30: each update was handed to each stream by a call into its loop (a write to the
    # loop's self-pipe and a wake-up each: 64 a step under 1,000 connections) and formatted and
    # encoded once per stream.
    hub = DisplayHub(BaccaratView("T"))

    async def scenario() -> tuple[int, list[list[Update] | None]]:
        calls = count_wakes(asyncio.get_running_loop())
        streams = [hub.subscribe("scoreboard", 0) for _ in range(50)]
        waiting = [asyncio.ensure_future(stream.next(5)) for stream in streams]
        await asyncio.sleep(0)
        publish(hub, 7)
        got = await asyncio.gather(*waiting)
        for stream in streams:
            hub.unsubscribe("scoreboard", stream)
        return calls[0], got

    calls, got = run(scenario())
    assert calls == 1
    assert all(updates is not None and [u.seq for u in updates] == [7] for updates in got)
    first = got[0]
    assert first is not None and all(updates is not None and updates[0].event is first[0].event for updates in got)
    assert first[0].event == f"id: 0.7\ndata: {first[0].data}\n\n".encode()  # <epoch>.<seq>
    assert json.loads(first[0].data) == {"seq": 7, "scoreboard": {"n": 7}}


def test_a_stream_that_does_not_take_its_updates_holds_none_and_ends_past_the_limit() -> None:
    hub = DisplayHub(BaccaratView("T"))

    async def scenario() -> tuple[list[int], list[Update] | None, tuple[int, int]]:
        idle = hub.subscribe("scoreboard", 0)  # its reader takes nothing: it never asks for more
        busy = hub.subscribe("scoreboard", 0)
        for seq in range(1, CLIENT_QUEUE + 1):
            publish(hub, seq)
        caught_up = await busy.next(1)
        publish(hub, CLIENT_QUEUE + 1)
        ended = await idle.next(1)
        still = await busy.next(1)
        before = hub.clients()
        for stream in (idle, busy):
            hub.unsubscribe("scoreboard", stream)
        clients = (before, hub.clients())
        assert caught_up is not None and still is not None
        return [u.seq for u in caught_up + still], ended, clients

    seqs, ended, clients = run(scenario())
    assert seqs == list(range(1, CLIENT_QUEUE + 2))  # in order, none missed
    assert ended is None  # more than CLIENT_QUEUE behind: its browser reconnects and catches up
    assert clients == (2, 0)


def test_no_update_is_sent_twice_or_after_a_newer_snapshot() -> None:
    hub = DisplayHub(BaccaratView("T"))

    async def scenario() -> list[int]:
        hub.snapshot = dataclasses.replace(hub.snapshot, seq=10)
        stream = hub.subscribe("dealer", None)  # a snapshot at 10
        sent: list[int] = []
        for seq in (9, 10, 11, 11, 12):  # older than the snapshot, as old, newer, a repeat
            publish(hub, seq, "dealer")
            while (updates := await stream.next(0.05)) not in ([], None):
                assert updates is not None
                sent += [u.seq for u in updates]
        hub.unsubscribe("dealer", stream)
        return sent

    assert run(scenario()) == [10, 11, 12]


def test_stopping_the_hub_ends_every_stream_after_its_last_updates() -> None:
    # The last update before a stop (a halted table's banner) was dropped by a stream that had
    # not taken it yet (tests/recovery/test_journal_unwritable.py).
    hub = DisplayHub(BaccaratView("T"))

    async def scenario() -> tuple[list[list[Update] | None], list[Update] | None, list[Update] | None]:
        streams = [hub.subscribe(view, 0) for view in ("dealer", "scoreboard")]
        waiting = [asyncio.ensure_future(stream.next(5)) for stream in streams]
        await asyncio.sleep(0)
        hub.stop()
        ended = list(await asyncio.gather(*waiting))
        late = hub.subscribe("dealer", 0)
        publish(hub, 5, "dealer")
        hub.stop()
        return ended, await late.next(1), await late.next(1)

    ended, last, then = run(scenario())
    assert ended == [None, None]
    assert last is not None and [u.seq for u in last] == [5] and then is None


def test_starting_again_on_a_new_journal_ends_the_streams_and_an_id_ahead_gets_a_snapshot() -> None:
    # Issue 30: a page whose Last-Event-ID was of the journal before (higher than every seq of
    # the new one) was answered nothing, and waited for the new journal's seqs to pass it.
    hub = DisplayHub(BaccaratView("T"))

    async def scenario() -> tuple[list[Update] | None, list[Update] | None, int]:
        publish(hub, 900, "dealer")
        old = hub.subscribe("dealer", 900)
        waiting = asyncio.ensure_future(old.next(5))
        await asyncio.sleep(0)
        hub.start_again(lambda: publish(hub, 3, "dealer"))  # the new journal's view, rebuilt
        ended = await waiting
        page = hub.subscribe("dealer", 900)
        caught_up = await page.next(1)
        hub.unsubscribe("dealer", old)
        hub.unsubscribe("dealer", page)
        return ended, caught_up, hub.view.seq

    ended, caught_up, seq = run(scenario())
    assert ended is None  # its page reconnects with its Last-Event-ID
    assert caught_up is not None and [json.loads(u.data)["types"] for u in caught_up] == [["snapshot"]]
    assert caught_up[0].seq == 3 and seq == 0  # a fresh view (nothing applied to it here)


def test_a_table_that_has_shown_nothing_yet_is_sent_its_snapshot() -> None:
    # The snapshot of a view at seq 0 was taken for one already sent.
    hub = DisplayHub(BaccaratView("T"))

    async def scenario() -> list[Update] | None:
        stream = hub.subscribe("dealer", None)
        first = await stream.next(1)
        hub.unsubscribe("dealer", stream)
        return first

    first = run(scenario())
    assert first is not None and [(u.seq, json.loads(u.data)["types"]) for u in first] == [(0, ["snapshot"])]


def test_an_id_of_another_journal_gets_a_snapshot_though_its_seq_is_in_the_backlog() -> None:
    # A salvaged journal keeps the seqs up to the last intact record and writes other records
    # above them: a page whose Last-Event-ID the new journal reaches was answered from the
    # backlog, without a snapshot, and stayed on the board of the journal before.
    hub = DisplayHub(BaccaratView("T"))
    hub.rebuild([], epoch="a")
    for seq in range(880, 901):
        publish(hub, seq, "dealer")

    def salvaged() -> None:
        hub.rebuild([], epoch="b")
        for seq in range(840, 901):
            publish(hub, seq, "dealer")

    hub.start_again(salvaged)
    hub.same_journal("c")  # the same journal's face file made anew: its ids still catch up

    async def scenario() -> tuple[list[Update] | None, ...]:
        pages = [hub.subscribe("dealer", 850, epoch) for epoch in ("a", "b", "c")]
        got = tuple([await page.next(1) for page in pages])
        for page in pages:
            hub.unsubscribe("dealer", page)
        return got

    old, before, now = run(scenario())
    assert old is not None and [json.loads(u.data)["types"] for u in old] == [["snapshot"]]
    assert old[0].event.startswith(b"id: c.900\n")  # the snapshot carries the epoch of now
    for caught_up in (before, now):
        assert caught_up is not None and [u.seq for u in caught_up] == list(range(851, 901))
        assert caught_up[0].event.startswith(b"id: b.851\n")


def test_a_stream_of_the_journal_before_is_sent_none_of_the_rebuild_s_updates() -> None:
    # The epoch moved only after the rebuild: a stream of the journal before, woken by the
    # rebuild's updates on the hub's thread, was sent the new journal's before it was ended.
    hub = DisplayHub(BaccaratView("T"))
    hub.start()
    rebuilding, proceed = threading.Event(), threading.Event()

    def rebuild() -> None:
        hub.rebuild([], epoch="b")
        publish(hub, 3, "dealer")
        rebuilding.set()
        proceed.wait(10)

    async def scenario() -> tuple[list[Update] | None, list[Update] | None, list[Update] | None]:
        publish(hub, 900, "dealer")
        old = hub.subscribe("dealer", 900)
        waiting = asyncio.ensure_future(old.next(5))
        await asyncio.sleep(0)
        done = hub.start_again(rebuild)
        ended = await waiting  # while the rebuild is still under way
        await asyncio.to_thread(rebuilding.wait, 10)
        during = hub.subscribe("dealer", None)
        first = await during.next(1)
        proceed.set()
        await asyncio.to_thread(done.wait, 10)
        then = await during.next(5)
        for stream in (old, during):
            hub.unsubscribe("dealer", stream)
        return ended, first, then

    try:
        ended, first, then = run(scenario())
    finally:
        proceed.set()
        hub.stop()
    assert ended is None
    assert first is not None and [json.loads(u.data)["types"] for u in first] == [["snapshot"]]
    assert then is None  # begun during the rebuild (with a part of it): ended after it, to catch up


def test_a_step_that_changes_both_views_wakes_a_loop_once() -> None:
    hub = DisplayHub(BaccaratView("T"))

    async def scenario() -> tuple[int, list[list[Update] | None]]:
        calls = count_wakes(asyncio.get_running_loop())
        streams = [hub.subscribe(view, 0) for view in ("dealer", "scoreboard")]
        waiting = [asyncio.ensure_future(stream.next(5)) for stream in streams]
        await asyncio.sleep(0)
        fields = {"dealer": {"types": '["x"]', "state": "{}"}, "scoreboard": {"scoreboard": "{}"}}
        hub._publish(dataclasses.replace(hub.snapshot, seq=7), list(fields.items()))
        got = await asyncio.gather(*waiting)
        for view, stream in zip(("dealer", "scoreboard"), streams):
            hub.unsubscribe(view, stream)
        return calls[0], got

    calls, got = run(scenario())
    assert calls == 1
    assert all(updates is not None and [u.seq for u in updates] == [7] for updates in got)
