"""Issue 20 item 3: a dealer command never kills a table, whatever it holds.

Every ``DealerCommand`` is checked where it enters the controller (``TAKES`` of each game,
:mod:`firmware_host.tables.arguments`). A property test sends arbitrary commands and arguments
to both games' controllers in every state they reach (driven there by the tests' own drivers):
no exception escapes, a command refused is a journaled ``refused`` decision with its reason,
refused leaves the round as it was, and every decision stays small whatever was sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.events.dice import DiceRead
from drivers.events.lifecycle import DeviceLost
from drivers.events.shoe import CardUnreadable
from firmware_host.errors import RulesError
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import canonical_json
from firmware_host.host.service import Service
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.shuffler import ShufflerConfig
from firmware_host.tables import paigow
from firmware_host.tables.arguments import check_command
from firmware_host.tables.baccarat.controller import TAKES as BACCARAT_TAKES
from firmware_host.tables.base import REASON_LONGEST
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockTick, DealerCommand
from firmware_host.tables.paigow.commands import TAKES as PAIGOW_TAKES
from firmware_host.tables.state_tree import capture
from tests.support.table_driver import TableDriver, command
from tests.tables.baccarat import table as bt
from tests.tables.baccarat.shuffler_table import ShufflerDriver
from tests.tables.paigow import table as pt
from tests.tables.paigow.table import after_first_round, to_bank_offer

#: The biggest decision (as JSON) a hostile command may cause: refusals quote values bounded.
DECISION_LONGEST = 2_000


# -- every state of each game, as the tests' drivers reach it ------------------------------------
def _baccarat(**options: Any) -> bt.Driver:
    return bt.Driver(**options)


def _dealing(driver: bt.Driver, first: str = "9S 2H") -> bt.Driver:
    driver.start()
    driver.feed(bt.wager(2, "player", 1000), command("no_more_bets"), bt.cards(first))
    return driver


def _revealing() -> bt.Driver:
    driver = _baccarat(initial_cards_face_down=True)
    driver.start()
    driver.feed(bt.wager(2, "player", 1000), command("no_more_bets"), bt.cards("9S 2H KD 5C"))
    return driver


def _settling_pairs() -> bt.Driver:
    driver = _baccarat(rules=RulesSubmission(variant=Variant.COMMISSION_FREE))
    driver.start()
    driver.feed(bt.wager(2, "player_pair", 100), command("no_more_bets"), bt.cards("2S 3H 2D 4C"))
    return driver


def _awaiting_entry() -> bt.Driver:
    driver = _dealing(_baccarat(), "9S")
    driver.feed(CardUnreadable(device="shoe"))
    return driver


def _paused_baccarat() -> bt.Driver:
    driver = _dealing(_baccarat())
    driver.feed(DeviceLost(device="shoe", reason="unplugged"))
    return driver


def _reading_out() -> ShufflerDriver:
    driver = ShufflerDriver(ShufflerConfig(decks_per_batch=6, idle_after_s=300))
    driver.open()
    driver.feed(command("shoe_loaded", batch="A"), bt.cards("AH 2C", burn=True))
    driver.feed(ClockTick(device="clock"), gap=301)
    return driver


BACCARAT_STATES: dict[str, Callable[[], TableDriver[Any]]] = {
    "awaiting_shoe": lambda: _baccarat(),
    "burning": lambda: _burning(),
    "betting": lambda: _started(),
    "dealing": lambda: _dealing(_baccarat()),
    "revealing": _revealing,
    "settling_pairs": _settling_pairs,
    "awaiting entry": _awaiting_entry,
    "paused": _paused_baccarat,
    "reading_out": _reading_out,
}


def _burning() -> bt.Driver:
    driver = _baccarat()
    driver.feed(bt.SHOE_UP, command("shoe_loaded"))
    return driver


def _started() -> bt.Driver:
    driver = _baccarat()
    driver.start()
    return driver


def _paigow(rules: Any = None) -> pt.Driver:
    driver = pt.Driver(rules)
    driver.open()
    return driver


def _shaking() -> pt.Driver:
    driver = _paigow()
    driver.feed(pt.wager(3), command("no_more_bets"))
    return driver


def _reading() -> pt.Driver:
    driver = _shaking()
    driver.feed(pt.shakes(3), pt.lid(True))
    return driver


def _delivering() -> pt.Driver:
    driver = _reading()
    driver.feed(pt.reading(3, 5, 1))
    return driver


def _closing() -> pt.Driver:
    driver = _delivering()
    driver.feed(command("delivered"))
    return driver


def _hands() -> pt.Driver:
    driver = _delivering()
    driver.deal_and_close()
    return driver


def _bank() -> pt.Driver:
    driver = after_first_round()
    to_bank_offer(driver)
    return driver


def _paused_paigow() -> pt.Driver:
    driver = _shaking()
    driver.feed(DeviceLost(device="shaker", reason="unplugged"))
    return driver


PAIGOW_STATES: dict[str, Callable[[], TableDriver[Any]]] = {
    "betting": _paigow,
    "bank": _bank,
    "shaking": _shaking,
    "reading": _reading,
    "delivering": _delivering,
    "closing": _closing,
    "hands": _hands,
    "paused": _paused_paigow,
}


def test_the_drivers_reach_every_state_of_both_machines() -> None:
    reached = {name: make().table.state for name, make in {**BACCARAT_STATES, **PAIGOW_STATES}.items()}
    assert {reached[n] for n in BACCARAT_STATES} >= {
        "awaiting_shoe",
        "burning",
        "betting",
        "dealing",
        "revealing",
        "settling_pairs",
        "reading_out",
    }
    assert {reached[n] for n in PAIGOW_STATES} == {
        "betting",
        "bank",
        "shaking",
        "reading",
        "delivering",
        "closing",
        "hands",
    }
    assert _awaiting_entry().table.irregular.awaiting is not None
    assert _paused_baccarat().table.paused and _paused_paigow().table.paused


# -- arbitrary commands ------------------------------------------------------------------------
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**300, max_value=10**320)
    | st.floats(allow_nan=True)
    | st.text(max_size=12)
    | st.sampled_from(["9" * 5000, "A" * 100_000, "10D", "5-5,1-5/2-2,3-4", "6-6"])
)
_KEYS = st.text(max_size=6) | st.sampled_from(["3", " 3 ", "9" * 5000, "٣"])
_JSON = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(_KEYS, inner, max_size=6), max_leaves=12
)


def _commands(takes: dict[str, dict[str, Any]]) -> st.SearchStrategy[DealerCommand]:
    names = sorted({name for args in takes.values() for name in args})
    keys = st.sampled_from(names) | st.text(max_size=8) | st.just("9" * 5000)
    args = st.none() | _JSON | st.dictionaries(keys, _JSON, max_size=5)
    command_names = st.sampled_from(sorted(takes)) | st.text(max_size=40) | st.just("x" * 100_000) | st.integers()
    return st.builds(lambda name, a: DealerCommand(device="console", command=name, args=a), command_names, args)


def _refused_by_check(event: DealerCommand, takes: dict[str, dict[str, Any]]) -> bool:
    try:
        check_command(event.command, event.args, takes)
    except RulesError:
        return True
    return False


def _the_round(table: Any) -> Any:
    return capture(table.round, "round"), table.state, table.rounds_finished


def _check_hostile(driver: TableDriver[Any], event: DealerCommand, takes: dict[str, dict[str, Any]]) -> None:
    before = _the_round(driver.table)
    decided = driver.feed(event)  # no exception escapes
    refused = driver.of("refused", decided)
    for decision in decided:
        assert len(canonical_json(decision.data, decision.type)) <= DECISION_LONGEST, decision
    if _refused_by_check(event, takes):
        assert len(refused) == 1, decided
    if refused:
        (why,) = refused
        assert why["input"] == "DealerCommand" and why["code"] and 0 < len(why["reason"]) <= REASON_LONGEST
        # The checks refuse hostile input by name; the catch-all (command-failed) is for bugs only.
        assert why["code"] != "command-failed", why
        assert why["code"] in driver.alerts(decided)  # the dealer sees it too
        assert _the_round(driver.table) == before, "a refused command changed the round"
        assert not driver.of("round_result", decided)


_SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(state=st.sampled_from(sorted(BACCARAT_STATES)), event=_commands(BACCARAT_TAKES))
def test_any_command_at_a_baccarat_table_in_any_state_is_applied_or_refused_never_fatal(
    state: str, event: DealerCommand
) -> None:
    _check_hostile(BACCARAT_STATES[state](), event, BACCARAT_TAKES)


@_SETTINGS
@given(state=st.sampled_from(sorted(PAIGOW_STATES)), event=_commands(PAIGOW_TAKES))
def test_any_command_at_a_paigow_table_in_any_state_is_applied_or_refused_never_fatal(
    state: str, event: DealerCommand
) -> None:
    _check_hostile(PAIGOW_STATES[state](), event, PAIGOW_TAKES)


# -- the regressions ---------------------------------------------------------------------------
def test_a_tiles_hands_key_of_5000_digits_is_refused_and_the_round_waits() -> None:
    """It passed ``isdecimal()``, then ``int()`` raised and the service exited with a traceback."""
    driver = _hands()
    decided = driver.feed(command("tiles", dealer=["6-6", "4-5", "1-3", "2-2"], hands={"3" * 5000: "surrender"}))
    (refused,) = driver.of("refused", decided)
    assert refused["command"] == "tiles" and refused["code"] == "refused-input"
    assert "hands key" in refused["reason"] and len(refused["reason"]) < 200
    assert driver.table.state == "hands"
    driver.feed(command("round_complete"))
    assert driver.results()[-1]["status"] == "completed"


def test_the_5000_digit_key_is_refused_by_the_tiles_entry_itself_too() -> None:
    from firmware_host.tables.paigow.rules import PaiGowTableRules
    from firmware_host.tables.paigow.tiles_entry import settle_entered_tiles

    with pytest.raises(RulesError, match="hands position"):
        settle_entered_tiles(
            {"dealer": ["6-6", "4-5", "1-3", "2-2"], "hands": {"3" * 5000: "surrender"}},
            {3: 1000},
            PaiGowTableRules().tiles,
        )


@pytest.mark.parametrize("card", ["A" * 1_000_000, "10DX10", "9S" * 3])
def test_a_card_entered_longer_than_a_card_is_refused_and_never_journaled_whole(card: str) -> None:
    driver = _awaiting_entry()
    decided = driver.feed(command("card_entered", card=card))
    (refused,) = driver.of("refused", decided)
    assert "card_entered card" in refused["reason"] and "longer than 5 characters" in refused["reason"]
    assert max(len(json.dumps(d.data)) for d in decided) < 1_000
    assert driver.table.irregular.awaiting is not None  # still waiting for the card
    driver.feed(command("card_entered", card=" 10d "))
    assert driver.table.irregular.awaiting is None


@pytest.mark.parametrize("game", ["baccarat", "paigow"])
def test_an_unknown_argument_or_a_non_object_is_refused_by_name(game: str) -> None:
    driver: TableDriver[Any] = _started() if game == "baccarat" else _paigow()
    decided = driver.feed(DealerCommand(device="console", command="void_round", args=["x"]))  # type: ignore[arg-type]
    assert "arguments must be a JSON object, not a list of 1 items" in driver.of("refused", decided)[0]["reason"]
    decided = driver.feed(command("void_round", why="no"))
    assert "unknown argument 'why'" in driver.of("refused", decided)[0]["reason"]


def _exploding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Pai Gow ``new_dice`` handler with a bug: it raises after deciding something."""

    def new_dice(self: Any, args: Any) -> None:
        self.table.announce("dice", "half done")
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(paigow.dice_set.DiceSet, "new_dice", new_dice)


