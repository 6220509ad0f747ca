"""Simulated people: the dealers that read the table's prompts and act on them, as a person at
the table would (they may import the pure rules and the controllers' public prompt types)."""
