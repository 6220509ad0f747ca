"""Commands that answer standard input line by line (``baccarat resolve``, ``paigow hand``...).

One case per line in, one JSON object per line out, written and flushed as each line arrives
(so the command can sit at the end of a pipe that stays open). A line the rules refuse gets a
message on stderr naming its line number and why; the other lines are still answered, and the
exit status is :data:`EXIT_BAD_LINES`. Blank lines are skipped. A line is first checked by the text
policy (:mod:`firmware_host.text`: at most :data:`LINE_LONGEST` characters, no control character
but a tab, no bidirectional control, nothing undecodable); the messages are printed escaped.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.text import TAB, TextError, checked, escaped

#: Exit status when at least one line was refused.
EXIT_BAD_LINES = 1
#: The longest line answered (a round's cards or a hand's tiles are a few dozen characters).
LINE_LONGEST = 4096


def answer_lines(command: str, answer: Callable[[str], dict[str, Any]]) -> int:
    """Answer each stdin line with ``answer(line)`` as a JSON line; refused lines go to stderr.

    :param command: the command as the messages name it, e.g. ``"paigow hand"``.
    :param answer: the JSON-ready answer to one line (with its newline); raises
        :class:`~firmware_host.errors.RulesError` for a line it cannot answer.
    :returns: :data:`EXIT_BAD_LINES` if any line was refused, else 0.
    """
    bad_lines = 0
    for number, line in enumerate(iter(sys.stdin.readline, ""), start=1):
        if not line.strip():
            continue
        try:
            checked(line.rstrip("\r\n"), "the line", LINE_LONGEST, TAB)  # the text policy, before any parser
            document = answer(line)
        except (RulesError, TextError) as exc:
            bad_lines += 1
            print(escaped(f"tablehost {command}: line {number}: {exc}"), file=sys.stderr, flush=True)
            continue
        sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return EXIT_BAD_LINES if bad_lines else 0
