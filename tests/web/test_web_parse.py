"""The parsers of what a web peer sends: a value or BadRequest, never another exception (issue 20 item 4)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.web.parse import (
    MAX_JSON_DEPTH,
    BadRequest,
    host_name,
    media_type,
    parse_json,
    parse_seq,
    query_value,
)

FAST = settings(max_examples=150, deadline=None)


@FAST
@given(st.binary(max_size=3000), st.sampled_from(["view", "tiles", "x"]))
def test_a_query_is_a_value_or_a_bad_request(query: bytes, name: str) -> None:
    try:
        value = query_value(query, name)
    except BadRequest as exc:
        assert exc.status == 400 and exc.reason
    else:
        assert value is None or isinstance(value, str)


@FAST
@given(
    st.lists(
        st.sampled_from(
            [
                "view=dealer",
                "view=scoreboard",
                "x=view=scoreboard",
                "y=1",
                "view%3Dscoreboard",
                "v%69ew=scoreboard",
                "view=",
                "&",
            ]
        ),
        max_size=6,
    )
)
def test_view_is_read_as_the_parser_reads_it_never_as_text(parts: list[str]) -> None:
    query = "&".join(parts).encode()
    given_views = [
        p.split("=", 1)[1]
        for p in "&".join(parts).replace("v%69ew", "view").split("&")
        if p.split("=", 1)[0] == "view" and "=" in p
    ]
    if len(given_views) > 1:
        with pytest.raises(BadRequest, match="given"):
            query_value(query, "view")
    else:
        assert query_value(query, "view", "dealer") == (given_views[0] if given_views else "dealer")


def test_the_query_of_issue_20() -> None:
    assert query_value(b"view=dealer&x=view=scoreboard", "view") == "dealer"
    with pytest.raises(BadRequest, match="view is given 2 times"):
        query_value(b"view=scoreboard&view=dealer", "view")
    with pytest.raises(BadRequest, match="longer than"):
        query_value(b"x=" + b"1" * 5000, "view")
    with pytest.raises(BadRequest, match="not a URL-encoded UTF-8"):
        query_value(b"view=%ff", "view")


@FAST
@given(st.text(max_size=5000))
def test_a_last_event_id_is_a_seq_or_a_bad_request(text: str) -> None:
    try:
        seq = parse_seq(text)
    except BadRequest:
        assert not (text.isascii() and text.isdigit() and 0 < len(text) <= 18)
    else:
        assert seq is None and text == "" or 0 <= seq < 10**18  # type: ignore[operator]


def test_a_last_event_id_of_4301_digits_is_refused() -> None:
    for text in ("9" * 4301, "٣", "1e3", " 1", "-1"):
        with pytest.raises(BadRequest):
            parse_seq(text)
    assert parse_seq("123") == 123 and parse_seq(None) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)


@FAST
@given(st.binary(max_size=2000))
def test_a_body_is_json_or_a_bad_request(body: bytes) -> None:
    try:
        parse_json(body)
    except BadRequest as exc:
        assert exc.status == 400


def depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@FAST
@given(json_values, st.booleans())
def test_json_within_the_nesting_cap_reads_back(value: object, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    if depth(value) > MAX_JSON_DEPTH:
        with pytest.raises(BadRequest, match="nested deeper"):
            parse_json(text)
    else:
        assert parse_json(text) == value  # brackets and quotes inside texts are not nesting


def test_deep_nesting_and_constants_are_refused() -> None:
    for body in (
        b"[" * 100_000 + b"]" * 100_000,
        b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1),
        b"NaN",
        b"[Infinity]",
        b"1" * 5000,
        b"\xff",
    ):
        with pytest.raises(BadRequest):
            parse_json(body)
    assert parse_json(b'["[[[[[[[[[["]') == ["[[[[[[[[[["]  # brackets in a text are not nesting


@FAST
@given(st.text(max_size=300))
def test_a_host_header_is_a_name_or_none(text: str) -> None:
    parsed = host_name(text)
    assert parsed is None or (isinstance(parsed[0], str) and (parsed[1] is None or 0 <= parsed[1] <= 65535))


def test_host_names() -> None:
    assert host_name("Table-12.Floor:8080") == ("table-12.floor", 8080)
    assert host_name("[::1]:80") == ("::1", 80) and host_name("127.0.0.1") == ("127.0.0.1", None)
    for bad in ("", "a b", "evil.example:99999", "x@y", "[::1", None):
        assert host_name(bad) is None


@FAST
@given(st.text(max_size=200))
def test_a_content_type_is_read_without_raising(text: str) -> None:
    kind, parameters = media_type(text)
    assert kind == kind.lower() and isinstance(parameters, dict)


def test_content_types() -> None:
    assert media_type("Application/JSON; charset=UTF-8") == ("application/json", {"charset": "utf-8"})
    assert media_type(None) == ("", {})
