"""Outputs: the dealer's line view, the lamp panel, the JSON event feed and the shuffler's commands."""

from __future__ import annotations

import io
import json

from firmware_host.host.outputs import DealerView, EventFeed, PanelOutput, ShufflerCommands
from firmware_host.tables.decisions import HALTED, Decision
from tests.support.fake_drivers import RecordingShuffler

ROUND = Decision(
    "round_result",
    {
        "round": 4,
        "game": "baccarat",
        "status": "completed",
        "player": ["9S", "KD"],
        "banker": ["2H", "5C"],
        "player_total": 9,
        "banker_total": 7,
        "winner": "player",
    },
    4,
)


def test_dealer_view_names_table_and_round_and_summarises_the_outcome() -> None:
    out = io.StringIO()
    DealerView(out, "BAC-7").on_decisions(
        [ROUND, Decision("alert", {"text": "card face up", "severity": "attention"}, 4)]
    )
    assert out.getvalue().splitlines() == [
        "[BAC-7 r4] round 4: player 9S KD = 9, banker 2H 5C = 7: PLAYER",
        "[BAC-7 r4] ATTENTION: card face up",
    ]


def test_dealer_view_can_leave_out_routine_prompts() -> None:
    out = io.StringIO()
    DealerView(out, "T", quiet_prompts=True).on_decisions([Decision("prompt", {"text": "deal player"}, 1)])
    assert out.getvalue() == ""


class FakePanel:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def show(self, colour: str) -> None:
        self.calls.append(colour)

    def buzz(self) -> None:
        self.calls.append("buzz")

    def alarm(self) -> None:
        self.calls.append("alarm")


def test_panel_follows_lamp_and_buzzes_on_faults_only() -> None:
    panel = FakePanel()
    PanelOutput(panel).on_decisions(
        [
            Decision("lamp", {"colour": "red"}),
            Decision("alert", {"text": "x", "severity": "warning"}),
            Decision("alert", {"text": "y", "severity": "fault"}),
        ]
    )
    assert panel.calls == ["red", "buzz"]


def test_a_halt_lights_red_holds_the_buzzer_and_is_said_to_the_dealer() -> None:
    halted = Decision(HALTED, {"reason": "disk full", "text": "TABLE STOPPED: the journal cannot be written"})
    panel, out = FakePanel(), io.StringIO()
    PanelOutput(panel).on_decisions([halted])
    DealerView(out, "T", quiet_prompts=True).on_decisions([halted])
    assert panel.calls == ["red", "alarm"]
    assert out.getvalue() == "[T] TABLE STOPPED: the journal cannot be written\n"


def test_event_feed_writes_one_json_object_per_decision() -> None:
    out = io.StringIO()
    EventFeed(out, "T").on_decisions([ROUND, Decision("lamp", {"colour": "green"})])
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["type"] for line in lines] == ["round_result", "lamp"]
    assert lines[0]["table"] == "T" and lines[0]["round"] == 4


# -- the output that carries device commands to the driver ---------------------------------------


def test_device_commands_are_sent_to_their_shuffler_only() -> None:
    driver = RecordingShuffler()
    ShufflerCommands("shuffler", driver).on_decisions([
        Decision("device_command", {"device": "shuffler", "command": "start_shuffle", "batch": "B", "expected_cards": 416}),
        Decision("device_command", {"device": "other", "command": "release_batch", "batch": "A"}),
        Decision("prompt", {"action": "wait"}),
        Decision("device_command", {"device": "shuffler", "command": "release_batch", "batch": "A"}),
        Decision("device_command", {"device": "shuffler", "command": "self_destruct", "batch": "A"}),
    ])  # fmt: skip
    assert driver.calls == [("start_shuffle", ("B", 416)), ("release_batch", ("A",))]


# A garbled ASCII frame the codec could not read still spells a card (§ 541.9(c)(2): a face-down card
# must not reach any output before it is exposed); only the journal keeps what the device sent.
GARBLED = Decision("alert", {"code": "protocol-error", "severity": "warning",
                             "text": "shoe: unknown frame '[Game]<Card:AS>~'"}, 3)  # fmt: skip


def test_541_9_c_2_dealer_view_and_event_feed_withhold_the_bytes_of_an_unreadable_frame() -> None:
    view, feed = io.StringIO(), io.StringIO()
    DealerView(view, "T").on_decisions([GARBLED])
    EventFeed(feed, "T").on_decisions([GARBLED])
    assert "AS" not in view.getvalue() and "Card" not in view.getvalue()
    assert "WARNING: the device sent bytes that could not be read" in view.getvalue()
    record = json.loads(feed.getvalue())
    assert record["data"]["code"] == "protocol-error" and "Card" not in record["data"]["text"]
    assert GARBLED.data["text"].endswith("<Card:AS>~'")  # the decision itself, as journaled, is unchanged
