"""``tablehost paigow hand`` / ``compare`` without ``--tiles`` / ``--player``: one case per stdin line."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from firmware_host.cli import main

#: Four-tile lines and the house way's step for each (§ 535.10(d)).
HANDS = {"6-6,4-5,1-3,2-2": "pair_wong_gong", "5-4,6-6,2-2,1-3": "pair_wong_gong"}
DEALER = "5-6,2-6/5-5,1-5"


def run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: str, *argv: str
) -> tuple[int, list[dict], list[str]]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(["paigow", *argv])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err.splitlines()


def test_535_10_d_hand_answers_each_line_as_hand_json(monkeypatch, capsys):
    status, answers, errors = run(monkeypatch, capsys, "".join(f"{line}\n" for line in HANDS), "hand")
    assert (status, errors) == (0, [])
    assert [a["house_way"]["step"] for a in answers] == list(HANDS.values())
    for line, answer in zip(HANDS, answers):
        assert main(["paigow", "hand", "--tiles", line, "--json"]) == 0
        assert answer == json.loads(capsys.readouterr().out)  # the same object as --json


def test_535_10_d_hand_names_a_bad_line_and_answers_the_others(monkeypatch, capsys):
    stdin = "6-6,4-5,1-3,2-2\n6-6,4-5,1-3\n\n4-5,4-5,1-3,2-2\n5-4,6-6,2-2,1-3\n"
    status, answers, errors = run(monkeypatch, capsys, stdin, "hand", "--json")
    assert status == 1
    assert [a["tiles"] for a in answers] == [["6-6", "4-5", "1-3", "2-2"], ["4-5", "6-6", "2-2", "1-3"]]
    assert errors == [
        "tablehost paigow hand: line 2: tiles '6-6,4-5,1-3': expected 4 tiles, got 3",
        "tablehost paigow hand: line 4: tile 4-5 appears 2 times; a set holds 1 (§ 535.4(f))",
    ]


def test_535_10_j_compare_lines_of_player_and_dealer(monkeypatch, capsys):
    stdin = f"6-6,4-5/1-3,2-2 {DEALER}\n6-6,4-5/1-3,2-2 6-6,3-6/5-5,1-5\n"
    status, answers, errors = run(monkeypatch, capsys, stdin, "compare")
    assert (status, errors) == (0, [])
    assert [(a["result"], a["section"]) for a in answers] == [("win", "535.10(j)"), ("tie", "535.10(h)(2)")]
    assert main(["paigow", "compare", "--player", "6-6,4-5/1-3,2-2", "--dealer", DEALER, "--json"]) == 0
    assert answers[0] == json.loads(capsys.readouterr().out)


def test_535_10_j_compare_lines_of_players_against_one_dealer(monkeypatch, capsys):
    stdin = "6-6,4-5/1-3,2-2\n1-3,2-2/6-6,4-5\n6-6,4-5/1-3,2-2 extra\n4-5,6-6/2-2,1-3\n"
    status, answers, errors = run(monkeypatch, capsys, stdin, "compare", "--dealer", "5-5,1-5/2-2,3-4")
    assert status == 1
    assert [a["result"] for a in answers] == ["win", "win"]
    assert [a["low"]["dealer"]["tiles"] for a in answers] == [["2-2", "3-4"]] * 2
    assert len(errors) == 2
    assert errors[0].startswith("tablehost paigow compare: line 2: player: setting 1-3,2-2/6-6,4-5: the high hand")
    assert errors[1] == (
        "tablehost paigow compare: line 3: expected the player's hands H/L, e.g. 6-6,4-5/1-3,2-2,"
        " got '6-6,4-5/1-3,2-2 extra'"
    )


def test_535_10_f_compare_line_naming_which_hands_are_wrong(monkeypatch, capsys):
    stdin = f"6-6,4-5/1-3,2-2 {DEALER}\n6-6,4-5/1-3,2-2 6-6,6-6/5-5,1-5\nfoo\n6-6,4-5/1-3,2-2 5-6\n"
    status, answers, errors = run(monkeypatch, capsys, stdin, "compare")
    assert (status, len(answers)) == (1, 1)
    assert [e.split(": ")[1:3] for e in errors] == [
        ["line 2", "player/dealer"],
        ["line 3", "expected the player's and the dealer's hands H/L, e.g. 6-6,4-5/1-3,2-2 5-5,1-5/2-2,3-4, got 'foo'"],
        ["line 4", "dealer"],
    ]


def test_535_10_f_a_bad_dealer_option_is_refused_before_any_line(monkeypatch, capsys):
    status, answers, errors = run(monkeypatch, capsys, "6-6,4-5/1-3,2-2\n", "compare", "--dealer", "5-5")
    assert (status, answers) == (2, [])
    assert errors == ["tablehost: --dealer: setting '5-5': expected HIGH/LOW like 6-6,4-5/1-3,2-2"]


def test_535_10_f_player_without_dealer_is_a_clear_error(monkeypatch, capsys):
    status, answers, errors = run(monkeypatch, capsys, "", "compare", "--player", "6-6,4-5/1-3,2-2")
    assert (status, answers) == (2, [])
    assert errors == ["tablehost: --dealer H/L is required with --player (without --player: one case per stdin line)"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("argv", "lines", "key"),
    [
        (["hand"], ["6-6,4-5,1-3,2-2", "6-6,4-5,1-3"], "tiles"),
        (["compare", "--dealer", DEALER], ["6-6,4-5/1-3,2-2", "2-2,1-3/4-5,6-6"], "result"),
    ],
)
def test_535_10_each_answer_comes_before_the_next_line_and_a_bad_line_sets_the_status(argv, lines, key):
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware_host", "paigow", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin and process.stdout and process.stderr
    try:
        process.stdin.write(lines[0] + "\n")
        process.stdin.flush()
        assert key in json.loads(process.stdout.readline())  # answered while stdin is still open
        process.stdin.write(lines[1] + "\n")
        process.stdin.close()
        assert process.wait(timeout=30) == 1
        assert process.stdout.read() == ""
        assert process.stderr.read().startswith(f"tablehost paigow {argv[0]}: line 2: ")
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
        process.stderr.close()
