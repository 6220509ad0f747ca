"""The Baccarat table (ch. 541 Minibaccarat, § 631c.5 commission-free Baccarat).

* :mod:`.controller`: :class:`BaccaratTable`, the facade that owns the ``transitions`` machine.
"""

from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["BaccaratTable"]
