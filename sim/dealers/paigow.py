"""The simulated Pai Gow dealer, players and player bank (ch. 535, § 621a.9).

:class:`PaiGowDealer` follows the prompts of
:meth:`firmware_host.tables.paigow.PaiGowTable.prompt` as a dealer, the players and a
player bank would: the players wager, a player sometimes accepts the bank (now and then
cutting the stacks and choosing another style of delivery), the dealer or the bank shakes
the simulated shaker and the dealer lifts the lid, and the dealer delivers the 32 tiles,
collects the unwagered stacks, covers and shakes once, and keys in the tiles the players
and the dealer hold. Everything reaches the controller the way it would at a real table:
shakes, lid and readings over the shaker's wire protocol, buttons on mock GPIO pins (and
the lid's reed switch when the table reads the lid on GPIO), the rest at the console.

The tiles are real: each round the dealer shuffles one 32-tile set (§ 535.3(c)) with the
round's seeded generator, stacks it in eight stacks of four (§ 535.6(d)) and hands out
exactly the tiles the delivery prompt names, so the hands keyed in are hands one set can
deal. Every choice is drawn from :meth:`SimDealer.rng` (the run's seed and the round), so
a run restarted from its journal chooses alike.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from drivers.events import DeviceEvent
from firmware_host.rules.paigow_dice.delivery import LEVELS, STACKS
from firmware_host.rules.paigow_dice.position import SEATS
from firmware_host.rules.paigow_tiles import TILE_SET, Tile, house_way, legal_settings
from firmware_host.tables.decisions import Decision
from firmware_host.tables.paigow import SHAKES_REQUIRED, SURRENDER, WAGER_KIND, PaiGowTableRules
from sim.dealers.base import Press, Reporting, SimDealer, decision_key

__all__ = ["PaiGowDealer", "CHOICES", "SimShaker", "Lid", "ResumedShaking"]

#: ``[sim.dealer]`` keys of a Pai Gow table: the probability of each choice or error of the
#: dealer, the players and the bank, with its default.
CHOICES: dict[str, float] = {
    "sit_out": 0.2,  # a player sits the round out (at least one player always wagers)
    "bank": 0.15,  # each player offered the bank, in turn, accepts it (§ 535.11(c))
    "co_bank": 0.3,  # the bank asks the house to co-bank, where co-banking is offered (§ 535.11(e))
    "no_dealer_wager": 0.2,  # the bank directs the dealer to wager nothing against it (§ 535.11(h))
    "cut": 0.5,  # the bank cuts the stacks (§ 535.11(g))
    "style": 0.5,  # another style of delivery is chosen (§ 535.9, § 535.11(i))
    "lid_removed_by_bank": 0.05,  # the bank lifts the lid itself (§ 535.11(i))
    "surrender": 0.03,  # a player surrenders the wager (§ 535.10(e))
    "own_setting": 0.25,  # a player sets the hands any legal way, not necessarily the house way (§ 535.10(a))
    "house_way_asked": 0.25,  # a player hands the tiles to the dealer to set the house way (§ 535.10(b))
    "dealer_missets": 0.02,  # the dealer keys in a setting other than the house way (§ 535.12(f))
    "round_complete": 0.0,  # the round is settled by hand, without keying in the tiles
}
#: Chip values the simulated players bet, in cents.
_CHIPS = (500, 1000, 2500, 5000, 10000)
#: Shakes the dealer (or the bank) gives the shaker: at least three (§ 535.8(a)), at most this.
_MOST_SHAKES = 5
#: Shakes after the deal: the shaker is covered and shaken once (§ 535.8(f)).
_CLOSING_SHAKES = 1
#: Decisions after which a prompt like the last one asks for its action again: a no roll, a
#: reading the controller could not use, a shaker report ignored while the table was paused.
_AGAIN = frozenset({("alert", "invalid-reading"), ("alert", "table-paused"), ("announce", "no_roll")})
#: An input refused (during a pause, it is asked for again once the table resumes).
_REFUSED = ("alert", "refused-input")

#: Sets the lid's reed switch: ``True`` lid off, ``False`` lid on.
Lid = Callable[[bool], None]


@dataclasses.dataclass(frozen=True)
class ResumedShaking:
    """A shaking a restart cut short, as the table stands after the replay.

    :param covering: the shaker's covering it is in.
    :param shakes: shakes the table counted in it.
    :param by: ``"dealer"`` or ``"bank"``.
    :param bank_seat: the player bank's seat, if any.
    :param cut: whether the bank has cut the stacks (§ 535.11(g)).
    :param style: the style of delivery chosen so far (§ 535.9).
    """

    covering: int
    shakes: int
    by: str
    bank_seat: int | None
    cut: bool
    style: str


class SimShaker(Reporting, Protocol):
    """What the dealer uses of the simulated shaker (:class:`sim.devices.shaker.SimShaker`)."""

    covering: int

    @property
    def lid_open(self) -> bool:
        """Whether the lid is off."""

    def shake(self) -> int | None:
        """Shake once."""

    def open_lid(self) -> Any:
        """Take the lid off."""

    def close_lid(self) -> None:
        """Put the lid on."""


class PaiGowDealer(SimDealer):
    """The simulated Pai Gow table's people.

    :param shaker: the simulated shaker.
    :param rules: the table's Rules Submission (styles, bank, co-bank, house way).
    :param view: the dealer's screen (:meth:`PaiGowTable.view`): whether the bank co-banks,
        and the delivery plan of a round the run resumed in the middle of.
    :param lid: sets the lid's reed switch on GPIO, or ``None`` when the shaker reports its lid.
    :param choices: probabilities by :data:`CHOICES` key (missing keys take the default).
    """

    def __init__(
        self,
        emit: Callable[[DeviceEvent], None],
        press: Press,
        seed: int,
        shaker: SimShaker,
        rules: PaiGowTableRules,
        view: Callable[[], Mapping[str, Any]],
        lid: Lid | None = None,
        choices: Mapping[str, float] | None = None,
    ) -> None:
        super().__init__(emit, press, seed, {**CHOICES, **(choices or {})})
        self.shaker = shaker
        self.rules = rules
        self.view = view
        self.lid = lid
        #: Each position's four tiles this round, as delivered.
        self.dealt: dict[str, tuple[Tile, ...]] = {}
        self._dealt_round = 0
        #: A shaking a restart cut short, which this (restarted) dealer finishes.
        self._resumed_shaking: ResumedShaking | None = None
        #: Times the table asked again for what a prompt like the last one asks (see :meth:`on_decisions`).
        self._asked = 0
        self._paused = False

    # -- prompts ------------------------------------------------------------------------------
    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Pass the prompts on, each marked with how many times the table has asked again.

        A no roll or an unusable reading asks for the shaking again with a prompt like the
        last; so does a pause during which the table refused or ignored what the people did.
        The ``wait`` of a pause is not passed on: after a pause in which nothing was refused,
        the prompt like the one before it asks for nothing new (what was done is on its way).
        """
        passed = []
        for decision in decisions:
            if decision.type == "prompt":
                self._paused = decision.data["action"] == "wait"
                if self._paused:
                    continue
                decision = Decision(decision.type, dict(decision.data, _asked=self._asked), decision.round)
            elif decision_key(decision) in _AGAIN or (self._paused and decision_key(decision) == _REFUSED):
                self._asked += 1
            passed.append(decision)
        super().on_decisions(passed)

    def act(self, prompt: dict[str, Any]) -> None:
        """Act on one prompt of :meth:`firmware_host.tables.paigow.PaiGowTable.prompt`."""
        action = prompt["action"]
        if action == "replace_dice":
            self.press("new_dice")  # § 535.5(c): a new dice set goes in the shaker
        elif action == "place_bets":
            self.place_bets()
            self.press("no_more_bets")
        elif action == "offer_bank":
            self._offer_bank(prompt["order"])
        elif action in ("shake", "reshake"):
            self._shake(prompt["by"], first=action == "shake")
        elif action == "reveal" and self._resumed_shaking is not None:
            self._shake(self._resumed_shaking.by, first=False)  # the rest of the shaking the restart cut short
        elif action == "reveal":
            self._open_lid()  # § 535.8(b): the dealer removes the lid
        elif action == "deliver":
            self.deal(prompt["hands"])
            self.console("delivered")
        elif action == "collect_and_cover":
            self._close_lid()  # § 535.8(e), (f): the unwagered stacks go to the Dead Hand unseen
            for _ in range(_CLOSING_SHAKES):
                self.shaker.shake()
        elif action == "set_hands":
            self._set_hands(prompt)
        # "read_dice" (the sensor's turn) needs nothing from the people.

    # -- betting and the bank -------------------------------------------------------------------
    def bets(self) -> Iterator[tuple[int, str, int]]:
        """One wager from each player who does not sit out (at least one player wagers)."""
        rng = self.rng("bets")
        seats = [seat for seat in SEATS if rng.random() >= self.errors["sit_out"]] or [rng.choice(SEATS)]
        for seat in seats:
            yield seat, WAGER_KIND, rng.choice(_CHIPS)

    def _offer_bank(self, order: Sequence[int]) -> None:
        """§ 535.11(c)-(h): the offer goes round in order; the first player who accepts banks."""
        seat = next((seat for seat in order if self.errs("bank", seat)), None)
        if seat is None:
            self.console("no_bank")
            return
        args: dict[str, Any] = {
            "seat": seat,
            "chips_confirmed": True,
            "co_bank": self.rules.dice.co_banking_offered and self.errs("co_bank"),
        }
        if not args["co_bank"] and self.errs("no_dealer_wager"):
            args["dealer_wager"] = 0
        self.console("bank", **args)
        self._bank_choices(seat)

    def _bank_choices(self, seat: int, cut: bool = False, style: str = "standard") -> None:
        """§ 535.11(g), (i): the bank now and then cuts the stacks and chooses a style; what the
        table already has (``cut``, a ``style`` other than the standard) is not made again."""
        if self.errs("cut") and not cut:
            self.console("cut", **self._cut(self.rng("cut")))
        if style == "standard":
            self._choose_style(seat)

    @staticmethod
    def _cut(rng: random.Random) -> dict[str, Any]:
        """§ 535.11(g): a cut like a deck's (the first stacks to the left end), or stacks from
        the middle, some to each end."""
        if rng.random() < 0.5:
            return {"stacks": rng.randint(1, STACKS - 1)}
        first = rng.randint(2, STACKS - 2)  # inside the row, so the cut always moves something
        last = rng.randint(first + 1, STACKS - 1)
        split = rng.randint(first, last - 1)
        return {"to_right_end": list(range(first, split + 1)), "to_left_end": list(range(split + 1, last + 1))}

    def _choose_style(self, bank_seat: int | None) -> None:
        """§ 535.9, § 535.11(i): now and then a style other than the standard delivery."""
        others = [style for style in self.rules.dice.styles_for(bank_seat) if style != "standard"]
        if others and self.errs("style"):
            self.console("style", name=self.rng("style name").choice(others))

    # -- the shaker ---------------------------------------------------------------------------------
    def resume_shaking(self, shaking: ResumedShaking) -> None:
        """Finish the shaking a restart cut short, as the table stands."""
        self._resumed_shaking = shaking

    def _shake(self, by: str, first: bool) -> None:
        """Cover, shake at least three times (§ 535.8(a), § 535.11(i)) and lift the lid.

        The shaker may feel fewer shakes, or lose its lid early (its faults); the lid comes
        off after the shaking all the same, as a dealer who counted three would lift it. How
        many shakes is seeded by the round and the shaker's covering, so a dealer restarted in
        the middle of a shaking gives just the shakes still to give.
        """
        self._close_lid()
        covering = self.shaker.covering
        resumed, self._resumed_shaking = self._resumed_shaking, None
        resumed = resumed if resumed is not None and resumed.covering == covering else None
        given = resumed.shakes if resumed is not None else 0
        if first and not given:
            self._before_the_first_shake(by, resumed)
        for _ in range(self.rng("shake", covering).randint(SHAKES_REQUIRED, _MOST_SHAKES) - given):
            self.shaker.shake()
            if self.shaker.lid_open:
                break  # the lid came off early
        if by == "bank" and not self.shaker.lid_open and self.errs("lid_removed_by_bank", covering):
            # § 535.11(i): the bank reaches for the lid; the dealer calls it as the bank lifts it.
            self.settle(self.shaker)
            self.console("lid_removed_by_bank")
        self._open_lid()

    def _before_the_first_shake(self, by: str, resumed: ResumedShaking | None) -> None:
        """The dealer's choice of style before shaking (§ 535.9); a restarted dealer also makes
        the bank's cut and style that followed its acceptance (:meth:`_offer_bank`) but had not
        reached the table. Each is made once: what the table already has is not made again."""
        if by == "dealer" and (resumed is None or resumed.style == "standard"):
            self._choose_style(None)
        elif resumed is not None and resumed.bank_seat is not None:
            self._bank_choices(resumed.bank_seat, resumed.cut, resumed.style)

    def _open_lid(self) -> None:
        if self.lid is not None:
            self.settle(self.shaker)  # the reed switch opens after the shakes have reached the host
            self.lid(True)
        self.shaker.open_lid()

    def _close_lid(self) -> None:
        if self.lid is not None:
            self.settle(self.shaker)
        self.shaker.close_lid()
        if self.lid is not None:
            self.lid(False)

    # -- the tiles ------------------------------------------------------------------------------------
    def stacks(self) -> list[list[Tile]]:
        """This round's eight stacks of four (§ 535.6(d)): a seeded shuffle of one set, stack 1
        at the dealer's right as formed, each stack top tile first."""
        tiles = list(TILE_SET)
        self.rng("tiles").shuffle(tiles)
        return [tiles[LEVELS * stack : LEVELS * (stack + 1)] for stack in range(STACKS)]

    def deal(self, hands: Sequence[Mapping[str, Any]]) -> None:
        """Hand each position the tiles the plan names (``"stack.level"``)."""
        stacks = self.stacks()
        self._dealt_round = self.round
        self.dealt = {}
        for hand in hands:
            spots = [tuple(map(int, spot.split("."))) for spot in hand["tiles"]]
            self.dealt[hand["position"]] = tuple(stacks[stack - 1][level - 1] for stack, level in spots)

    def _set_hands(self, prompt: Mapping[str, Any]) -> None:
        """§ 535.10(a)-(e), § 535.11(e): the players' settings, the dealer's tiles, keyed in."""
        if self._dealt_round != self.round or not self.dealt:
            self.deal(self.view()["plan"])  # resumed mid-round: the plan is on the dealer's screen
        if self.errs("round_complete"):
            self.console("round_complete")
            return
        hands: dict[str, Any] = {}
        for position in prompt["positions"]:
            hands[position] = self._player_hands(position)
        bank = prompt["bank"]
        if bank is not None:
            tiles = self.dealt[str(bank)]
            if self.view()["bank"]["co_bank"]:
                hands[str(bank)] = [tile.text for tile in tiles]  # § 535.11(e): the dealer sets them
            else:
                hands[str(bank)] = house_way(tiles, self.rules.tiles).setting.text
        entry: dict[str, Any] = {"hands": hands}
        if prompt["dealer"]:
            entry["dealer"] = self._dealer_tiles()
        self.console("tiles", **entry)

    def _player_hands(self, position: str) -> Any:
        tiles = self.dealt[position]
        if self.errs("surrender", position):
            return SURRENDER
        if self.errs("house_way_asked", position):
            return [tile.text for tile in tiles]
        if self.errs("own_setting", position):
            return self.rng("setting", position).choice(legal_settings(tiles)).text
        return house_way(tiles, self.rules.tiles).setting.text

    def _dealer_tiles(self) -> Any:
        tiles = self.dealt["dealer"]
        if self.errs("dealer_missets"):
            return self.rng("dealer setting").choice(legal_settings(tiles)).text  # § 535.12(f) resets it
        return [tile.text for tile in tiles]
