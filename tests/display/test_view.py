"""The display's view, built from decisions only: what it keeps and what it never shows."""

from __future__ import annotations

import json

from firmware_host.display.view import BaccaratView, PaiGowView
from firmware_host.tables.decisions import HALTED, Decision


def feed(view: BaccaratView | PaiGowView, *decisions: Decision) -> None:
    for seq, decision in enumerate(decisions, start=view.seq + 1):
        view.apply(seq, decision, at=1000.0 + seq)


def announce(what: str, round_: int | None = None, **fields: object) -> Decision:
    return Decision("announce", {"announce": what, "text": f"{what} text", **fields}, round_)


def test_a_void_round_shows_none_of_its_cards() -> None:
    view = BaccaratView("T")
    feed(
        view,
        announce("shoe", shoe=1, decks=8),
        Decision("prompt", {"action": "reveal", "text": "turn up"}, 1),
        Decision(
            "round_result",
            {
                "round": 1,
                "status": "void",
                "cards": ["9S", "2H", "KD", "5C"],
                "player": ["9S", "KD"],
                "banker": ["2H", "5C"],
                "winner": None,
            },
            1,
        ),
    )
    text = json.dumps([view.state(), view.scoreboard(), view.roads_json()])
    assert not any(card in text for card in ("9S", "2H", "KD", "5C"))
    assert view.state()["hand"]["status"] == "void" and view.results == [{"round": 1, "status": "void"}]
    assert view.roads_json()["rounds"] == 0  # the roads skip a void round


def test_a_shoe_result_shows_only_its_counts() -> None:
    view = BaccaratView("T")
    named = "impossible card: 7H is one more than 8 decks hold (§ 541.3)"
    feed(
        view,
        Decision(
            "shoe_result",
            {"shoe": 1, "rounds": 70, "composition_ok": False, "alerts": [{"code": "impossible-card", "text": named}]},
        ),
    )
    assert "7H" not in json.dumps(view.state())
    assert view.log == ["shoe 1 finished: 70 rounds"]


def test_the_hand_shows_at_the_point_count_and_completes_with_the_result() -> None:
    view = BaccaratView("T")
    feed(view, Decision("prompt", {"action": "deal", "to": "player", "card": 1, "text": "deal"}, 4))
    assert view.hand["player"] == [] and view.hand["round"] == 4
    feed(view, announce("point_counts", 4, player=["4S", "2H"], banker=["KD", "3C"], player_total=6, banker_total=3))
    assert (view.hand["player"], view.hand["banker"]) == (["4S", "2H"], ["KD", "3C"])
    feed(
        view,
        announce("outcome", 4, winner="banker", player_total=6, banker_total=7),
        Decision(
            "round_result",
            {
                "round": 4,
                "status": "completed",
                "player": ["4S", "2H"],
                "banker": ["KD", "3C", "4C"],
                "winner": "banker",
                "player_total": 6,
                "banker_total": 7,
                "natural": False,
                "player_pair": False,
                "banker_pair": False,
            },
            4,
        ),
    )
    assert view.hand["banker"] == ["KD", "3C", "4C"] and view.hand["winner"] == "banker"
    assert view.roads_json()["bead_plate"] == [["B"]]
    feed(view, Decision("prompt", {"action": "place_bets", "text": "bets", "last_hand": False, "held": 0}, 5))
    assert view.hand["player"] == [] and view.results[-1]["banker"] == ["KD", "3C", "4C"]


def test_a_third_card_shows_as_it_is_dealt_from_the_deal_prompt() -> None:
    """§ 541.10(c): the player's third card shows while the banker's is dealt, not with the result."""
    view = BaccaratView("T")
    hidden = {"action": "deal", "to": "player", "card": 1, "text": "deal", "exposed": None}
    feed(view, Decision("prompt", hidden, 4))
    assert view.hand["player"] == [] and "exposed" not in view.prompt
    feed(
        view,
        announce("point_counts", 4, player=["4S", "KH"], banker=["KD", "3C"], player_total=4, banker_total=3),
        Decision(
            "prompt",
            {
                "action": "deal",
                "to": "banker",
                "card": 3,
                "text": "deal",
                "exposed": {"player": ["4S", "KH", "2D"], "banker": ["KD", "3C"], "player_total": 6, "banker_total": 3},
            },
            4,
        ),
    )
    assert (view.hand["player"], view.hand["player_total"], view.hand["banker_total"]) == (["4S", "KH", "2D"], 6, 3)
    assert view.prompt == {"action": "deal", "to": "banker", "card": 3, "text": "deal"}


def test_prompts_keep_only_what_the_display_shows() -> None:
    view = BaccaratView("T")
    feed(view, Decision("prompt", {"action": "settle_pairs", "text": "settle", "settlement": [{"seat": 1}]}, 1))
    assert view.prompt == {"action": "settle_pairs", "text": "settle"}


