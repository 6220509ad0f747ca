"""Configuration: the hardware and table profiles (TOML) parsed into plain objects.

Only the wiring and the CLI import this package; the rules and the controllers receive the
plain objects it builds.
"""
