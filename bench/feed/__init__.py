"""The floor feed's rig: a real Mosquitto on a free loopback port with its own configuration,
password file, ACL and persistence (and TLS with a CA made for the run).

``bench/bench_feed.py`` measures the feed against it; the feed and floor tests (``tests/feed``,
``tests/floor``) start their brokers with it. Nothing here imports test code.
"""