def test_an_unexpected_exception_in_a_command_is_refused_never_fatal_and_replays_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _exploding(monkeypatch)
    path = tmp_path / "journal.sqlite"
    with Journal.open(path) as journal:
        live = Service(pt.Driver().table, journal, clock=iter(range(100, 200)).__next__)
        live.step(pt.SHAKER_UP)
        decided = live.step(DealerCommand(device="console", command="new_dice"))
        live.step(pt.wager(3))
    refused = [d for d in decided if d.type == "refused"]
    assert [d.data["code"] for d in refused] == ["command-failed"]
    assert "ZeroDivisionError" in refused[0].data["reason"] and "its decisions dropped" in refused[0].data["reason"]
    assert not [d for d in decided if d.type == "announce"], "the handler's half-made decisions are dropped"
    with Journal.open(path) as journal:  # replay reproduces the refusal bit for bit
        again = Service(pt.Driver().table, journal)
        assert again.recover() == 3


def test_an_unexpected_exception_from_a_device_event_is_still_a_bug_that_stops_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only console inputs are refused on any exception: a device event's failure is the code's."""

    def read(self: Any, event: Any) -> None:
        raise ZeroDivisionError("a bug")

    driver = _reading()
    table = driver.table
    table._registered[DiceRead] = lambda event: read(None, event)
    with pytest.raises(ZeroDivisionError):
        table.handle(pt.reading(3, 5, 1), 1e6)


def test_refused_decisions_carry_the_round_and_are_journal_ready() -> None:
    driver = _shaking()
    decided = driver.feed(command("bank", seat=True))
    (refused,) = [d for d in decided if d.type == "refused"]
    assert isinstance(refused, Decision) and refused.round == driver.table.current_round
    assert json.loads(canonical_json(refused.data, "refused")) == refused.data
