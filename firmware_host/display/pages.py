"""The dealer display's page: one skeleton (``static/dealer-page.html``) that every game shares,
filled with the game's own parts (``static/<game>-dealer.html``: its header facts, play area,
action buttons, clocks, recent-rounds title, entry dialog and start function).

A part begins with a line ``<!-- part: NAME -->``; what follows on that line and the lines up to
the next part are its text.
"""

from __future__ import annotations

import functools
import re
import string
from pathlib import Path

from firmware_host.errors import TablehostError

__all__ = ["dealer_page", "PageError"]

STATIC = Path(__file__).with_name("static")

#: The line a part begins with; its text follows on the same line and up to the next part.
_PART = re.compile(r"^<!-- part: (\w+) -->", re.M)


class PageError(TablehostError, ValueError):
    """A game's page parts do not fill the shared skeleton (a part missing or unknown)."""


def parts(text: str) -> dict[str, str]:
    """The parts of a game's page file, by name, each without its trailing newline."""
    found = list(_PART.finditer(text))
    return {match.group(1): text[match.end():(found[i + 1].start() if i + 1 < len(found) else len(text))].strip("\n")
            for i, match in enumerate(found)}  # fmt: skip


@functools.cache
def dealer_page(game: str, static: Path = STATIC) -> str:
    """The dealer display's HTML for ``game`` (``"baccarat"``, ``"paigow"``), built once.

    :raises PageError: the game's parts leave a slot of the skeleton empty, or name one it has not.
    """
    skeleton = string.Template((static / "dealer-page.html").read_text(encoding="utf-8"))
    given = parts((static / f"{game}-dealer.html").read_text(encoding="utf-8"))
    slots = {name for _, name, braced, _ in skeleton.pattern.findall(skeleton.template) if name or braced} - {"game"}
    if missing := slots - given.keys():
        raise PageError(f"{game}-dealer.html: no part {', '.join(sorted(missing))}")
    if unknown := given.keys() - slots:
        raise PageError(f"{game}-dealer.html: part {', '.join(sorted(unknown))} has no place in dealer-page.html")
    return skeleton.substitute(given, game=game)
