"""The Baccarat table (ch. 541 Minibaccarat, § 631c.5 commission-free Baccarat).

* :mod:`.controller`: :class:`BaccaratTable`, the facade that owns the ``transitions`` machine,
  with :data:`~.controller.COMMANDS` (every dealer command and its args);
* :mod:`.shoe`: the shoe's life, and where each card out of it goes;
* :mod:`.round`: the open round: wagers, the deal, settlement, its ``round_result``;
* :mod:`.irregularities`: § 541.14, and the card awaiting the dealer's entry;
* :mod:`.prompts`: the dealer's prompt and its public type :class:`~.prompts.Action`;
* :mod:`.view`: the dealer's view, the open alerts and the lamp;
* :mod:`.records`: the JSON-plain forms of cards and settled wagers in decisions;
* :mod:`.supply`: where shoes come from; :class:`~.supply.HandShuffled` without a shuffler;
* :mod:`.shuffler`: :class:`~.shuffler.ShufflerSide`, created only at a table with a shuffler.
"""

from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.tables.baccarat.prompts import Action

__all__ = ["Action", "BaccaratTable"]
