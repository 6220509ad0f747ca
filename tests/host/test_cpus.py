"""The table's loop keeps a core to itself when its web face is a process of its own (issue 30
item 4, :mod:`firmware_host.host.cpus`): the service on the lowest CPU it may use, the web face on
the others; ``--cpus`` is outside input (a unit's command line), parsed strictly."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.host import cpus


@given(st.frozensets(st.integers(0, 255), max_size=12))
def test_the_service_keeps_the_lowest_cpu_and_the_web_face_has_the_rest(allowed: frozenset[int]) -> None:
    placed = cpus.split(allowed)
    if len(allowed) < 2:
        assert placed is None
        assert cpus.parse_cpus("auto", allowed, allowed) == allowed  # one CPU: nothing placed
        return
    assert placed is not None
    service, web = placed
    assert service == {min(allowed)} and web == allowed - service and web
    assert cpus.parse_cpus("auto", allowed, allowed) == web


@given(st.text(max_size=30))
def test_a_cpus_argument_is_a_list_of_allowed_cpus_or_refused_with_why(text: str) -> None:
    allowed = frozenset({0, 1, 2, 3})
    try:
        parsed = cpus.parse_cpus(text, allowed, allowed)
    except ValueError as exc:
        assert str(exc)  # says what and why
        return
    assert parsed <= allowed and parsed
    assert text == "auto" or parsed == {int(part) for part in text.split(",")}


def test_a_cpus_argument_names_its_fault() -> None:
    present = frozenset({0, 1, 2, 3})
    assert cpus.parse_cpus("1,3", frozenset({0}), present) == {1, 3}  # not yet allowed, but present
    assert cpus.parse_cpus("auto", frozenset({2, 3}), present) == {3}
    for bad, why in (("1,,2", "separated by commas"), ("7", "CPUs are [0, 1, 2, 3]"), ("٣", "separated by commas")):
        with pytest.raises(ValueError, match=re.escape(why)):
            cpus.parse_cpus(bad, frozenset({0, 1}), present)
