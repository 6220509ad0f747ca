"""``tablehost baccarat roads [--json]`` (issue 14): input forms, void rounds, bad lines, the drawing."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from firmware_host.cli import main

KEYS = ["rounds", "bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig", "next", "counts"]


def roads(
    argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(["baccarat", "roads", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_words_and_json_lines_make_one_shoe(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    export = json.dumps(
        {
            "round": 3,
            "status": "completed",
            "winner": "player",
            "player_pair": True,
            "banker_pair": False,
            "natural": False,
        }
    )
    void = json.dumps({"round": 4, "status": "void", "winner": None})
    status, out, err = roads(["--json"], f"banker\n\nTIE\n{export}\n{void}\nplayer\n", monkeypatch, capsys)
    assert (status, err) == (0, "")
    shoe = json.loads(out)
    assert list(shoe) == KEYS
    assert shoe["rounds"] == 4
    assert shoe["bead_plate"] == [["B", "T", "P", "P"]]
    assert shoe["big_road"] == [
        [{"winner": "banker", "ties": 1, "player_pair": False, "banker_pair": False}],
        [
            {"winner": "player", "ties": 0, "player_pair": True, "banker_pair": False},
            {"winner": "player", "ties": 0, "player_pair": False, "banker_pair": False},
        ],
    ]
    assert shoe["big_eye_boy"] == [["blue"]]
    assert shoe["next"]["banker"] == {"big_eye_boy": "blue", "small_road": None, "cockroach_pig": None}


def test_a_bad_line_is_named_and_the_rest_still_count(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = roads(["--json"], 'banker\ndragon\n{"winner": "nobody"}\n[1]\nplayer\n', monkeypatch, capsys)
    assert status == 1
    assert json.loads(out)["rounds"] == 2
    assert "line 2: not JSON and not one of banker, player, tie: 'dragon'" in err
    assert "line 3: winner 'nobody'" in err
    assert "line 4: a JSON round is an object" in err


def test_the_drawing_shows_a_dragon_tail(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = roads([], "banker\n" * 8 + "player\n", monkeypatch, capsys)
    assert status == 0
    rows = out.split("big road\n")[1].split("\n\n")[0].splitlines()
    assert rows[0] == "B P ."
    assert rows[5] == "B B B"  # the seventh and eighth banker wins turn right along the bottom
    assert "if banker next: big eye boy blue" in out


def test_resolve_pipes_into_roads() -> None:
    resolved = subprocess.run(
        [sys.executable, "-m", "firmware_host", "baccarat", "resolve"],
        input="9S 2H KD 5C 3D\n2S 3H AD 2C 6S 7H\n",
        capture_output=True,
        text=True,
        check=True,
    )
    drawn = subprocess.run(
        [sys.executable, "-m", "firmware_host", "baccarat", "roads", "--json"],
        input=resolved.stdout,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(drawn.stdout)["rounds"] == 2
