"""The delivery of the tiles at a Pai Gow table (§ 535.8(b)-(d), § 535.9, § 535.11(g)-(k)).

:class:`Delivery` is the table's collaborator for what decides where the tiles go: the style
of delivery (§ 535.9, § 535.11(i)) and the player bank's cut (§ 535.11(g)), both chosen after
no more bets and before the shaking starts; the accepted roll's total, the starting position
it counts to (§ 535.8(c), § 535.11(j)) and the delivery plan
(:func:`~firmware_host.rules.paigow_dice.delivery.delivery_plan`); and the dealer's word that
every stack is delivered (§ 535.8(d), § 535.11(k)).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.bank import check_cut
from firmware_host.rules.paigow_dice.delivery import Cut, delivery_plan
from firmware_host.rules.paigow_dice.position import label, starting_position
from firmware_host.tables.paigow.commands import seats

if TYPE_CHECKING:
    from firmware_host.tables.paigow.controller import PaiGowTable

__all__ = ["Delivery"]


class Delivery:
    """The style, the cut, the starting position and the delivery at ``table``.

    :param table: the table whose :attr:`~.controller.PaiGowTable.round` is delivered.
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for.
    NOT_STATE = ("table",)

    def __init__(self, table: PaiGowTable) -> None:
        self.table = table

    def choose_style(self, args: Mapping[str, Any]) -> None:
        """§ 535.9, § 535.11(i): the style of delivery, before the shaking starts."""
        self._before_the_roll("style")
        name = args.get("name")
        if not isinstance(name, str):
            raise RulesError(f"style name {name!r}: give one of the delivery style names")
        round_ = self.table.round
        round_.style = self.table.rules.dice.check_style_for(name, round_.bank_seat)
        self.table.announce("style", f"delivery style: {name}", style=name)

    def cut(self, args: Mapping[str, Any]) -> None:
        """§ 535.11(g): the player bank cuts the stacks once."""
        self._before_the_roll("cut")
        round_ = self.table.round
        if round_.cut is not None:
            raise RulesError("the bank cuts the tiles one time only (§ 535.11(g))")
        if "stacks" in args:
            cut = Cut.rotation(args["stacks"])
        else:
            cut = Cut(
                tuple(seats(args.get("to_right_end", []), "cut to_right_end", check=False)),
                tuple(seats(args.get("to_left_end", []), "cut to_left_end", check=False)),
            )
        check_cut(round_.bank, cut)
        round_.cut = cut
        self.table.announce("cut", f"the bank cuts: {cut.describe()}", cut=cut.to_json_dict())

    def _before_the_roll(self, what: str) -> None:
        table = self.table
        if table.state not in ("bank", "shaking") or table.round.shakes or table.round.rolls:
            raise RulesError(f"the {what} is chosen after no more bets and before the shaking starts (§ 535.11(i))")

    def accept_roll(self, total: int, text: str) -> None:
        """§ 535.8(b),(c), § 535.11(j): total, starting position and the delivery plan."""
        table = self.table
        round_ = table.round
        start = starting_position(total, round_.bank_seat)
        round_.total = total
        round_.plan = delivery_plan(start, round_.style, round_.cut)
        round_.reshake_reason = None
        table.roll_accepted()
        counted = "the dealer" if round_.bank is None else f"the bank at position {round_.bank_seat}"
        section = "535.8(c)" if round_.bank is None else "535.11(j)"
        table.announce(
            "total",
            f"{text}: counting from {counted} as one, {_spoken(label(start))} receives the first tiles (§ {section})",
            dice=list(round_.rolls[-1].dice),
            total=total,
            start=label(start),
        )

    def delivered(self, args: Mapping[str, Any]) -> None:
        """``delivered``: every stack is delivered as prompted (§ 535.8(d), § 535.11(k))."""
        self.table.delivered()


def _spoken(position: str) -> str:
    """``"dealer"`` -> "the dealer", ``"dead"`` -> "the Dead Hand", ``"3"`` -> "position 3"."""
    return {"dealer": "the dealer", "dead": "the Dead Hand"}.get(position, f"position {position}")
