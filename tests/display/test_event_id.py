"""The stream's event ids, ``<epoch>.<seq>``, as a page sends them back: hostile input, parsed
strictly and bounded: a value or BadRequest, never another exception."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.display.app import parse_event_id
from firmware_host.display.hub import event_id
from firmware_host.web.parse import BadRequest

EPOCHS = st.text("0123456789abcdef", min_size=1, max_size=32)


@settings(max_examples=300, deadline=None)
@given(EPOCHS, st.integers(0, 10**18 - 1))
def test_an_id_the_hub_sends_is_read_back_as_it_was(epoch: str, seq: int) -> None:
    assert parse_event_id(event_id(epoch, seq)) == (epoch, seq)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200) | st.builds(lambda e, s: f"{e}.{s}", st.text(max_size=40), st.text(max_size=25)))
def test_any_text_is_an_id_none_or_a_bad_request(text: str) -> None:
    try:
        parsed = parse_event_id(text)
    except BadRequest as exc:
        assert "Last-Event-ID" in exc.reason
    else:
        if parsed is None:  # absent, or a bare seq (a page of an earlier version: a snapshot)
            assert text == "" or (text.isascii() and text.isdigit() and len(text) <= 18)
        else:
            epoch, seq = parsed
            assert text == f"{epoch}.{text.partition('.')[2]}" and 0 <= seq < 10**18
            assert 1 <= len(epoch) <= 32 and set(epoch) <= set("0123456789abcdef")


@pytest.mark.parametrize(
    "text",
    ["A.1", "0.", ".5", "0.-1", "0.1.2", "0x.1", "a" * 33 + ".1", "0." + "9" * 19, "٣.1", "0.٣", " 0.1", "9" * 4301],
)
def test_a_malformed_id_is_refused(text: str) -> None:
    with pytest.raises(BadRequest):
        parse_event_id(text)


def test_no_id_or_a_bare_seq_gets_a_snapshot() -> None:
    assert parse_event_id(None) is None and parse_event_id("") is None and parse_event_id("123") is None
