"""Every error under the one root (GUIDE, "Rules of the codebase"; issue 31 item 5).

Every module of ``firmware_host/``, ``drivers/`` and ``sim/`` is imported and every exception
class defined in it is checked against its package's root. ``firmware_host``'s root is
:class:`firmware_host.errors.TablehostError`. ``drivers/`` and ``sim/`` may import nothing of
``firmware_host`` (docs/architecture.md; an import-linter contract), so each has its own root,
:class:`drivers.errors.DriverError` and :class:`sim.errors.SimError`, which the CLI catches
beside :class:`TablehostError` (``firmware_host.cli.ERROR_ROOTS``): one line, exit 2.
A builtin base a caller catches (``ValueError``) is kept by multiple inheritance.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator

from drivers.errors import DriverError
from firmware_host.cli import ERROR_ROOTS
from firmware_host.errors import TablehostError
from sim.errors import SimError
from tests.support.paths import REPO

#: Each package and the root of its errors.
ROOTS: dict[str, type[BaseException]] = {"firmware_host": TablehostError, "drivers": DriverError, "sim": SimError}

#: Exception classes that stay outside the roots, and why. Each must still exist: a stale
#: entry fails the test too.
ALLOWED: dict[str, str] = {
    "drivers.device._SessionEnd": (
        "control flow inside the driver thread (ends a session, the port is reopened): never leaves "
        "drivers.device, and must not be caught by a handler of deliberate errors on its way out"
    ),
    "firmware_host.floor.store_sql._OneMessage": (
        "control flow inside the floor store (write the batch again, a message at a time): caught "
        "in the same module, and must not be caught as a deliberate FloorError on its way out"
    ),
    "firmware_host.floor.store_sql._Raced": "a kind of _OneMessage, for the same reason",
}


def modules() -> Iterator[str]:
    """The dotted name of every module of the three packages (``__main__`` runs a program: not it)."""
    for package in ROOTS:
        for path in sorted((REPO / package).rglob("*.py")):
            if path.name == "__main__.py":
                continue
            parts = path.relative_to(REPO).with_suffix("").parts
            yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def exception_classes() -> Iterator[tuple[str, type[BaseException]]]:
    """``(qualified name, class)`` of every exception class defined in the packages."""
    for name in modules():
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == name:
                yield f"{name}.{cls.__qualname__}", cls


def test_every_exception_class_derives_from_its_package_root() -> None:
    found = dict(exception_classes())
    outside = sorted(
        name for name, cls in found.items() if not issubclass(cls, ROOTS[name.split(".")[0]]) and name not in ALLOWED
    )
    assert outside == [], f"exception classes outside their package's root: {outside}"
    assert sorted(set(ALLOWED) - set(found)) == [], "stale ALLOWED entries"
    assert len(found) > 30  # the walk found the packages' errors


def test_the_cli_catches_every_root() -> None:
    caught = {getattr(importlib.import_module(module), name) for module, name in ERROR_ROOTS}
    assert caught == set(ROOTS.values())


def test_errors_callers_catch_as_builtins_keep_their_builtin_base() -> None:
    from drivers.events import EventError
    from firmware_host.display.actions import ActionError
    from firmware_host.display.pages import PageError
    from firmware_host.feed.ack import AckError
    from firmware_host.feed.schema import MessageError

    for cls in (MessageError, PageError, ActionError, AckError):
        assert issubclass(cls, TablehostError) and issubclass(cls, ValueError), cls
    assert issubclass(EventError, DriverError) and issubclass(EventError, ValueError)
