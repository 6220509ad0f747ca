"""``tablehost paigow``: the Pai Gow rules at the command line.

``paigow start`` gives the dice total, the starting position (§ 535.8(c), § 535.11(j)) and
the delivery plan (§ 535.8(d), § 535.9, after the bank's cut § 535.11(g)). The tile
commands (``hand``, ``compare``, listed in :data:`TILE_COMMANDS`) live in
:mod:`firmware_host.cli.paigow_tiles`, imported only when one of them runs. Bad input is one
line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json

from firmware_host.cli import checks, register_all
from firmware_host.rules.paigow_dice.bank import BankRound, check_cut
from firmware_host.rules.paigow_dice.delivery import STYLES, Cut, DeliveryPlan, delivery_plan
from firmware_host.rules.paigow_dice.dice import parse_dice, total
from firmware_host.rules.paigow_dice.position import check_seat, label, starting_position

#: The tile commands: (sub-command, help, "module:function" that registers it), as the groups are.
TILE_COMMANDS: tuple[tuple[str, str, str], ...] = (
    (
        "hand",
        "every way to set four tiles and the house way's choice (§ 535.10(d))",
        "firmware_host.cli.paigow_tiles:register_hand",
    ),
    (
        "compare",
        "a player's set hands against the dealer's: win, lose or tie and why (§ 535.10(f)-(j))",
        "firmware_host.cli.paigow_tiles:register_compare",
    ),
)


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add the ``paigow`` group and its sub-commands."""
    group = groups.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    commands = group.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)

    start = commands.add_parser(
        "start",
        help="dice total, starting position and delivery plan",
        description="Dice total, starting position and delivery plan of one round.",
    )
    start.add_argument(
        "--dice", required=True, type=checks.short_text(20), metavar="A,B,C", help="the three faces, e.g. 3,5,1"
    )
    start.add_argument(
        "--bank-seat",
        type=checks.short_text(20),
        metavar="K",
        help="betting position 1-6 of a player bank (§ 535.11(j))",
    )
    start.add_argument("--style", default="standard", metavar="NAME", help=f"delivery style: {', '.join(STYLES)}")
    start.add_argument(
        "--cut",
        type=checks.short_text(40),
        metavar="CUT",
        help="the player bank's cut (§ 535.11(g)): N moves the N stacks on the dealer's right "
        "to the left end; or right=A-B, left=A-B, right=A-B,left=C-D (stacks from the right)",
    )
    start.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    start.set_defaults(func=run_start)

    register_all(commands, TILE_COMMANDS)


def _bank_seat(text: str | None) -> int | None:
    if text is None:
        return None
    return check_seat(int(text) if text.strip().isdecimal() else text)


def _table(dice_text: str, dice_total: int, plan: DeliveryPlan) -> str:
    """The plan as a readable table."""
    lines = [f"total  {dice_total}  ({dice_text})", f"start  {label(plan.start)}", f"style  {plan.style}"]
    if plan.cut is None:
        lines.append("cut    none")
    else:
        lines.append(
            f"cut    {plan.cut.describe()}: stacks from the dealer's right now " + " ".join(map(str, plan.arrangement))
        )
    lines.append("tiles are stack.level: stacks 1-8 from the dealer's right as stacked, level 1 the top tile")
    for order, hand in enumerate(plan.hands, start=1):
        tiles = " ".join(f"{tile.stack}.{tile.level}" for tile in hand.tiles)
        lines.append(f"  {order}. {label(hand.position):<7}{tiles}")
    return "\n".join(lines)


def run_start(args: argparse.Namespace) -> int:
    """``paigow start --dice A,B,C [--bank-seat K] [--style NAME] [--cut N] [--json]``."""
    dice = parse_dice(args.dice)
    bank_seat = _bank_seat(args.bank_seat)
    cut = None if args.cut is None else Cut.parse(args.cut)
    check_cut(None if bank_seat is None else BankRound(bank_seat), cut)
    dice_total = total(dice)
    plan = delivery_plan(starting_position(dice_total, bank_seat), args.style, cut)
    if args.json:
        print(
            json.dumps(
                {"dice": [d.face for d in dice], "total": dice_total, "bank_seat": bank_seat, **plan.to_json_dict()}
            )
        )
    else:
        print(_table("+".join(str(d.face) for d in dice), dice_total, plan))
    return 0
