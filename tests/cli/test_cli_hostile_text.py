"""Issue 29, the smaller faults: what tablehost prints never carries a raw control character,
and a malformed record in a journal or on the floor is named, never a traceback.

- a supervisor's void reason put raw ESC, OSC and BEL bytes on ``tablehost run``'s console
  (:class:`~firmware_host.host.outputs.DealerView`); U+009B (CSI) and U+202E (RLO) appeared raw
  in ``journal export`` and ``floor export``: every printer goes through one escaper
  (:func:`firmware_host.text.escaped`), and what it prints is the same JSON value;
- ``journal export --rounds`` and ``journal report`` printed a traceback on a ``round_result``
  whose data is a list (``host/figures.py``): it is named as MALFORMED, exit 1, the rest printed.
"""

from __future__ import annotations

import io
import json
import pathlib
import re

import pytest

from firmware_host.cli import main
from firmware_host.feed import schema
from firmware_host.feed.schema import FeedState
from firmware_host.host.journal import Journal
from firmware_host.host.outputs import DealerView
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand
from tests.floor.dashboard.support import store_messages
from tests.support.feed_records import RECORDS
from tests.support.journal_forge import execute

#: What a hostile reason holds: ESC (a colour, a clear screen), OSC (a window title) ended by BEL,
#: the 8-bit CSI, a right-to-left override, a line separator.
HOSTILE = "void \x1b[31m\x1b]0;owned\x07\x1b[2J \u009b2J \u202eesrever\u2028next"
#: No raw C0 (but the line's own newline), DEL, C1, bidi control or line separator in printed text.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _hostile_journal(path: pathlib.Path) -> None:
    """A journal an earlier version wrote (before the text policy refused such reasons at entry)."""
    with Journal.open(path) as journal:
        journal.append_step(
            1000.0,
            DealerCommand("display:supervisor", "void_round", {"reason": HOSTILE}),
            [
                Decision("alert", {"code": "void", "text": HOSTILE, "severity": "attention"}, 1),
                Decision("round_result", {"round": 1, "status": "void", "reason": HOSTILE, "shoe": 1}, 1),
                Decision("shoe_result", {"shoe": 1, "rounds": 1, "note": HOSTILE}, None),
            ],
        )


def test_the_run_console_never_prints_a_raw_control_character() -> None:
    out = io.StringIO()
    DealerView(out, "T1").on_decisions(
        [Decision("alert", {"code": "void", "text": HOSTILE, "severity": "attention"}, 1)]
    )
    printed = out.getvalue()
    assert not RAW.search(printed) and printed.count("\n") == 1
    assert "\\u001b]0;owned\\u0007" in printed and "\\u009b2J" in printed and "\\u202eesrever" in printed


@pytest.mark.parametrize("what", ["--rounds", "--shoes"])
def test_journal_export_escapes_and_prints_the_same_json(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    _hostile_journal(tmp_path / "j.sqlite")
    assert main(["journal", "export", str(tmp_path / "j.sqlite"), what]) == 0
    out = capsys.readouterr().out
    assert not RAW.search(out) and out.count("\n") == 1
    (line,) = out.splitlines()
    assert HOSTILE in json.loads(line).values()  # the same value: escaped as JSON escapes


def test_journal_report_escapes_a_shoe_that_is_text(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        journal.append_step(
            1000.0,
            DealerCommand("console", "x"),
            [
                Decision(
                    "round_result", {"round": 1, "status": "completed", "shoe": "\x1b[2J\u202e", "settlement": []}, 1
                )
            ],
        )
    assert main(["journal", "report", str(tmp_path / "j.sqlite")]) == 0
    out = capsys.readouterr().out
    assert not RAW.search(out) and "\\u001b[2J\\u202e" in out


def _with_a_list(path: pathlib.Path) -> None:
    """A journal whose second round_result's data is a list (written round the Journal API, as an
    unkeyed journal's chain can be recomputed by whoever can write the file)."""
    with Journal.open(path) as journal:
        for number in (1, 2, 3):
            journal.append_step(
                1000.0 + number,
                DealerCommand("console", "x"),
                [Decision("round_result", {"round": number, "status": "void", "shoe": 1}, number)],
            )
    execute(path, "UPDATE records SET data = '[1,2]' WHERE type = 'round_result' AND round = 2")


@pytest.mark.parametrize(
    "argv",
    [["export", "--rounds"], ["export", "--shoes"], ["report"], ["report", "--json"], ["report", "--by", "seat"]],
)
def test_a_round_result_whose_data_is_a_list_is_named_not_a_traceback(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    _with_a_list(tmp_path / "j.sqlite")
    assert main(["journal", argv[0], str(tmp_path / "j.sqlite"), *argv[1:]]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    (named,) = captured.err.splitlines()
    assert re.fullmatch(
        r"tablehost journal \w+: MALFORMED record \d+ \(round_result\): TypeError: data is a list.*", named
    )
    if argv == ["export", "--rounds"]:
        assert [json.loads(line)["round"] for line in captured.out.splitlines()] == [1, 3]  # the rest printed
    if argv == ["report"]:
        assert re.search(r"^1\s+2\s", captured.out, re.M)  # shoe 1: the two readable rounds


def _feed(table: str, records: list, data: dict) -> list[dict]:
    """A table's feed of ``records`` with ``data`` merged into its round_result (re-chained)."""
    messages = [m for m, _ in schema.derive(table, records, FeedState())]
    state, chained = FeedState(), []
    for message in messages:
        body = {k: v for k, v in message.items() if k != "hash"}
        if body["type"] == "round_result":
            body["data"] = {**body["data"], **data}
        body["prev_hash"] = state.hash
        sealed = schema.seal(body)
        state = FeedState(sealed["seq"], sealed["journal_seq"], sealed["hash"])
        chained.append(sealed)
    return chained


def test_floor_export_escapes_and_names_what_it_cannot_read(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, _feed("BAC-01", RECORDS, {"note": HOSTILE}) + _feed("BAC-02", RECORDS, {"settlement": [7]}))
    assert main(["floor", "export", "--db", str(db), "--table", "BAC-01", "--rounds"]) == 0
    out = capsys.readouterr().out
    assert out and not RAW.search(out) and "\\u202eesrever" in out
    assert json.loads(out.splitlines()[0])["note"] == HOSTILE
    assert main(["floor", "export", "--db", str(db), "--table", "BAC-02", "--rounds"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "UNREADABLE record" in captured.err and "(round_result)" in captured.err
