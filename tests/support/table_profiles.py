"""Table profile texts the configuration tests build on."""

from __future__ import annotations

__all__ = ["GOOD"]

#: The smallest valid table profile: a Baccarat table with a simulated shoe.
GOOD = """
[table]
id = "T1"
game = "baccarat"
[devices.shoe]
model = "tablehost-ts8-2026"
port = "sim"
"""
