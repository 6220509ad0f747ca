"""The service's ops on the control socket (issue 30 item 2): the service checks an action again
before it emits it (a web face that was taken over gets no further than its buttons would), and
journals refusal summaries as the display did."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from firmware_host.display.actions import REFUSED_META
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import MONO_KEY
from firmware_host.tables.events import DealerCommand
from firmware_host.web.control import Peer
from firmware_host.wiring.control import control_ops

PEER = Peer(pid=1, uid=0, gid=0)


def ops(journal: Journal, emitted: list[Any]) -> dict[str, Any]:
    service = SimpleNamespace(emit=emitted.append, clocks=None, clock=lambda: 1000.0, halted=None, steps=7)
    return control_ops("baccarat", cast(Any, service), journal, None)


def test_an_action_is_checked_again_and_emitted_as_the_buttons_command(tmp_path: Path) -> None:
    emitted: list[Any] = []
    with Journal.open(tmp_path / "j.sqlite") as journal:
        command = ops(journal, emitted)["command"].handler
        assert command({"command": "card_entered", "args": {"card": "9S"}, "role": "dealer"}, PEER) == {"ok": True}
        for bad in (
            {"command": "card_entered", "args": {"card": "10D-long"}, "role": "dealer"},  # a card is 3 characters
            {"command": "card_entered", "args": {"rank": "9"}, "role": "dealer"},
            {"command": "shutdown", "args": None, "role": "dealer"},
            {"command": "reveal", "args": None, "role": "admin"},
        ):
            reply = command(bad, PEER)
            assert reply["ok"] is False and reply["refused"] == "arguments", bad
    assert emitted == [DealerCommand(device="display:dealer", command="card_entered", args={"card": "9S"})]


def test_a_refusal_summary_is_journaled_stamped_by_the_service(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        table = ops(journal, [])
        refused = table["refused"].handler
        assert refused({"data": {"client": "10.0.0.9", "why": "wrong PIN"}}, PEER) == {"ok": True}
        assert refused({"data": {MONO_KEY: 1}}, PEER)["ok"] is False  # the stamp is the service's to write
        assert refused({"data": {f"k{i}": i for i in range(9)}}, PEER)["ok"] is False
        assert journal.meta(REFUSED_META) == [{"client": "10.0.0.9", "why": "wrong PIN"}]
        assert table["metrics"].handler({}, PEER)["ok"] is False  # no metrics configured
        assert table["status"].handler({}, PEER) == {
            "ok": True,
            "halted": None,
            "steps": 7,
            "last_seq": journal.last_seq,
        }


def test_a_taken_over_web_face_journals_at_most_ten_actions_a_second(tmp_path: Path) -> None:
    """The journal's growth from the socket is bounded: past its bucket, ``command`` is refused
    unread (the server's rate, before the handler), whatever the server's own rate allows."""
    import os
    import tempfile
    import time

    from firmware_host.web.control import ControlClient, ControlServer

    emitted: list[Any] = []
    with Journal.open(tmp_path / "j.sqlite") as journal, tempfile.TemporaryDirectory(dir="/tmp") as where:
        server = ControlServer(Path(where) / "c.sock", allowed_uids=frozenset({os.getuid()}), ops=ops(journal, emitted))
        server.start()
        try:
            client = ControlClient(Path(where) / "c.sock")
            started = time.monotonic()
            replies = [client.request("command", command="reveal", args=None, role="dealer") for _ in range(60)]
            elapsed = time.monotonic() - started
            client.close()
        finally:
            server.stop()
    taken = sum(1 for reply in replies if reply["ok"])
    assert 20 <= taken <= 20 + 10 * elapsed + 1  # the bucket of 20, then 10 a second, never more
    assert len(emitted) == taken and server.counts["rate"] == 60 - taken
