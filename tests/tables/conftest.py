"""Every step of every table test is also a checkpoint test (issue 15: a checkpoint is faithful in
every state the controllers can hold).

Before each event a :class:`~tests.support.table_driver.TableDriver` feeds, the controller's state
is captured as a checkpoint holds it (a JSON document, through text) and restored into a new controller
built as the one under test was (once per driver: each restore replaces every state attribute); the copy must hold the same state, decide the event identically and end in the same
state as the controller under test. Property tests (Hypothesis), and long tests after their first
:data:`EVERY_STEP_UP_TO` steps, check every :data:`PROPERTY_TEST_STRIDE`-th step only, to keep
the run short.
"""

from __future__ import annotations

import json
import weakref
from typing import Any

import pytest

from drivers.events import DeviceEvent
from firmware_host.tables.base import TableController
from firmware_host.tables.decisions import Decision
from firmware_host.tables.state_tree import capture, restore_into
from tests.support.table_driver import TableDriver

#: Property tests check one step in this many (their random streams reach the same states many
#: times), and so do other tests after their first :data:`EVERY_STEP_UP_TO` steps (whole shoes).
PROPERTY_TEST_STRIDE = 40
EVERY_STEP_UP_TO = 60


def _through_text(document: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(document, sort_keys=True))


#: How each controller under test was built (class, arguments), to build a fresh one like it.
_BUILT_WITH: weakref.WeakKeyDictionary[Any, tuple[type, tuple[Any, ...], dict[str, Any]]] = weakref.WeakKeyDictionary()


def _record_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every controller class records the arguments it was built with (the outermost constructor's)."""

    def classes(cls: type) -> list[type]:
        return [cls, *(sub for child in cls.__subclasses__() for sub in classes(child))]

    for cls in classes(TableController):
        if "__init__" not in cls.__dict__:
            continue

        def init(
            self: Any, *args: Any, __init: Any = cls.__dict__["__init__"], __cls: type = cls, **kwargs: Any
        ) -> None:
            if type(self) is __cls:
                _BUILT_WITH[self] = (__cls, args, kwargs)
            __init(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", init)


def _fresh_like(table: Any) -> Any:
    """A new controller built as ``table`` was."""
    cls, args, kwargs = _BUILT_WITH[table]
    return cls(*args, **kwargs)


def _checked_handle(
    driver: TableDriver[Any], event: DeviceEvent, at: float, mono_ns: int | None = None
) -> list[Decision]:
    table, step = driver.table, len(driver.steps)
    if step > EVERY_STEP_UP_TO and step % PROPERTY_TEST_STRIDE or step % driver.__dict__.get("stride", 1):
        return table.handle(event, at, mono_ns)
    restored = driver.__dict__.setdefault("restored", _fresh_like(table))
    restore_into(restored, _through_text(_state_before(driver, step)), "controller")  # replaces every state attribute
    decided = table.handle(event, at, mono_ns)
    assert restored.handle(event, at, mono_ns) == decided, f"the restored table decides {event} otherwise"
    after = capture(table)
    assert capture(restored) == after
    driver.ended = (step, after)  # type: ignore[attr-defined]
    return decided


def _state_before(driver: TableDriver[Any], step: int) -> dict[str, Any]:
    """The table's state before ``step``: as the previous step left it when that step was checked
    (the driver feeds the table nothing else in between), else captured now."""
    previous, document = driver.__dict__.get("ended", (None, None))
    return document if previous == step - 1 else capture(driver.table, "controller")


@pytest.fixture(autouse=True)
def every_step_restores_faithfully(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    built = TableDriver.__init__
    stride = PROPERTY_TEST_STRIDE if getattr(request.function, "is_hypothesis_test", False) else 1
    _record_construction(monkeypatch)

    def init(self: TableDriver[Any], table: Any) -> None:
        built(self, table)
        self.stride = stride  # type: ignore[attr-defined]

    monkeypatch.setattr(TableDriver, "__init__", init)
    monkeypatch.setattr(TableDriver, "handle", _checked_handle)