def test_alerts_clear_when_the_lamp_is_green_and_warnings_with_the_round() -> None:
    view = BaccaratView("T")
    feed(
        view,
        Decision("prompt", {"action": "deal", "text": "deal"}, 1),
        Decision("alert", {"code": "card-unreadable", "text": "key it in", "severity": "attention"}, 1),
        Decision("alert", {"code": "wrong-state", "text": "no", "severity": "warning"}, 1),
        Decision("lamp", {"colour": "amber"}),
    )
    assert [a["code"] for a in view.alerts] == ["card-unreadable", "wrong-state"]
    feed(view, Decision("lamp", {"colour": "green"}))
    assert [a["code"] for a in view.alerts] == ["wrong-state"]
    feed(view, Decision("prompt", {"action": "place_bets", "text": "bets"}, 2))
    assert view.alerts == []


def test_a_halt_puts_the_banner_across_the_page_with_the_red_lamp() -> None:
    view = PaiGowView("T")
    assert view.state()["banner"] is None
    feed(
        view, Decision("lamp", {"colour": "green"}), Decision(HALTED, {"reason": "disk full", "text": "TABLE STOPPED"})
    )
    state = view.state()
    assert (state["banner"], state["lamp"], state["prompt"]) == (
        "TABLE STOPPED",
        "red",
        {"action": "wait", "text": "TABLE STOPPED"},
    )
    assert "banner" not in view.scoreboard()  # the players' board: no word of it


def test_devices_and_the_last_hand() -> None:
    view = BaccaratView("T", limits={"min": 100, "max": 1000})
    feed(
        view,
        Decision(
            "device",
            {
                "device": "shoe",
                "online": True,
                "model": "TS-8",
                "serial": "S1",
                "firmware": "2.1.1",
                "refusal": None,
                "reason": "x",
            },
        ),
        announce("last_hand", 9),
    )
    assert view.state()["devices"] == {
        "shoe": {"online": True, "model": "TS-8", "serial": "S1", "firmware": "2.1.1", "refusal": None}
    }
    assert view.scoreboard()["last_hand"] is True and view.scoreboard()["limits"] == {"min": 100, "max": 1000}


def test_pai_gow_keeps_the_round_and_the_rolls() -> None:
    view = PaiGowView("P")
    feed(
        view,
        announce("new_dice", registered_at=10.0, expires_at=86410.0),
        announce("bank_offer", 2, order=[3, 1]),
        announce("bank", 2, seat=3, co_bank=True),
        announce("total", 2, dice=[6, 1, 4], total=11, start="2"),
        announce("house_way", 2, setting="6-6,4-4/1-5,3-4"),
        announce("results", 2, results=[{"position": 1, "outcome": "win"}]),
        Decision(
            "round_result",
            {
                "round": 2,
                "status": "completed",
                "dice": [6, 1, 4],
                "total": 11,
                "start": "2",
                "bank_seat": 3,
                "plan": [],
                "settlement": {},
            },
            2,
        ),
    )
    state = view.state()
    assert state["dice_clock"] == {"registered_at": 10.0, "expires_at": 86410.0}
    assert (
        state["current"]["bank"] == {"seat": 3, "co_bank": True} and state["current"]["house_way"] == "6-6,4-4/1-5,3-4"
    )
    assert view.scoreboard()["rolls"] == [
        {"round": 2, "status": "completed", "dice": [6, 1, 4], "total": 11, "start": "2", "bank_seat": 3}
    ]
    feed(view, Decision("prompt", {"action": "offer_bank", "order": [1, 2], "text": "offer"}, 3))
    assert view.state()["current"]["bank"] is None and view.prompt["order"] == [1, 2]


def test_an_unsynchronised_clock_stays_marked_until_it_is_synchronised() -> None:
    view = BaccaratView("T1")
    assert view.state()["synchronised"] is None
    feed(
        view,
        Decision("clock", {"boot": "b", "synced": False, "restarted": False}),
        Decision("lamp", {"colour": "green"}),
    )
    assert view.state()["synchronised"] is False  # a green lamp clears alerts, not the mark
    feed(view, Decision("clock", {"boot": "b", "synced": True, "restarted": False}))
    assert view.state()["synchronised"] is True


def test_the_roads_are_worked_out_once_a_hand_and_follow_each_hand_and_shoe() -> None:
    # The roads were worked out from every hand of the shoe twice at every step (the scoreboard's
    # and /api/roads'), whether a hand had been added or not.
    view = BaccaratView("T")
    worked = 0
    real = view.roads.roads

    def counted() -> object:
        nonlocal worked
        worked += 1
        return real()

    view.roads.roads = counted  # type: ignore[method-assign]
    completed = {"round": 1, "status": "completed", "player": ["9S"], "banker": ["2H"], "winner": "player"}
    feed(view, Decision("round_result", completed, 1))
    first = view.roads_json()
    for _ in range(3):
        view.scoreboard()
        view.roads_json()
    assert worked == 1 and first["rounds"] == 1
    feed(view, Decision("round_result", {**completed, "round": 2, "winner": "banker"}, 2))
    assert view.roads_json()["rounds"] == 2 and worked == 2
    feed(view, announce("shoe", shoe=2, decks=8))
    assert view.roads_json() == {**view.roads_json(), "shoe": 2, "rounds": 0}
