"""``tablehost baccarat``: resolve rounds from card lists, and exact odds of a shoe.

``resolve`` reads one round per line on stdin (cards in shoe order, e.g. ``9S 2H KD 5C
3D``) and writes one JSON object per line as each line arrives. A line it cannot resolve
gets a message on stderr naming the line number and why; the other lines are still
resolved and the exit status is 1. Blank lines are skipped.

``odds`` prints the exact probabilities and house edges of a shoe, as a table or JSON, and the
player's exact EV of each wager a table with the given variant and pay table offers: the ``ev``
object of the journal's ``odds`` decision (docs/protection.md), exact ``"n/d"`` strings, with
``ev_percent`` rounded for people.

``roads`` reads one shoe's rounds on stdin (lines of ``resolve`` or ``journal export --rounds``
JSON, or the words ``banker``, ``player``, ``tie``) and draws its scoreboard roads, or writes
them as one JSON object with ``--json``. Void rounds are skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from firmware_host.cli.roads_text import draw, read_outcomes
from firmware_host.cli.stream import answer_lines
from firmware_host.rules.baccarat.cards import MAX_DECKS, parse_cards, remove_seen, shoe_composition
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.exposure import evs_text, expected_values, remaining_ranks
from firmware_host.rules.baccarat.odds import EDGE_REPORT, ShoeOdds, exact_odds, house_edges
from firmware_host.rules.baccarat.roads import RoadBuilder
from firmware_host.rules.baccarat.rules import LUCKY_SIX_SIX_TIE_OUTCOMES, MIN_TIE_PAYOUT, RulesSubmission
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.baccarat.wagers import wager_kind
from firmware_host.text import escaped

#: How the readable odds table names each probability of :meth:`ShoeOdds.probabilities`.
PROBABILITY_LABELS: dict[str, str] = {
    "banker": "banker wins",
    "player": "player wins",
    "tie": "tie",
    "banker_wins_six_two_cards": "banker wins with 6 on two cards",
    "banker_wins_six_three_cards": "banker wins with 6 on three cards",
    "natural": "natural (either hand)",
    "player_pair": "player pair",
    "banker_pair": "banker pair",
}


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add the ``baccarat`` group and its sub-commands to the ``tablehost`` parser."""
    parser = groups.add_parser(name, help=help_text, description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)

    resolve_parser = commands.add_parser(
        "resolve",
        help="resolve rounds: card lines on stdin, JSON lines on stdout",
        description="Resolve one round per stdin line (cards in shoe order) into one JSON object per line.",
    )
    resolve_parser.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        default=Variant.STANDARD.value,
        help="standard Minibaccarat (ch. 541) or commission-free (§ 631c.5); default standard",
    )
    resolve_parser.set_defaults(func=run_resolve)

    odds_parser = commands.add_parser(
        "odds",
        help="exact probabilities and house edges of a shoe",
        description="Exact odds by enumeration over the cards in the shoe.",
    )
    odds_parser.add_argument("--decks", type=int, default=MAX_DECKS, help="decks in the shoe, 1-8; default 8")
    odds_parser.add_argument(
        "--seen", default="", metavar="CARDS", help="cards already dealt from the shoe, e.g. '9S 2H KD' (mid-shoe odds)"
    )
    odds_parser.add_argument("--json", action="store_true", help="write JSON instead of a table")
    _add_pay_table_arguments(odds_parser)
    odds_parser.set_defaults(func=run_odds)

    roads_parser = commands.add_parser(
        "roads",
        help="the scoreboard roads of one shoe: rounds on stdin",
        description="Bead plate, big road, big eye boy, small road, cockroach pig and ask-the-road of one shoe. "
        "Input: lines of `baccarat resolve` or `journal export --rounds` JSON, or banker/player/tie.",
    )
    roads_parser.add_argument("--json", action="store_true", help="write one JSON object instead of a drawing")
    roads_parser.set_defaults(func=run_roads)


def run_resolve(args: argparse.Namespace) -> int:
    """Resolve stdin line by line; 1 if any line was bad, else 0 (a reader leaving early: see cli.main)."""
    return answer_lines(
        "baccarat resolve", lambda line: resolve(parse_cards(line), variant=args.variant).to_json_dict()
    )


