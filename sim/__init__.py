"""Simulated devices that speak the real wire protocols over real OS endpoints."""
