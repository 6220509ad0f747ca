"""Pai Gow rules that need no device (58 Pa. Code ch. 535, § 621a.9).

Pure functions and immutable values only: no clock, no randomness, no I/O.

* :mod:`~firmware_host.rules.paigow_dice.dice`: a shaker reading, no roll or valid (§ 535.12(a),(b)),
  the total, and the 24-hour dice clock (§ 535.5(c)).
* :mod:`~firmware_host.rules.paigow_dice.position`: the table's positions and the starting position
  (§ 535.8(c), § 535.11(j)).
* :mod:`~firmware_host.rules.paigow_dice.delivery`: the bank's cut (§ 535.11(g)) and the delivery
  plan of every style (§ 535.8(d), § 535.9).
* :mod:`~firmware_host.rules.paigow_dice.bank`: player-bank rotation and eligibility (§ 535.11(b)-(h)).
* :mod:`~firmware_host.rules.paigow_dice.rules`: the casino's Rules Submission options.
"""
