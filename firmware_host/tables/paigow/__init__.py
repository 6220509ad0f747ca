"""The Pai Gow table: its controller, its Rules Submission, the tiles entered at the table.

* :mod:`.controller`: :class:`PaiGowTable`, the ``transitions`` machine of a round (issue 4
  items 4-6, issue 8 item 8), with :data:`COMMANDS` (every dealer command and its args);
* :mod:`.rules`: :class:`PaiGowTableRules` and :func:`load_paigow_rules` (the ``[rules]`` table);
* :mod:`.round`: the open round and its ``round_result`` record;
* :mod:`.tiles_entry`: the ``tiles`` command: house way, compare, settle.
"""

from firmware_host.tables.paigow.controller import COMMANDS, WAGER_KIND, PaiGowTable
from firmware_host.tables.paigow.rules import PaiGowTableRules, load_paigow_rules

__all__ = ["COMMANDS", "WAGER_KIND", "PaiGowTable", "PaiGowTableRules", "load_paigow_rules"]
