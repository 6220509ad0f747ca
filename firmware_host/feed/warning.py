"""Feed trouble at the table: a line on the dealer view, an amber tower lamp and a journal
record (:class:`~firmware_host.tables.events.FloorFeedStatus`); play goes on.

The publisher times trouble (:class:`TroubleClock`: no connection, or nothing acknowledged by the
floor) and reports it from its own thread (:class:`FeedTrouble` is its ``on_trouble``).
The lamp is shared with the controller's ``lamp`` decisions, so :class:`TroubleLamp` sits
between :class:`~firmware_host.host.outputs.PanelOutput` and the panel: while the feed is in
trouble a green lamp shows amber (red, a paused table, stays red), and the controller's colour
comes back once the feed is healthy.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TextIO

from drivers.events import DeviceEvent
from firmware_host.host.outputs import Panel
from firmware_host.tables.events import FloorFeedStatus

__all__ = ["FeedTrouble", "TroubleLamp", "TroubleClock"]

log = logging.getLogger("tablehost.feed")


class TroubleClock:
    """When the feed's trouble began, and whether it was reported: trouble lasting ``warn_after_s``
    is told to ``on_trouble`` with a text, and its end with None (from the publisher's thread).

    :param table_id, url: name the table and its broker in the text.
    """

    def __init__(
        self, table_id: str, url: str, warn_after_s: float, on_trouble: Callable[[str | None], None] | None
    ) -> None:
        self.table_id, self.url, self.warn_after_s, self.on_trouble = table_id, url, warn_after_s, on_trouble
        #: When the trouble began (monotonic), or None: healthy. A feed starts in trouble.
        self.since: float | None = time.monotonic()
        #: The trouble has been reported.
        self.warned = False

    def begins(self) -> None:
        """Trouble from now on, unless it began already."""
        self.since = self.since or time.monotonic()

    def healthy(self, seq: int) -> None:
        """Acknowledged up to ``seq``: no trouble (its end is reported if it was)."""
        self.since = None
        if self.warned:
            self.warned = False
            log.warning("feed %s: floor feed back; acknowledged up to seq %d", self.table_id, seq)
            self._notify(None)

    def check(self, seq: int) -> None:
        """Report the trouble once it has lasted ``warn_after_s`` (``seq``: the last acknowledged)."""
        since = self.since
        if since is None or self.warned or time.monotonic() - since < self.warn_after_s:
            return
        self.warned = True
        text = (
            f"floor feed down for {time.monotonic() - since:.0f} s ({self.url}); last acknowledged "
            f"seq {seq}; play continues, the journal keeps everything"
        )
        log.warning("feed %s: %s", self.table_id, text)
        self._notify(text)

    def _notify(self, text: str | None) -> None:
        """Tell ``on_trouble``; its failure (a lamp already closed) never stops the feed."""
        if self.on_trouble is None:
            return
        try:
            self.on_trouble(text)
        except Exception:
            log.exception("feed %s: reporting feed trouble failed", self.table_id)


class TroubleLamp:
    """The panel as the controller's lamp decisions see it, amber instead of green during feed trouble."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self._colour: str | None = None
        self._trouble = False
        self._lock = threading.Lock()

    def show(self, colour: str) -> None:
        """The controller's colour (shown amber instead of green while the feed is in trouble)."""
        with self._lock:
            self._colour = colour
            self.panel.show(self._shown())

    def buzz(self) -> None:
        """Sound the buzzer."""
        self.panel.buzz()

    def alarm(self) -> None:
        """Hold the buzzer on."""
        self.panel.alarm()

    def trouble(self, on: bool) -> None:
        """Feed trouble starts (``True``) or ends."""
        with self._lock:
            self._trouble = on
            if self._colour is not None:
                self.panel.show(self._shown())

    def _shown(self) -> str:
        assert self._colour is not None
        return "amber" if self._trouble and self._colour == "green" else self._colour


class FeedTrouble:
    """The publisher's ``on_trouble``: one dealer-view line when trouble starts and when it ends,
    and a :class:`~firmware_host.tables.events.FloorFeedStatus` for the journal.

    :param stream: the dealer view's stream (each line is one ``write``, so it never splits another).
    :param table_id: starts the line, as the dealer view's lines do.
    :param lamp: the lamp between the panel output and the panel, if the table has one.
    :param emit: the service's event queue (:meth:`~firmware_host.host.service.Service.emit`,
        safe from the publisher's thread), if the trouble is to be journaled.
    """

    def __init__(
        self,
        stream: TextIO,
        table_id: str,
        lamp: TroubleLamp | None = None,
        emit: Callable[[DeviceEvent], None] | None = None,
    ) -> None:
        self.stream, self.table_id, self.lamp, self.emit = stream, table_id, lamp, emit

    def __call__(self, text: str | None) -> None:
        """Show ``text`` as a warning, or that the feed is back (None)."""
        if self.emit is not None:
            self.emit(FloorFeedStatus(device="feed", trouble=text))
        if self.lamp is not None:
            self.lamp.trouble(text is not None)
        line = f"WARNING: {text}" if text is not None else "floor feed back: every message is acknowledged"
        self.stream.write(f"[{self.table_id}] {line}\n")
        self.stream.flush()