def run_roads(args: argparse.Namespace) -> int:
    """Draw (or ``--json``) the roads of the rounds on stdin; 1 if any line was bad, else 0."""
    builder, bad_lines = RoadBuilder(), 0
    for number, outcome in read_outcomes(sys.stdin):
        if isinstance(outcome, str):
            bad_lines += 1
            print(escaped(f"tablehost baccarat roads: line {number}: {outcome}"), file=sys.stderr, flush=True)
        elif outcome is not None:
            builder.add(outcome)
    shoe = builder.roads()
    print(json.dumps(shoe.to_json_dict()) if args.json else draw(shoe))
    return 1 if bad_lines else 0


def _add_pay_table_arguments(parser: argparse.ArgumentParser) -> None:
    """The Rules Submission options the EVs of ``odds`` are computed under."""
    parser.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        default=Variant.STANDARD.value,
        help="the table's variant for the EVs; default standard",
    )
    parser.add_argument(
        "--commission",
        type=int,
        default=None,
        metavar="PERCENT",
        help="standard: vigorish on a winning banker wager, 4 or 5 (§ 541.13(c)); default 5",
    )
    parser.add_argument(
        "--tie-commission-alternative",
        action="store_true",
        help="standard: 25%% of banker wagers on a tie instead of the commission (§ 541.13(f))",
    )
    parser.add_argument(
        "--tie-payout", type=int, default=MIN_TIE_PAYOUT, metavar="N", help="a tie pays N to 1 (§ 541.13(b)); default 8"
    )
    parser.add_argument(
        "--lucky-six-on-six-six-tie",
        choices=LUCKY_SIX_SIX_TIE_OUTCOMES,
        default=None,
        help="commission-free: a Lucky Six wager when both hands tie at 6; default lose",
    )


def pay_table(args: argparse.Namespace) -> RulesSubmission:
    """The Rules Submission ``odds`` computes the EVs under (every wager the variant permits).

    :raises RulesError: for options the regulation or the variant does not allow.
    """
    options: dict[str, object] = {"variant": args.variant, "tie_payout": args.tie_payout}
    if args.commission is not None:
        options["commission_percent"] = args.commission
    if args.tie_commission_alternative:
        options["tie_commission_alternative"] = True
    if args.lucky_six_on_six_six_tie is not None:
        options["lucky_six_on_six_six_tie"] = args.lucky_six_on_six_six_tie
    return RulesSubmission.from_choices(options)


def run_odds(args: argparse.Namespace) -> int:
    """Print the exact odds of ``--decks`` decks less the ``--seen`` cards."""
    rules = pay_table(args)
    seen = parse_cards(args.seen)
    odds = exact_odds(remove_seen(shoe_composition(args.decks), seen))
    evs = expected_values(rules, remaining_ranks(args.decks, seen))
    if args.json:
        report = odds_json(args.decks, len(seen), odds)
        report.update(
            variant=rules.variant.value,
            ev=evs_text(evs),
            ev_percent={kind: round(float(ev) * 100, 4) for kind, ev in evs.items()},
        )
        print(json.dumps(report, indent=2))
    else:
        lines = [odds_table(args.decks, len(seen), odds), "", f"{'EV per unit, ' + rules.variant.value:<36}{'':>12}"]
        lines += [f"{wager_kind(kind).label:<36}{float(ev):>+12.4%}" for kind, ev in evs.items()]
        print("\n".join(lines))
    return 0


def odds_json(decks: int, seen: int, odds: ShoeOdds) -> dict[str, Any]:
    """The JSON object of ``tablehost baccarat odds --json``."""
    return {
        "decks": decks,
        "seen": seen,
        "cards": odds.cards,
        "probabilities": odds.probabilities(),
        "house_edge": house_edges(odds),
    }


def odds_table(decks: int, seen: int, odds: ShoeOdds) -> str:
    """The readable table of ``tablehost baccarat odds``."""
    shoe = f"{decks} deck{'s' if decks > 1 else ''}" + (f" less {seen} seen cards" if seen else "")
    lines = [f"Exact odds: {shoe}, {odds.cards} cards, every ordered draw of six cards enumerated", ""]
    lines.append(f"{'outcome':<36}{'probability':>12}")
    for key, probability in odds.probabilities().items():
        lines.append(f"{PROBABILITY_LABELS[key]:<36}{probability:>12.6f}")
    edges = house_edges(odds)
    for variant in edges:
        lines += ["", f"{'house edge, ' + variant:<36}{'per unit':>12}"]
        for report_variant, key, description, _, _ in EDGE_REPORT:
            if report_variant == variant:
                lines.append(f"{description:<36}{edges[variant][key]:>12.2%}")
    return "\n".join(lines)
