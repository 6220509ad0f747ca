"""The floor's database rig: a real PostgreSQL (``initdb`` on a free loopback port, its own
directory, run as the package's ``postgres`` user when the rig runs as root).

The floor tests start their databases with it, and the floor soak (``bench/``) runs its
collectors against it. Nothing here imports test code.
"""
