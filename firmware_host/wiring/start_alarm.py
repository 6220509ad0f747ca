"""A table whose journal cannot be opened at start tells the dealer as one whose journal cannot be
written mid-run does (:meth:`~firmware_host.host.service.Service.halt`; docs/recovery.md, "A
journal that cannot be opened"): the red lamp, the buzzer held on, and the dealer view's
``TABLE STOPPED`` line, before ``tablehost run`` exits 2 in one line on standard error.

The journal is opened before the GPIO (a panel's buttons need the service that the journal
feeds), so on failure the alarm's outputs alone are claimed from the profile: the lamp and the
buzzer, no button, no lid. A journal another process holds is no failure of this table's (exit
75, restarted after ``RestartSec``): its table owns the lamp, and an alarm at each restart would
flap it. Exit 2 is not restarted (``RestartPreventExitStatus=2``), so the alarm is raised once.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TextIO

from drivers.events import DeviceEvent
from drivers.gpio import GpioError, TablePanel, pin_factory
from firmware_host.config.profiles import TableProfile
from firmware_host.errors import JournalError, TemporaryError
from firmware_host.host.outputs import DealerView, PanelOutput
from firmware_host.host.service import Output, halted
from firmware_host.tables.events import DealerCommand

__all__ = ["alarm_on_failure", "raise_alarm"]

log = logging.getLogger("tablehost.wiring")

#: The alarm's panel, held until the process ends: gpiozero closes a collected device's pin (makes
#: it an input), which would put the lamp and the buzzer out at once. As after a halt mid-run, the
#: pins are never closed; what a released line does once the process has gone is the kernel's.
_held: list[TablePanel] = []


@contextlib.contextmanager
def alarm_on_failure(profile: TableProfile, stream: TextIO) -> Iterator[None]:
    """Raise the alarm (:func:`raise_alarm`) when the block fails on the journal, then let the
    error go on (``tablehost`` prints it and exits 2); a :class:`TemporaryError` goes on alone."""
    try:
        yield
    except TemporaryError:
        raise
    except JournalError as exc:
        raise_alarm(profile, stream, str(exc))
        raise


def raise_alarm(profile: TableProfile, stream: TextIO, reason: str) -> None:
    """Give the dealer view and the table's lamp and buzzer the ``halted`` decision of a journal that
    cannot be opened (:func:`~firmware_host.host.service.halted`). Nothing here raises: GPIO that
    cannot be claimed is logged, and the dealer view still says it."""
    decision = halted(reason, cannot="be opened")
    outputs: list[Output] = [DealerView(stream, profile.table_id)]
    panel = _alarm_panel(profile)
    if panel is not None:
        outputs.append(PanelOutput(panel))
    log.info("the table cannot start: %s", decision.data["reason"])
    for output in outputs:
        try:
            output.on_decisions([decision])
        except Exception:  # the error is still printed and the exit status still 2
            log.exception("output %s failed", type(output).__name__)


def _alarm_panel(profile: TableProfile) -> TablePanel | None:
    """The profile's lamp and buzzer alone (None without either, or when they cannot be claimed)."""
    gpio = profile.gpio
    if not gpio.lamp and gpio.buzzer is None:
        return None
    try:
        panel = TablePanel(
            _nothing, {}, gpio.lamp, gpio.buzzer, None, pin_factory(gpio.pin_factory), button_event=DealerCommand
        )
    except GpioError as exc:
        log.error("the alarm cannot be raised on the table's lamp and buzzer: %s", exc)
        return None
    _held[:] = [panel]
    return panel


def _nothing(event: DeviceEvent) -> None:
    """Where the alarm's panel would put an event: it has no input to make one."""
