"""The rules text itself (``../shared/regulations/``, beside the checkout), for tests that check a
table of the code against the regulation's own words rather than against a copy of them.

CI lays ``shared/`` beside the clone, so there a missing text is a failure; a checkout without it
(a developer's laptop) skips those tests with the reason.
"""

from __future__ import annotations

import os
import re

import pytest

from tests.support.paths import REPO

#: Where the rules text is laid beside the checkout.
REGULATIONS = REPO.parent / "shared" / "regulations"

#: ch. 535 (Pai Gow) and ch. 541 (Minibaccarat) in one file.
CH535_CH541 = "pa-58-ch535-paigow-ch541-minibaccarat.txt"

#: The ordinal words the regulation ranks with ("First" .. "Twentieth").
ORDINALS = {
    word: rank
    for rank, word in enumerate(
        [
            "First",
            "Second",
            "Third",
            "Fourth",
            "Fifth",
            "Sixth",
            "Seventh",
            "Eighth",
            "Ninth",
            "Tenth",
            "Eleventh",
            "Twelfth",
            "Thirteenth",
            "Fourteenth",
            "Fifteenth",
            "Sixteenth",
            "Seventeenth",
            "Eighteenth",
            "Nineteenth",
            "Twentieth",
        ],
        start=1,
    )
}


def regulation_text(name: str) -> str:
    """The whole text of one regulation file; skipped (or, in CI, failed) when it is not there."""
    path = REGULATIONS / name
    if not path.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the rules text {path} is missing: CI lays shared/ beside the clone")
        pytest.skip(f"the rules text is not beside this checkout ({path})")
    return path.read_text(encoding="utf-8")


def subsection(text: str, section: str, letter: str) -> str:
    """Subsection ``(letter)`` of ``§ section`` up to the next subsection or section."""
    start = text.index(f"§ {section}. ")
    body = text[start : text.index("§ ", start + 2)]
    match = re.search(rf"(?m)^\({letter}\) (.*?)(?=^\([a-z]\) |\Z)", body, re.S)
    if match is None:
        raise AssertionError(f"§ {section}({letter}) not found in the rules text")
    return match.group(1)
