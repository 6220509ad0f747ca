"""The display's view of a table, built only from the decisions stream (never from the controller).

:class:`TableView` takes journaled decisions one at a time (:meth:`TableView.apply`) and keeps
what the dealer display and the scoreboard show. Nothing early (issue 14 item 5): only fields
named here or in :mod:`.face` (whose filter keeps only them in the web face's face file) are ever
copied out of a decision, and the only cards it keeps are those the
controller announces as exposed at the table — the burn card shown (§ 541.5(g)), the hands as
a ``deal`` prompt says they lie face up (each card as it is placed face up, § 541.9(c)(1), and
each third card, § 541.10(c)), the hands at their point count (§ 541.10(a), after the reveal
of a § 541.9(c)(2) face-down deal), and a completed round's cards (every card of it has been
turned up by then). A void round shows no card (its ``round_result`` may list cards still
face down), a ``shoe_result`` only its counts (its alerts may name a card discarded unseen),
and the scoreboard a round only once its outcome is announced. Game protection's ``odds``
and advantage alerts (docs/protection.md) are for surveillance: no page shows them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from firmware_host.display.face import (
    BACCARAT_PROMPT_FIELDS,
    DEVICE_FIELDS,
    EXPOSED_FIELDS,
    PAIGOW_PROMPT_FIELDS,
    PROMPT_FIELDS,
)
from firmware_host.rules.baccarat.roads import Outcome, RoadBuilder
from firmware_host.tables.decisions import Decision, for_outputs, for_surveillance_only
from firmware_host.tables.round_record import BACCARAT, PAIGOW

__all__ = ["TableView", "BaccaratView", "PaiGowView", "view_for"]

#: Alerts kept on the dealer display (the newest), and announcements in its log.
MAX_ALERTS = 6
MAX_LOG = 8
#: Results kept for the Pai Gow scoreboard and the dealer's recent rounds.
MAX_RESULTS = 12


class TableView:
    """What any table's display shows: prompt, lamp, devices, alerts, announcements, round.

    :param table_id: the table's id.
    :param limits: the table limits from the profile (``{"min", "max"}`` in cents), or None.
    :param clock: wall time for decisions applied live (a journal record brings its own).
    """

    game = "table"

    def __init__(
        self, table_id: str, limits: dict[str, int] | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self.table_id, self.limits, self.clock = table_id, limits, clock
        self.seq = 0
        self.round: int | None = None
        self.prompt: dict[str, Any] = {"action": "wait", "text": "waiting for the table"}
        self.lamp = "green"
        self.devices: dict[str, dict[str, Any]] = {}
        self.alerts: list[dict[str, Any]] = []
        self.log: list[str] = []
        #: Across the top of the dealer's page: the table stopped (its journal cannot be written).
        self.banner: str | None = None
        #: Whether the table's wall clock is synchronised, as last journaled (None: not said).
        self.synchronised: bool | None = None

    def fresh(self) -> TableView:
        """A view of the same table with nothing applied (a web face reading a new journal)."""
        return type(self)(self.table_id, self.limits, self.clock)

    def apply(self, seq: int, decision: Decision, at: float | None = None) -> bool:
        """Take one journaled decision (``seq``: its record's seq); True when the view changed."""
        self.seq = seq
        if for_surveillance_only(decision):
            return False  # game protection's odds and alerts: the floor feed's, never a display's
        decision = for_outputs(decision)
        at = self.clock() if at is None else at
        if decision.round is not None and (self.round is None or decision.round > self.round):
            self.new_round(decision.round)
        handler = getattr(self, "on_" + decision.type, None)
        return bool(handler(decision.data, decision.round, at)) if handler is not None else False

    def new_round(self, number: int) -> None:
        """A decision of a round not seen before: it is open now. Warnings of the last one go."""
        self.round = number
        self.alerts = [alert for alert in self.alerts if alert["severity"] != "warning"]

    # -- decision types every table decides ----------------------------------------------------
    def on_prompt(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        self.prompt = self.safe_prompt(data)
        return True

    def safe_prompt(self, data: dict[str, Any]) -> dict[str, Any]:
        """The prompt as shown (games narrow it)."""
        return {key: data.get(key) for key in PROMPT_FIELDS}

    def on_lamp(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        self.lamp = str(data.get("colour"))
        if self.lamp == "green":  # nothing is open any more (the lamp is green only then)
            self.alerts = [alert for alert in self.alerts if alert["severity"] == "warning"]
        return True

    def on_device(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        self.devices[str(data.get("device"))] = {key: data.get(key) for key in DEVICE_FIELDS}
        return True

    def on_alert(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        alert = {
            "code": data.get("code"),
            "text": data.get("text"),
            "severity": data.get("severity"),
            "round": round,
            "at": at,
        }
        self.alerts = [a for a in self.alerts if a["code"] != alert["code"]][-(MAX_ALERTS - 1) :] + [alert]
        return True

    def on_halted(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        """The service stops on a journal it cannot write: the banner, the red lamp, no play."""
        self.banner = str(data.get("text"))
        self.lamp = "red"
        self.prompt = {"action": "wait", "text": self.banner}
        return True

    def on_clock(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        """The table's clock (issue 28): an unsynchronised one stays marked on the dealer display."""
        self.synchronised = data.get("synced") is True
        return True

    def on_announce(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        self.log = [*self.log[-(MAX_LOG - 1) :], str(data.get("text"))]
        handler = getattr(self, "announce_" + str(data.get("announce")), None)
        if handler is not None:
            handler(data, round, at)
        return True

    # -- what the pages read ----------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The dealer display's state (``/api/state``)."""
        return {
            "table": self.table_id,
            "game": self.game,
            "seq": self.seq,
            "round": self.round,
            "prompt": self.prompt,
            "lamp": self.lamp,
            "banner": self.banner,
            "devices": self.devices,
            "alerts": self.alerts,
            "log": self.log,
            "limits": self.limits,
            "synchronised": self.synchronised,
            **self.game_state(),
        }

    def game_state(self) -> dict[str, Any]:
        """The game's own part of :meth:`state`."""
        return {}

    def scoreboard(self) -> dict[str, Any]:
        """What the player board shows (no prompt, no alert, no device)."""
        return {"table": self.table_id, "game": self.game, "limits": self.limits}


class BaccaratView(TableView):
    """A Baccarat table: hands as exposed, outcome, shoe, last hand, deck age, the roads."""

    game = "baccarat"

    def __init__(
        self, table_id: str, limits: dict[str, int] | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__(table_id, limits, clock)
        self.shoe: int | None = None
        self.shoe_loaded_at: float | None = None
        self.last_hand = False
        self.burn_card: str | None = None
        self.hand: dict[str, Any] = _empty_hand(None)
        self.results: list[dict[str, Any]] = []
        self.roads = RoadBuilder()
        #: :meth:`roads_json` until a hand is added or a shoe begins (it is asked at every step, twice).
        self._roads_json: dict[str, Any] | None = None

    def new_round(self, number: int) -> None:
        super().new_round(number)
        self.hand = _empty_hand(number)

    def safe_prompt(self, data: dict[str, Any]) -> dict[str, Any]:
        # Card numbers in the shoe, counts and hands to deal to: never a card's identity.
        return {**super().safe_prompt(data), **{key: data[key] for key in BACCARAT_PROMPT_FIELDS if key in data}}

    def on_prompt(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        exposed = data.get("exposed")
        if data.get("action") == "deal" and isinstance(exposed, dict):
            # The hands as they lie face up (§ 541.9(c)(1), § 541.10(c)); None while face down.
            self.hand.update({key: exposed.get(key) for key in EXPOSED_FIELDS})
        return super().on_prompt(data, round, at)

    def announce_shoe(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.shoe, self.shoe_loaded_at, self.last_hand, self.burn_card = data.get("shoe"), at, False, None
        self.roads, self.results, self._roads_json = RoadBuilder(), [], None

    def announce_burn_card(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.burn_card = data.get("card")  # § 541.5(g): the first burn card is shown

    def announce_point_counts(self, data: dict[str, Any], round: int | None, at: float) -> None:
        # § 541.10(a): the initial cards are face up now (turned up, if dealt face down).
        self.hand.update(
            round=round,
            player=list(data.get("player", [])),
            banker=list(data.get("banker", [])),
            player_total=data.get("player_total"),
            banker_total=data.get("banker_total"),
        )

    def announce_outcome(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.hand.update(
            player_total=data.get("player_total"), banker_total=data.get("banker_total"), winner=data.get("winner")
        )

    def announce_last_hand(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.last_hand = True

    def on_round_result(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        # A void round's record may list cards still face down: only its public fields are shown.
        summary = BACCARAT.public_of(data)
        if data.get("status") == "completed":  # every card of a completed round was turned up
            self.hand.update(
                player=list(data.get("player", [])),
                banker=list(data.get("banker", [])),
                winner=data.get("winner"),
                status="completed",
            )
            marks = {key: bool(data.get(key)) for key in BACCARAT.outcome if key != "winner"}
            self.roads.add(Outcome(str(data.get("winner")), **marks))
            self._roads_json = None
        else:
            self.hand = {**_empty_hand(round), "status": "void"}
        self.results = [*self.results[-(MAX_RESULTS - 1) :], summary]
        return True

    def on_shoe_result(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        self.log = [*self.log[-(MAX_LOG - 1) :], f"shoe {data.get('shoe')} finished: {data.get('rounds')} rounds"]
        self.shoe_loaded_at = None
        return True

    def game_state(self) -> dict[str, Any]:
        return {
            "shoe": self.shoe,
            "shoe_loaded_at": self.shoe_loaded_at,
            "last_hand": self.last_hand,
            "burn_card": self.burn_card,
            "hand": self.hand,
            "results": self.results,
        }

    def roads_json(self) -> dict[str, Any]:
        """``/api/roads``: the roads of the shoe in play, with its number."""
        if self._roads_json is None:
            self._roads_json = {"shoe": self.shoe, **self.roads.roads().to_json_dict()}
        return self._roads_json

    def scoreboard(self) -> dict[str, Any]:
        last = self.results[-1] if self.results else None
        return {
            **super().scoreboard(),
            "shoe": self.shoe,
            "last_hand": self.last_hand,
            "last": last,
            "roads": self.roads_json(),
        }


class PaiGowView(TableView):
    """A Pai Gow table: bank offer, bank, delivery, the roll, house way, results, dice clock."""

    game = "paigow"

    def __init__(
        self, table_id: str, limits: dict[str, int] | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__(table_id, limits, clock)
        self.dice_clock: dict[str, Any] = {"registered_at": None, "expires_at": None}
        self.current: dict[str, Any] = _empty_paigow(None)
        self.rolls: list[dict[str, Any]] = []

    def new_round(self, number: int) -> None:
        super().new_round(number)
        self.current = _empty_paigow(number)

    def safe_prompt(self, data: dict[str, Any]) -> dict[str, Any]:
        # Seats, stack positions and counts; Pai Gow tiles are never named before they are set.
        return {**super().safe_prompt(data), **{key: data[key] for key in PAIGOW_PROMPT_FIELDS if key in data}}

    def announce_new_dice(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.dice_clock = {"registered_at": data.get("registered_at"), "expires_at": data.get("expires_at")}

    def announce_bank_offer(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.current["offer"] = list(data.get("order", []))

    def announce_bank(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.current["bank"] = {"seat": data.get("seat"), "co_bank": data.get("co_bank")}

    def announce_style(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.current["style"] = data.get("style")

    def announce_total(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.current.update(dice=data.get("dice"), total=data.get("total"), start=data.get("start"))

    def announce_house_way(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.current["house_way"] = data.get("setting")

    def announce_results(self, data: dict[str, Any], round: int | None, at: float) -> None:
        self.current["results"] = list(data.get("results", []))

    def on_round_result(self, data: dict[str, Any], round: int | None, at: float) -> bool:
        roll = PAIGOW.public_of(data)
        self.current["status"] = data.get("status")
        self.rolls = [*self.rolls[-(MAX_RESULTS - 1) :], roll]
        return True

    def game_state(self) -> dict[str, Any]:
        return {"dice_clock": self.dice_clock, "current": self.current, "rolls": self.rolls}

    def scoreboard(self) -> dict[str, Any]:
        return {**super().scoreboard(), "rolls": self.rolls}


def _empty_hand(round: int | None) -> dict[str, Any]:
    return {
        "round": round,
        "player": [],
        "banker": [],
        "player_total": None,
        "banker_total": None,
        "winner": None,
        "status": None,
    }


def _empty_paigow(round: int | None) -> dict[str, Any]:
    return {
        "round": round,
        "offer": None,
        "bank": None,
        "style": None,
        "dice": None,
        "total": None,
        "start": None,
        "house_way": None,
        "results": None,
        "status": None,
    }


def view_for(game: str, table_id: str, limits: dict[str, int] | None = None) -> TableView:
    """The view of a ``game`` table."""
    return {"baccarat": BaccaratView, "paigow": PaiGowView}[game](table_id, limits)
