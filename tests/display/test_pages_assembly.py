"""The dealer page: the shared skeleton filled with each game's parts (firmware_host/display/pages.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.display.pages import STATIC, PageError, dealer_page


@pytest.mark.parametrize("game", ["baccarat", "paigow"])
def test_every_slot_of_the_skeleton_is_filled(game: str) -> None:
    page = dealer_page(game)
    assert "$" not in page and f'data-game="{game}"' in page and f'src="/static/{game}.js"' in page
    assert page.count('id="devices"') == page.count('id="alerts"') == page.count('id="log"') == 1


def test_a_missing_or_unknown_part_is_named(tmp_path: Path) -> None:
    (tmp_path / "dealer-page.html").write_text((STATIC / "dealer-page.html").read_text())
    text = (STATIC / "baccarat-dealer.html").read_text()
    (tmp_path / "short-dealer.html").write_text(text.replace("<!-- part: recent -->", "<!-- part: recents -->"))
    with pytest.raises(PageError, match=r"short-dealer.html: no part recent"):
        dealer_page("short", tmp_path)
    (tmp_path / "extra-dealer.html").write_text(text + "<!-- part: footer -->x\n")
    with pytest.raises(PageError, match=r"part footer has no place"):
        dealer_page("extra", tmp_path)
