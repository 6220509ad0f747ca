"""Which device identities the table may use: the firmware allow-list of the Rules Submission.

A device at the table must be an approved model running approved firmware, and, where the
list names serial numbers, one of those units."""

from __future__ import annotations

import dataclasses

__all__ = ["ApprovedIdentities"]


@dataclasses.dataclass(frozen=True)
class ApprovedIdentities:
    """The firmware allow-list: an empty ``serials`` tuple approves every serial number."""

    models: tuple[str, ...]
    firmware: tuple[str, ...]
    serials: tuple[str, ...] = ()

    def refusal(self, model: str, serial: str, firmware: str) -> str | None:
        """Why an identity is not approved, or ``None`` when it is."""
        if model not in self.models:
            return f"model {model!r} is not approved (approved: {', '.join(self.models)})"
        if firmware not in self.firmware:
            return f"firmware {firmware!r} is not approved (approved: {', '.join(self.firmware)})"
        if self.serials and serial not in self.serials:
            return f"serial number {serial!r} is not on the approved list"
        return None
