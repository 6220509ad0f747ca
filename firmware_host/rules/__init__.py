"""Pure rules: the regulations as functions, with no I/O, no clock and no configuration files.

* :mod:`.baccarat`: ch. 541 Minibaccarat and § 631c.5 commission-free Baccarat (cards, the draw,
  outcome, settlement, irregularities, exact odds);
* :mod:`.paigow_dice`: ch. 535 Pai Gow dice, starting position, delivery plan and the player bank
  of § 621a.9;
* :mod:`.paigow_tiles`: ch. 535 tiles, hands, house way, comparison and settlement;
* :mod:`.shuffler`: what the automatic shuffler may do under § 541.3(b);
* :mod:`.shoe_audit`: the composition and shuffle checks of a shoe.

Nothing here imports a driver's I/O, the profile loader or the host.
"""
