"""Every step of every table test is also a checkpoint test (issue 15: a checkpoint is faithful in
every state the controllers can hold).

Before each event a :class:`~tests.support.table_driver.TableDriver` feeds, the controller's state
is captured as a checkpoint holds it (a JSON document, through text) and restored into a copy of
the controller as it was built (copied once per driver: each restore replaces every state
attribute); the copy must hold the same state, decide the event identically and end in the same
state as the controller under test. Property tests (Hypothesis), and long tests after their first
:data:`EVERY_STEP_UP_TO` steps, check every :data:`PROPERTY_TEST_STRIDE`-th step only, to keep
the run short.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from drivers.events import DeviceEvent
from firmware_host.tables.decisions import Decision
from firmware_host.tables.state_tree import _not_state, capture, restore_into
from tests.support.table_driver import TableDriver


#: Property tests check one step in this many (their random streams reach the same states many
#: times), and so do other tests after their first :data:`EVERY_STEP_UP_TO` steps (whole shoes).
PROPERTY_TEST_STRIDE = 40
EVERY_STEP_UP_TO = 60


def _through_text(document: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(document, sort_keys=True))


def _copy_as_built(table: Any) -> Any:
    """A copy of the controller (its profile's settings shared: they are not state, and some cannot be copied)."""
    settings = {id(value): value for name, value in vars(table).items() if name in _not_state(type(table))}
    return copy.deepcopy(table, settings)


def _checked_handle(driver: TableDriver[Any], event: DeviceEvent, at: float) -> list[Decision]:
    table, step = driver.table, len(driver.steps)
    if step > EVERY_STEP_UP_TO and step % PROPERTY_TEST_STRIDE or step % driver.__dict__.get("stride", 1):
        return table.handle(event, at)
    restored = driver.__dict__.setdefault("restored", _copy_as_built(table))
    restore_into(restored, _through_text(capture(table, "controller")), "controller")  # replaces every state attribute
    decided = table.handle(event, at)
    assert restored.handle(event, at) == decided, f"the restored table decides {event} otherwise"
    assert capture(restored) == capture(table)
    return decided


@pytest.fixture(autouse=True)
def every_step_restores_faithfully(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    built = TableDriver.__init__
    stride = PROPERTY_TEST_STRIDE if getattr(request.function, "is_hypothesis_test", False) else 1

    def init(self: TableDriver[Any], table: Any) -> None:
        built(self, table)
        self.restored = _copy_as_built(table)  # type: ignore[attr-defined]  # the controller as built
        self.stride = stride  # type: ignore[attr-defined]

    monkeypatch.setattr(TableDriver, "__init__", init)
    monkeypatch.setattr(TableDriver, "handle", _checked_handle)
