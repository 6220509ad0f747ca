"""The table unit's restart policy (``deploy/systemd/tablehost.service``), applied as systemd does.

``systemd.service(5)``: with ``Restart=on-failure`` a unit restarts after an exit status other
than 0 (and those ``SuccessExitStatus`` adds), a signal, or a watchdog timeout, unless the status
is listed in ``RestartPreventExitStatus``.
"""

from __future__ import annotations

import configparser
import signal

from tests.support.paths import REPO

__all__ = ["restarts"]


def _service() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep systemd's key case
    parser.read(REPO / "deploy" / "systemd" / "tablehost.service")
    return parser["Service"]


def restarts(status: int | None, signal_number: int | None = None) -> bool:
    """Whether the unit restarts after the main process exits with ``status`` (or dies of a signal)."""
    service = _service()
    assert service["Restart"] == "on-failure"
    prevented = service.get("RestartPreventExitStatus", "").split()
    success = {"0", *service.get("SuccessExitStatus", "").split()}
    if signal_number is not None:
        return signal.Signals(signal_number).name.removeprefix("SIG") not in prevented
    return str(status) not in success and str(status) not in prevented
