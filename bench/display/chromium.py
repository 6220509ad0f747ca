"""The Chromium the display's pages are read in: Debian's ``/usr/bin/chromium``, headless.

``playwright install`` cannot download here, so the browser is the system's (``make deps``
apt-installs it when missing).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CHROMIUM", "LAUNCH_ARGS", "VIEWPORT"]

#: The system Chromium (override with ``TABLEHOST_CHROMIUM``).
CHROMIUM = Path(os.environ.get("TABLEHOST_CHROMIUM", "/usr/bin/chromium"))
#: Headless, no sandbox (containers), and nothing that reaches for the network.
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
#: The kiosk screen the pages are laid out for (a 1080p HDMI display).
VIEWPORT = {"width": 1920, "height": 1080}
