"""The test suite, a package so that shared helpers import as ``tests.support``.

Test folders that are packages themselves are imported as ``tests.<folder>``; folders
without ``__init__.py`` (``drivers``, ``shaker``, ...) keep pytest's plain module names, so
that ``tests/drivers`` never shadows the ``drivers`` package.
"""
