"""The two games this package plays (the casino's choice in its Rules Submission)."""

from __future__ import annotations

import enum

from firmware_host.errors import RulesError


class Variant(enum.StrEnum):
    """A Baccarat variant; compares equal to its name, so ``'standard'`` works too."""

    #: Minibaccarat, 58 Pa. Code ch. 541: banker wins pay 1 to 1 less vigorish (§ 541.13).
    STANDARD = "standard"
    #: Commission-free Baccarat, § 631c.5: no vigorish, banker wins with 6 pay 1 to 2.
    COMMISSION_FREE = "commission-free"

    @classmethod
    def parse(cls, name: str) -> Variant:
        """The variant called ``name``.

        :raises RulesError: naming the text and the variants there are.
        """
        if isinstance(name, Variant):
            return name  # the common case, without the enum's lookup
        try:
            return cls(name)
        except ValueError:
            raise RulesError(f"variant {name!r}: not one of {', '.join(variant.value for variant in cls)}") from None
