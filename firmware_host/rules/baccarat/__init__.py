"""The Baccarat rules core: cards, the deal, irregularities, settlement and exact odds.

Pure functions and immutable values only: no I/O, no clock, no randomness. Minibaccarat
(58 Pa. Code ch. 541) and commission-free Baccarat (§ 631c.5).
"""
