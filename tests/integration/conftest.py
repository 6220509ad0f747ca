"""The integration tests' temporary directories: in memory (tmpfs) where the machine has one.

A long simulated run commits one journal transaction per step, each made durable with an
``fsync`` of the write-ahead log (``synchronous=FULL``): 7,000 of them in a 500-round run, which
on a shared machine's disk took a third of the run (33 s of 94 s in its ``COMMIT`` statements, by
cProfile). On tmpfs the same code calls the same ``fsync``, which returns at once.
These tests check what the service decides and journals, not the disk: what a cut power does to
the journal is ``tests/recovery``'s (power cuts on a file system of their own, strace kills at
each ``fdatasync``), and those keep the disk.
"""

from __future__ import annotations

import shutil
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from tests.support.tmpfs import in_memory

#: The report of a test's call phase (:func:`pytest_runtest_makereport`).
CALL_REPORT = pytest.StashKey[pytest.TestReport]()


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The test's own empty directory, on :data:`~tests.support.tmpfs.TMPFS` (else pytest's own ``tmp_path``), removed
    after the test unless it failed: a failed test's journal stays for a look, in
    ``/dev/shm/tablehost-TEST-*``."""
    path = in_memory(request.node.name)
    if path is None:
        yield tmp_path_factory.mktemp(request.node.name[:30], numbered=True)
        return
    yield path
    report = request.node.stash.get(CALL_REPORT, None)
    if report is None or not report.failed:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def module_tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An empty directory for a module's shared run, on :data:`TMPFS` as :func:`tmp_path`;
    removed after the module's tests."""
    name = request.node.name.removesuffix(".py")
    path = in_memory(name)
    if path is None:
        yield tmp_path_factory.mktemp(name)
        return
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep the call phase's report on the item, for :func:`tmp_path` to see whether the test failed."""
    report = yield
    if report.when == "call":
        item.stash[CALL_REPORT] = report
    return report
