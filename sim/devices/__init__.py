"""Simulated devices: the device side of each wire protocol, built only on :mod:`drivers`'
codecs and events (shoe, shaker, shuffler, the links, endpoints and USB bus they are reached
through, injected faults, and the replay of captured traffic)."""
