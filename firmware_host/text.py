"""One text policy for every face, and one escaper for every printer (issue 29 items 1 and 5).

Where text enters (an HTTP body, query or header, an MQTT payload, a dealer command, a console
line, a profile, a key or PIN file) it is checked by :func:`problem` / :func:`checked`:

- Unicode scalar values only: no lone surrogate (``"\\ud800"`` in JSON, or undecodable bytes
  read with ``surrogateescape``), which no UTF-8 journal, hash or database can hold;
- no control character: C0 (U+0000 to U+001F), DEL and C1 (U+0080 to U+009F, U+009B the
  terminals' CSI among them), unless the field allows it (:data:`TAB`, :data:`LINES`);
- no bidirectional control (:data:`BIDI`: the embeddings, overrides and isolates, the marks
  LRM, RLM, ALM) and no line or paragraph separator (U+2028, U+2029), unless the field allows
  them: they make what is shown differ from what is stored;
- at most the field's number of characters, checked first, so a long text costs no more.

Where text leaves for a person (a terminal, an export, a log line) it goes through
:func:`escaped`: every character the policy refuses becomes ``\\uXXXX``, so nothing a peer
wrote can move a cursor, retitle a terminal, ring its bell or reverse what follows. Applied to
a JSON text, the result is the same JSON value (``\\uXXXX`` is JSON's own escape), which
:func:`json_line` relies on.

Small files a face reads (a key, a PIN hash, a secret) are read by :func:`read_file` and
:func:`read_text`: never blocking on a FIFO, a regular file only, bounded.

This module is below every layer (as :mod:`firmware_host.errors` is): the rules, the
controllers, the journal, the web layer, the feed and the CLI all import it.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import stat
from typing import Any

from firmware_host.errors import TablehostError

__all__ = [
    "BIDI",
    "LINES",
    "TAB",
    "TextError",
    "checked",
    "escaped",
    "json_line",
    "json_ready",
    "problem",
    "read_file",
    "read_text",
    "json_surrogate",
    "surrogate_in",
]

#: The bidirectional formatting characters (Unicode's Bidi_Control): ALM, LRM, RLM, the
#: embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and the isolates (LRI, RLI, FSI, PDI).
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
#: What a field that holds a tab may allow.
TAB = "\t"
#: What a field of several lines may allow (a file's text).
LINES = "\t\n"
#: Every character the policy refuses unless a field allows it: C0, DEL, C1, the bidi controls,
#: the line and paragraph separators, and the surrogates (U+D800 to U+DFFF: only ever alone in a str).
_REFUSED = "\x00-\x1f\x7f-\x9f" + BIDI + "\u2028\u2029\ud800-\udfff"
_SURROGATE = re.compile("[\ud800-\udfff]")
#: A JSON escape of a surrogate (a pair's half or a lone one), and what precedes it.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class TextError(TablehostError, ValueError):
    """Text refused by the policy; the message names the field and why."""


@functools.cache
def _refused(allow: str) -> re.Pattern[str]:
    """The characters refused in a field that allows ``allow`` (sorted, so one pattern a set)."""
    kept = "".join(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in allow)
    return re.compile(f"(?![{kept}])[{_REFUSED}]" if kept else f"[{_REFUSED}]")


def _name(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # what Python's surrogateescape makes of a byte that is not UTF-8
        return f"a byte 0x{code - 0xDC00:02X} that is not UTF-8 (U+{code:04X})"
    if 0xD800 <= code <= 0xDFFF:
        return f"a lone surrogate U+{code:04X} (not Unicode text)"
    if char in BIDI:
        return f"a bidirectional control U+{code:04X}"
    if char in "\u2028\u2029":
        return f"a line separator U+{code:04X}"
    return f"a control character U+{code:04X}"


def problem(value: str, longest: int, allow: str = "") -> str | None:
    """Why ``value`` is refused in a field of at most ``longest`` characters that allows the
    characters of ``allow``, or None when it passes (the length is checked first)."""
    if len(value) > longest:
        return f"longer than {longest} characters"
    found = _refused(allow).search(value)
    if found is None:
        return None
    return f"holds {_name(found.group())} at character {found.start() + 1}"


def checked(value: object, what: str, longest: int, allow: str = "") -> str:
    """``value`` when it is text that passes :func:`problem`.

    :raises TextError: not text, or why not, naming ``what``.
    """
    if not isinstance(value, str):
        raise TextError(f"{what} must be text, not a {type(value).__name__}")
    why = problem(value, longest, allow)
    if why is not None:
        raise TextError(f"{what} {why}")
    return value


def read_file(path: str | os.PathLike[str], longest: int) -> bytes:
    """The bytes of a small file a face reads (a key, a PIN hash, a secret): opened without blocking
    and checked to be a regular file before a byte is read (a FIFO never hangs the reader, a
    directory is named), at most ``longest`` bytes.

    :raises OSError: it cannot be opened or read; :class:`TextError`: not a regular file, or larger.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TextError("not a regular file")
        data = os.read(fd, longest + 1)
    finally:
        os.close(fd)
    if len(data) > longest:
        raise TextError(f"larger than {longest} bytes")
    return data


def read_text(path: str | os.PathLike[str], longest: int, allow: str = LINES) -> str:
    """A small text file (:func:`read_file`) as UTF-8 within the text policy (lines and tabs allowed).

    :raises OSError: it cannot be read; :class:`TextError`: not a regular file, larger, not UTF-8,
        or a character the policy refuses.
    """
    try:
        text = read_file(path, longest).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextError(f"not UTF-8 text (byte {exc.start})") from None
    return checked(text, "its text", longest, allow)


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escaped(value: str, keep: str = "") -> str:
    """``value`` with every character the policy refuses written as ``\\uXXXX`` (those of ``keep``
    left as they are): safe on a terminal, in a log line or an export."""
    return _refused(keep).sub(_escape, value)


def json_line(value: Any) -> str:
    """One JSON line of ``value`` for a terminal or an export (sorted keys, UTF-8 kept as it
    is, every character the policy refuses escaped), with its newline."""
    return escaped(json.dumps(value, sort_keys=True, ensure_ascii=False)) + "\n"


def surrogate_in(value: Any) -> bool:
    """Whether a parsed JSON value holds a lone surrogate in any text, key or value (its UTF-8
    encoding fails: one pass in C, whatever the nesting the parser allowed)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def json_surrogate(text: bytes, value: Any) -> bool:
    """Whether ``value``, parsed from the UTF-8 JSON ``text``, holds a lone surrogate. Only a
    ``\\uD800`` to ``\\uDFFF`` escape can make one, so a text without one costs a regular
    expression's scan and no more."""
    return _SURROGATE_ESCAPE.search(text) is not None and surrogate_in(value)


def json_ready(value: Any) -> Any:
    """``value`` made JSON-ready the same way every time: lone surrogates escaped, keys text,
    tuples lists, a number that is not finite or a value of another type by its escaped
    ``repr``. A JSON-ready value comes back equal to itself."""
    if isinstance(value, str):
        return _SURROGATE.sub(_escape, value)
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        return {json_ready(k if isinstance(k, str) else repr(k)): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return escaped(repr(value))
