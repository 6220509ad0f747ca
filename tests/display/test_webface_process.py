"""The web face in a process of its own (issue 30): ``tablehost run``'s child, killed at any moment,
is restarted while the table deals on, and the page it served catches up by Last-Event-ID with no
update missed and nothing early (§ 541.9(c)(2): a face-down shoe)."""

from __future__ import annotations

import collections
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_host.config.profiles import TableProfile
from firmware_host.display.face_file import face_path
from firmware_host.display.follow import FaceFollower
from firmware_host.display.hub import DisplayHub
from firmware_host.display.view import view_for
from tests.display.conftest import Running
from tests.support.device_events import eventually
from tests.support.nothing_early import CARD, both_pages, check_board_message, check_dealer_message, journal_facts

ROUNDS = 4
WAIT_MS = 30_000
#: Seconds the child has to be serving again after a SIGKILL (its first back-off is 0.5 s, then a
#: Python start at nice 10): a liveness bound, wide for a CI machine running six workers on two
#: cores, where a start took over 10 s (a start to its first line measured 2.1–2.8 s, load 9–22).
RESTARTED_WITHIN_S = 30.0


def updates_of(profile: TableProfile, journal: Path, view: str) -> list[dict[str, Any]]:
    """The updates of ``view`` a web face that never died would have sent, from the face file."""
    hub = DisplayHub(view_for(profile.game, profile.table_id, profile.display.limits))
    FaceFollower(face_path(journal), hub).rebuild()
    return [{"id": update.seq, "data": json.loads(update.data)} for update in hub.backlog(view)]


def caught_up(messages: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    """A page's messages: a snapshot, then every update after it, each once and in order, across the
    kill (the restarted web face answered the browser's Last-Event-ID with what it missed)."""
    first, *rest = messages
    assert "snapshot" in first["data"]["types"]
    assert rest == [update for update in expected if update["id"] > first["id"]]


def test_a_killed_web_face_is_restarted_and_its_pages_miss_no_card(
    run_table: Callable[..., Running], browser: Any, tmp_path: Path
) -> None:
    table = run_table(face_down=True, rounds=ROUNDS, pace=0.02, web_face="child", hold_at={"load_shoe"})
    child = table.table.web_child
    assert child is not None and table.table.display is None  # not in the service's process
    context, dealer, board = both_pages(browser, table.url)
    table.gate.release()
    eventually(lambda: table.service.rounds_finished >= 1, 60)  # mid-shoe

    killed, seq_at_kill = child.pid, table.table.journal.last_seq
    assert killed is not None
    os.kill(killed, signal.SIGKILL)
    eventually(lambda: child.restarts == 1 and child.pid != killed, RESTARTED_WITHIN_S)
    assert table.table.journal.last_seq > seq_at_kill  # the table dealt on while its web face was down
    table.thread.join(timeout=120)
    assert table.service.rounds_finished == ROUNDS
    assert table.flush()  # the face file holds the whole shoe

    facts = journal_facts(table.table.journal)
    expected = updates_of(table.table.profile, tmp_path / "journal.sqlite", "dealer")
    on_board = updates_of(table.table.profile, tmp_path / "journal.sqlite", "scoreboard")
    dealer.wait_for_function(f"window.tablehost.seq === {expected[-1]['id']}", timeout=WAIT_MS)
    board.wait_for_function(f"window.tablehost.seq === {on_board[-1]['id']}", timeout=WAIT_MS)
    assert board.evaluate("document.body.dataset.rounds") == str(ROUNDS)
    messages = dealer.evaluate("window.tablehost.messages")
    caught_up(messages, expected)
    assert any(m["id"] < seq_at_kill for m in messages[1:]) and any(m["id"] > seq_at_kill for m in messages)
    board_messages = board.evaluate("window.tablehost.messages")
    caught_up(board_messages, on_board)
    board_snapshots = {s["seq"]: s for s in board.evaluate("window.tablehostDom")}
    for message in board_messages:  # no outcome before it is announced
        allowed = check_board_message(facts, message["id"], message["data"]["scoreboard"])
        assert set(CARD.findall(board_snapshots[message["id"]]["text"])) <= set(allowed)
    snapshots = {s["seq"]: s for s in dealer.evaluate("window.tablehostDom")}
    for message in messages:  # nothing early, in the messages and on the page
        allowed = check_dealer_message(facts, message["id"], message["data"]["state"])
        shown = [card for card in snapshots[message["id"]]["cards"] if card != "hidden"]
        assert not collections.Counter(shown) - collections.Counter(allowed), (message["id"], shown)
        assert set(CARD.findall(snapshots[message["id"]]["text"])) <= set(allowed)
    context.close()
