"""Benchmarks (``bench_*.py``, each a script that prints its figures) and the soak harness (:mod:`bench.soak`)."""
