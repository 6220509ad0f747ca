"""Table profile texts the configuration tests build on."""

from __future__ import annotations

from pathlib import Path

from tests.support.paths import REPO

__all__ = ["GOOD", "write_table"]

#: The smallest valid table profile: a Baccarat table with a simulated shoe.
GOOD = """
[table]
id = "T1"
game = "baccarat"
[devices.shoe]
model = "tablehost-ts8-2026"
port = "sim"
"""


def write_table(folder: Path, body: str) -> Path:
    """``body`` as ``folder/tables/t.toml``, the shipped device models copied to ``folder/devices``."""
    (folder / "devices").mkdir()
    for source in (REPO / "hardware-profiles" / "devices").glob("*.toml"):
        (folder / "devices" / source.name).write_text(source.read_text())
    (folder / "tables").mkdir()
    path = folder / "tables" / "t.toml"
    path.write_text(body)
    return path
