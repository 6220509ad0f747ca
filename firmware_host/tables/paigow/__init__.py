"""The Pai Gow table: its controller, its Rules Submission, the tiles entered at the table.

* :mod:`.controller`: :class:`PaiGowTable`, the ``transitions`` machine of a round (issue 4
  items 4-6, issue 8 item 8), a facade over its collaborators:
* :mod:`.commands`: :data:`COMMANDS` (every dealer command and its args);
* :mod:`.bank`: the wagers (:data:`WAGER_KIND`), the bank's offer, the player bank and its rotation;
* :mod:`.roll`: the shakes, the lid, the dice reading and the no rolls;
* :mod:`.delivery`: the style, the cut, the starting position and the delivery plan;
* :mod:`.settlement`: the tiles entered and settled, exposed tiles, a void round, the round's end;
* :mod:`.dice_set`: the dice set and its clock;
* :mod:`.prompts` and :mod:`.view`: the prompt and the dealer's view;
* :mod:`.rules`: :class:`PaiGowTableRules` (parsed from the ``[rules]`` table by
  :mod:`firmware_host.config.rules`);
* :mod:`.round`: the open round and its ``round_result`` record;
* :mod:`.tiles_entry`: the ``tiles`` command: house way, compare, settle.

What this package exports is its public surface: the wiring, the CLI and the simulated
dealer (:mod:`sim.dealers.paigow`) import these names, not its modules.
"""

from firmware_host.tables.paigow.bank import WAGER_KIND
from firmware_host.tables.paigow.commands import COMMANDS
from firmware_host.tables.paigow.controller import PaiGowTable
from firmware_host.tables.paigow.round import SHAKES_REQUIRED
from firmware_host.tables.paigow.rules import PaiGowTableRules
from firmware_host.tables.paigow.tiles_entry import SURRENDER

__all__ = ["COMMANDS", "WAGER_KIND", "SHAKES_REQUIRED", "SURRENDER", "PaiGowTable", "PaiGowTableRules"]
