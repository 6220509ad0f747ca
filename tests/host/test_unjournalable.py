"""Issue 29 item 2 (N1): nothing a dealer, a player or a peer sends can stop a table.

A step whose event cannot be journaled (a lone surrogate, ``"\\ud800"`` in JSON, in a card, a
reason, tiles text...) is refused before the controller sees it and journaled as a ``refused``
meta record with an escaped description; the table plays on and recovers from its journal. A
journal that cannot be *written* (I/O) still stops the table: that is the journal's failure, not
the input's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.events import DeviceEvent
from firmware_host.errors import JournalEncodingError, JournalError
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import canonical_json
from firmware_host.host.service import REFUSED, UNJOURNALABLE, Service
from firmware_host.tables.baccarat.controller import TAKES as BACCARAT_TAKES
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand, WagerPlaced
from firmware_host.tables.paigow.commands import TAKES as PAIGOW_TAKES
from firmware_host.tables.state_tree import capture
from tests.support.table_driver import command
from tests.tables.baccarat import table as bt
from tests.tables.paigow import table as pt

SURROGATE = "\ud800"


def hostile(takes: dict[str, dict[str, Any]], device: str) -> Iterator[DealerCommand]:
    """Every command of a game with a lone surrogate in each place a peer can put one: the command's
    name, the device, each of its arguments (as text, in a list, as a key), an argument's name."""
    for name, arguments in sorted(takes.items()):
        yield DealerCommand(device=device, command=name + SURROGATE)
        yield DealerCommand(device=device + SURROGATE, command=name)
        yield DealerCommand(device=device, command=name, args={SURROGATE: 1})
        for argument in arguments:
            yield DealerCommand(device=device, command=name, args={argument: SURROGATE})
            yield DealerCommand(device=device, command=name, args={argument: ["6-6", SURROGATE]})
            yield DealerCommand(device=device, command=name, args={argument: {SURROGATE: "x", "3": SURROGATE}})


def _flat(*events: DeviceEvent | Iterable[DeviceEvent]) -> list[DeviceEvent]:
    return [e for item in events for e in ([item] if isinstance(item, DeviceEvent) else item)]


def _clock() -> Any:
    ticks = iter(range(1000, 10**6))
    return lambda: float(next(ticks))


GAMES = {
    # game: (a fresh controller, the events to the middle of a round, the events that go on with it, commands)
    "baccarat": (
        lambda: bt.Driver().table,
        lambda: _flat(
            bt.SHOE_UP,
            command("shoe_loaded", decks=8),
            bt.cards(bt.BURN, burn=True),
            bt.wager(2, "player", 1000),
            command("no_more_bets"),
            bt.cards("9S 2H"),
        ),
        lambda: _flat(bt.cards("KD 5C")),
        BACCARAT_TAKES,
    ),
    "paigow": (
        lambda: pt.Driver().table,
        lambda: _flat(pt.SHAKER_UP, command("new_dice"), pt.wager(3), command("no_more_bets")),
        lambda: _flat(pt.shakes(3), pt.lid(True), pt.reading(3, 5, 1)),
        PAIGOW_TAKES,
    ),
}


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("device", ["console", "display:supervisor"])
def test_every_command_with_a_lone_surrogate_is_refused_journaled_and_the_table_plays_on(
    tmp_path: Path, game: str, device: str
) -> None:
    table, to_mid_round, go_on, takes = GAMES[game]
    path = tmp_path / "journal.sqlite"
    attacks = [*hostile(takes, device), WagerPlaced(device="console", seat=2, kind="player" + SURROGATE, amount=1)]
    with Journal.open(path) as journal:
        service = Service(table(), journal, clock=_clock())
        for event in to_mid_round():
            service.step(event)
        before, steps, last = capture(service.controller, "controller"), service.steps, journal.last_seq
        for event in attacks:
            assert service.step(event) == []  # never raises: refused, the controller never saw it
        assert capture(service.controller, "controller") == before and service.steps == steps
        assert service.refused_inputs == len(attacks)
        refused = [r for r in journal.records() if r.seq > last]
        assert [(r.kind, r.type) for r in refused] == [("meta", REFUSED)] * len(attacks)
        for record in refused:
            assert record.data["code"] == UNJOURNALABLE and "surrogate" in record.data["reason"]
            assert SURROGATE not in json.dumps(record.data, ensure_ascii=False)  # escaped, as it is shown
        assert {r.data["input"] for r in refused} == {"DealerCommand", "WagerPlaced"}
        more = go_on()
        for event in more:  # the table deals on
            service.step(event)
        assert service.steps == steps + len(more) and capture(service.controller, "controller") != before
        moved = service.steps
    with Journal.open(path) as journal:  # and it starts again: the refusals are not steps
        again = Service(table(), journal)
        assert again.recover() == moved


def test_a_journal_that_cannot_be_written_still_stops_the_table(tmp_path: Path) -> None:
    """The distinction: an input that cannot be encoded is refused; a journal that cannot be
    written (here SQLite's "database or disk is full": no page may be added) is fatal, as before."""
    with Journal.open(tmp_path / "journal.sqlite") as journal:
        service = Service(bt.Driver().table, journal, clock=_clock())
        service.step(bt.SHOE_UP)
        (pages,) = journal._conn.execute("PRAGMA page_count").fetchone()
        journal._conn.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(JournalError, match="full"):
            for _ in range(10_000):  # what is left of the last pages
                journal.append_meta("filler", {"x": "f" * 50})
        with pytest.raises(JournalError, match="full") as raised:
            service.step(command("shoe_loaded", decks=8, batch="B" * 5000))
        assert not isinstance(raised.value, JournalEncodingError)
        with pytest.raises(JournalError, match="full") as raised:  # nor can a refusal's own record
            service.step(command("shoe_loaded", decks=8, batch=SURROGATE + "C" * 5000))
        assert not isinstance(raised.value, JournalEncodingError)


class Echo:
    """A controller with a defect: it echoes its input's text into a decision, a surrogate and all."""

    def handle(self, event: DeviceEvent, at: float, mono_ns: int | None = None) -> list[Decision]:
        assert isinstance(event, DealerCommand)
        text = event.command.replace("!", SURROGATE)
        return [Decision("announce", {"text": text, "ratio": float("nan") if "nan" in text else 1.0})]


def test_decisions_that_cannot_be_encoded_are_journaled_escaped_and_replay_the_same(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Journal.open(path) as journal:
        service = Service(Echo(), journal, clock=_clock())
        (decided,) = service.step(DealerCommand(device="console", command="a!b nan"))
        assert decided.data == {"text": "a\\ud800b nan", "ratio": "nan"}
        service.step(DealerCommand(device="console", command="plain"))
        record = next(r for r in journal.records() if r.type == "announce")
        assert record.data == decided.data and canonical_json(record.data, "x")
    with Journal.open(path) as journal:
        assert Service(Echo(), journal).recover() == 2  # the escaped decision replays without divergence
