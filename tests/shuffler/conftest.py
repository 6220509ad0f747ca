"""The shuffler tests reuse the driver-test helpers of tests/drivers (event waiting)."""

from __future__ import annotations

import sys
from pathlib import Path

# tests/drivers is not a package: its helper modules are imported by name, as its own tests do.
sys.path.insert(0, str(Path(__file__).parents[1] / "drivers"))
