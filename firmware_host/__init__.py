"""tablehost: the table-side controller service (controllers, pure rules, journal, wiring, CLI)."""

__version__ = "0.3.0"
