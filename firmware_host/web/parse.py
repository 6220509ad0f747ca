"""Parsers of what a web peer sends: query strings, header values, JSON bodies.

Text is checked by the one text policy (:mod:`firmware_host.text`) where it enters: a JSON
body holds no lone surrogate, a query value and a header value no control or bidirectional
character.

Each either returns a value of a known type and size or raises :class:`BadRequest` (a 400 with
its reason); none lets another exception out, whatever the bytes (property-tested in
``tests/web/test_web_parse.py``). Query strings are parsed (:func:`urllib.parse.parse_qsl`),
never searched as text.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from typing import Any

from firmware_host.errors import TablehostError
from firmware_host.text import TAB, json_surrogate, problem

__all__ = [
    "BadRequest",
    "MAX_QUERY_BYTES",
    "MAX_JSON_DEPTH",
    "query_value",
    "header_value",
    "MAX_HEADER",
    "parse_seq",
    "parse_json",
    "media_type",
    "host_name",
]

#: Longest query string read (longer: 400).
MAX_QUERY_BYTES = 2048
#: Longest header value read (the whole head is at most 16 KiB).
MAX_HEADER = 8192
#: Deepest nesting of arrays and objects in a JSON body (an action's arguments need 3).
MAX_JSON_DEPTH = 8
#: A journal seq as a client may send it back: 1 to 18 ASCII digits (below 2**63).
_SEQ = re.compile(r"[0-9]{1,18}")
#: A host name or IPv4 address (RFC 1123 labels), or a bracketed IPv6 address, then an optional port.
#: A JSON text (an unterminated one runs to the end), and every byte that is not a bracket.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_HOST = re.compile(
    r"(?P<name>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[(?P<ip6>[0-9A-Fa-f:.]{2,45})\])"
    r"(?::(?P<port>[0-9]{1,5}))?"
)


class BadRequest(TablehostError):
    """What a peer sent cannot be read: answered 400 with :attr:`reason`."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.reason, self.status = reason, status


def query_value(query_string: bytes, name: str, default: str | None = None) -> str | None:
    """The one value of ``name`` in a raw query string, or ``default`` when it is absent.

    :raises BadRequest: the query is too long or not UTF-8, ``name`` is given more than once
        (two values could be read two ways: neither is chosen), or its value is refused by the
        text policy (:mod:`firmware_host.text`: a control or bidirectional character).
    """
    if len(query_string) > MAX_QUERY_BYTES:
        raise BadRequest(f"the query is longer than {MAX_QUERY_BYTES} bytes")
    try:
        pairs = urllib.parse.parse_qsl(
            query_string.decode("ascii"),
            keep_blank_values=True,
            strict_parsing=False,
            encoding="utf-8",
            errors="strict",
            max_num_fields=64,
        )
    except (UnicodeDecodeError, ValueError):
        raise BadRequest("the query is not a URL-encoded UTF-8 query") from None
    values = [value for key, value in pairs if key == name]
    if len(values) > 1:
        raise BadRequest(f"{name} is given {len(values)} times: give it once")
    if values and (why := problem(values[0], MAX_QUERY_BYTES)) is not None:
        raise BadRequest(f"{name} {why}")
    return values[0] if values else default


def header_value(raw: bytes, name: str) -> str:
    """A header's value as text (ISO-8859-1, as HTTP/1.1 reads it), within the text policy: at most
    :data:`MAX_HEADER` characters, no control character but a tab, no C1 control (bytes 0x80 to
    0x9F, CSI among them).

    :raises BadRequest: why not, naming the header.
    """
    value = raw.decode("latin-1")
    why = problem(value, MAX_HEADER, TAB)
    if why is not None:
        raise BadRequest(f"{name} {why}")
    return value


def parse_seq(text: str | None) -> int | None:
    """A journal seq a client sends back (``Last-Event-ID``): None when absent.

    :raises BadRequest: anything but 1 to 18 ASCII digits.
    """
    if text is None or text == "":
        return None
    if not _SEQ.fullmatch(text):
        raise BadRequest("Last-Event-ID is a journal seq: 1 to 18 digits")
    return int(text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(body: bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value of ``body`` (UTF-8; no NaN or Infinity; integers of at most 4,300 digits; Unicode
    text only: no lone surrogate). Each field's own text limits are its reader's.

    :raises BadRequest: not JSON, nested deeper than ``max_depth``, or a lone surrogate in a text.
    """
    depth = 0
    for bracket in _STRING.sub(b"", body).translate(None, _NOT_BRACKETS):  # nesting, outside the texts,
        depth += 1 if bracket in b"[{" else -1  # bounded before the decoder sees it
        if depth > max_depth:
            raise BadRequest(f"the body is nested deeper than {max_depth}")
    try:
        value = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadRequest("the body is not JSON") from None
    if json_surrogate(body, value):
        raise BadRequest("the body holds a lone surrogate (a \\uD800 to \\uDFFF escape): not Unicode text")
    return value


def media_type(header: str | None) -> tuple[str, dict[str, str]]:
    """A Content-Type header as ``(type/subtype lower-cased, {parameter: value})``; ``("", {})`` if absent."""
    if not header:
        return "", {}
    kind, *rest = header.split(";")
    parameters = {}
    for item in rest:
        key, _, value = item.partition("=")
        parameters[key.strip().lower()] = value.strip().strip('"').lower()
    return kind.strip().lower(), parameters


def host_name(header: str | None) -> tuple[str, int | None] | None:
    """A Host header (or an Origin's authority) as ``(host lower-cased, port or None)``; None if it is not one."""
    if header is None:
        return None
    match = _HOST.fullmatch(header.strip())
    if match is None:
        return None
    port = match["port"]
    if port is not None and int(port) > 65535:
        return None
    return (match["ip6"] or match["name"]).lower().rstrip("."), None if port is None else int(port)
