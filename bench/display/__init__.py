"""The display's rig: a simulated table serving its display, and the Chromium its pages are read in.

``bench/bench_display.py`` measures the display with it; the display tests (``tests/display``)
start their tables with it. Nothing here imports test code.

- :mod:`bench.display.table`: the tables' profiles, the test PINs, a table started in a thread;
- :mod:`bench.display.chromium`: the system Chromium and how it is launched.
"""
