"""The simulated shoe's contents, cut (§ 541.5(d)-(e)), resumption, fault settings and a batch loaded into it."""

from __future__ import annotations

import random
import re
import socket
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.codecs.shoe_messages import Card, CutCard, FaceUp, ShoeEmpty, Unreadable
from firmware_host.rules.baccarat.cards import full_shoe
from sim.devices.faults import LinkFaults, ShoeFaults, faults_from
from sim.devices.shoe import COVER_MIN_FROM_BOTTOM, CUT, CUT_MIN_FROM_END, SimShoe, build_shoe
from sim.errors import SimError


@given(st.integers(1, 8), st.integers(0, 2**32))
@settings(max_examples=30)
def test_541_5_a_shoe_holds_every_card_of_its_decks_once_per_deck(decks: int, seed: int) -> None:
    shoe = build_shoe(decks, random.Random(seed))
    cards = [c for c in shoe if c != CUT]
    assert len(cards) == 52 * decks
    assert set(Counter(cards).values()) == {decks}
    assert shoe.count(CUT) == 1


@given(st.integers(6, 8), st.integers(0, 2**32))
@settings(max_examples=30)
def test_541_5_e_cover_card_at_least_14_cards_above_the_bottom(decks: int, seed: int) -> None:
    shoe = build_shoe(decks, random.Random(seed))
    below = len(shoe) - 1 - shoe.index(CUT)
    assert 14 <= below <= 20


def test_541_5_e_fixed_cover_card_depth_is_honoured_and_checked() -> None:
    shoe = build_shoe(8, random.Random(1), cover_from_bottom=30)
    assert len(shoe) - 1 - shoe.index(CUT) == 30
    with pytest.raises(SimError, match="at least 14"):
        build_shoe(8, random.Random(1), cover_from_bottom=13)


def test_541_5_d_cut_moves_the_cards_above_the_cover_card_to_the_bottom() -> None:
    rng_a, rng_b = random.Random(5), random.Random(5)
    shoe = [c for c in build_shoe(1, rng_a, cover_from_bottom=14) if c != CUT]
    deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    rng_b.shuffle(deck)
    cut = rng_b.randint(10, 42)  # § 541.5(d): at least ten from either end
    assert shoe == deck[cut:] + deck[:cut]


def test_decks_outside_one_to_eight_are_refused() -> None:
    with pytest.raises(SimError, match="decks: 9"):
        build_shoe(9, random.Random(0))


def _draw_all(sim: SimShoe) -> list[object]:
    out = []
    while not isinstance((draw := sim.draw()).message, ShoeEmpty):
        out.append(draw.message)
    return out


def test_same_seed_same_shoe_and_resume_from_position() -> None:
    with SimShoe(seed=3) as first:
        whole = _draw_all(first)
    assert len(whole) == 417 and sum(isinstance(m, CutCard) for m in whole) == 1
    with SimShoe(seed=3, position=100) as resumed:
        assert resumed.remaining() == 416 - sum(isinstance(m, Card) for m in whole[:100])
        assert _draw_all(resumed) == whole[100:]


def test_reload_deals_the_next_shoe_of_the_seeded_sequence() -> None:
    with SimShoe(seed=3) as sim:
        first = sim.draw().card
        sim.reload()
        assert sim.shoe_number == 2 and sim.position == 0 and sim.remaining() == 416
        with SimShoe(seed=3, shoe_number=2) as second:
            assert sim.draw().card == second.draw().card
        assert first is not None


def test_scripted_shoe_and_burn_mode() -> None:
    with SimShoe(cards=["9S", CUT, "2H"], dialect="ascii") as sim:
        sim.burn_mode = True
        assert sim.draw().message == Card("9", "S", burn=True)
        sim.burn_mode = False
        assert sim.draw().message == CutCard()
        assert sim.remaining() == 1
        assert sim.draw().message == Card("2", "H")
        assert isinstance(sim.draw().message, ShoeEmpty) and isinstance(sim.draw().message, ShoeEmpty)


def test_card_faults_report_but_consume_the_card() -> None:
    with SimShoe(cards=["9S", "2H"], faults=ShoeFaults(unreadable_card=1.0)) as sim:
        draw = sim.draw()
        assert draw == type(draw)(Unreadable(), "9S") and sim.position == 1
    with SimShoe(cards=["9S"], faults=ShoeFaults(face_up_card=1.0)) as sim:
        assert sim.draw().message == FaceUp("9", "S")  # § 541.14(d)
    with SimShoe(cards=["9S", "2H"], faults=ShoeFaults(empty_early=1.0)) as sim:
        assert isinstance(sim.draw().message, ShoeEmpty) and sim.remaining() == 2  # § 541.14(e)


def test_bad_scripts_and_settings_are_clear_errors() -> None:
    with pytest.raises(SimError, match="scripted card 'XX'"):
        SimShoe(cards=["XX"])
    with pytest.raises(SimError, match="dialect 'morse'"):
        SimShoe(dialect="morse")
    with pytest.raises(SimError, match="unknown endpoint 'usb'"):
        SimShoe(endpoint="usb")
    with pytest.raises(SimError, match="position 5 is outside"):
        SimShoe(cards=["9S"], position=5)


def test_faults_from_profile_mapping_and_cli_text() -> None:
    assert faults_from(ShoeFaults, {"corrupt_byte": 0.01, "disconnect": 0.001}) == ShoeFaults(
        corrupt_byte=0.01, disconnect=0.001
    )
    assert faults_from(ShoeFaults, "drop_frame=0.5, unreadable_card=1") == ShoeFaults(
        drop_frame=0.5, unreadable_card=1.0
    )
    assert faults_from(LinkFaults, None) == LinkFaults()
    with pytest.raises(SimError, match="unknown fault jam"):
        faults_from(ShoeFaults, {"jam": 0.1})
    with pytest.raises(SimError, match="probability 1.5"):
        faults_from(ShoeFaults, "corrupt_byte=1.5")
    with pytest.raises(SimError, match="expected name=value"):
        faults_from(ShoeFaults, "corrupt_byte")
    with pytest.raises(SimError, match="'x' is not a number"):
        faults_from(ShoeFaults, "corrupt_byte=x")


def test_sim_accepts_the_drivers_identity_type() -> None:
    from drivers.codecs.framed import Identity as WireIdentity
    from drivers.device import Identity

    with SimShoe(identity=Identity("TS-8", "SN-9", "2.1.1", verified=True)) as sim:
        assert sim.link.identity == WireIdentity("TS-8", "SN-9", "2.1.1")  # type: ignore[union-attr]


# -- the simulated shoe loaded with a batch (§ 541.5(d)-(e)) -----------------------------------


def _shoe(**options: Any) -> SimShoe:
    return SimShoe(seed=5, **options)


def test_541_5_d_e_a_loaded_batch_is_cut_and_covered_and_keeps_every_card() -> None:
    batch = [str(card) for card in full_shoe(6)]
    random.Random(1).shuffle(batch)
    batch.append("9S")  # an extra card stays in: the audit must see it
    shoe = _shoe()
    try:
        shoe.load(batch)
        drawn = [card for card in shoe._cards]
        assert Counter(c for c in drawn if c != CUT) == Counter(batch)
        cover = drawn.index(CUT)
        assert len(drawn) - 1 - cover >= COVER_MIN_FROM_BOTTOM
        cut = next(i for i in range(len(batch)) if batch[i:] + batch[:i] == [c for c in drawn if c != CUT])
        assert CUT_MIN_FROM_END <= cut <= len(batch) - CUT_MIN_FROM_END
        assert shoe.position == 0 and shoe.remaining() == len(batch)
    finally:
        shoe.stop()


def test_a_card_that_cannot_be_is_not_loaded() -> None:
    shoe = _shoe()
    try:
        with pytest.raises(SimError, match="'1X'"):
            shoe.load(["1X"] * 40)
    finally:
        shoe.stop()


BURN_SCRIPT = [rank + suit for rank in "A23456789TJQK" for suit in "CDHS"][:40]


def _wire(sim: SimShoe, frames: int) -> list[str]:
    """The first ``frames`` frames a socket sim writes, as a host (or a serial monitor) reads them."""
    host, port = sim.url.removeprefix("socket://").rsplit(":", 1)
    data = b""
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        while data.count(b">") < frames:
            chunk = conn.recv(4096)
            assert chunk, "the sim closed the connection"
            data += chunk
    return re.findall(r"(?:\[[^\]]*\])?<[^>]*>", data.decode("ascii"))


def _burn_all(share: float, position: int = 0) -> list[str]:
    with SimShoe(
        dialect="ascii", endpoint="socket", seed=9, cards=BURN_SCRIPT, suit_first_burns=share, position=position
    ) as sim:
        sim.burn_mode = True
        for _ in BURN_SCRIPT[position:]:
            sim.draw()
        return _wire(sim, len(BURN_SCRIPT) - position)


def test_541_5_g_ascii_burn_cards_are_written_rank_first_by_default() -> None:
    with SimShoe(dialect="ascii", endpoint="socket", cards=["9S", "TH", "2C"]) as sim:
        assert sim.suit_first_burns == 0.0
        sim.burn_mode = True
        sim.draw()
        sim.draw()
        sim.burn_mode = False
        sim.draw()
        assert _wire(sim, 3) == ["[Manual Burn Cards]<Card:9S>", "[Manual Burn Cards]<Card:TH>", "[Game]<Card:2C>"]


def test_541_5_g_a_share_of_burns_goes_suit_first_seeded_per_draw() -> None:
    frames = _burn_all(0.5)
    cards = [frame.removeprefix("[Manual Burn Cards]<Card:").removesuffix(">") for frame in frames]
    suit_first = [card[::-1] for card in cards if card[0] in "CDHS"]
    rank_first = [card for card in cards if card[0] not in "CDHS"]
    assert suit_first and rank_first  # both orders, each card once, in shoe order
    assert [card if card[0] not in "CDHS" else card[::-1] for card in cards] == BURN_SCRIPT
    assert _burn_all(0.5) == frames  # the same seed writes the same orders ...
    assert _burn_all(0.5, position=25) == frames[25:]  # ... and so does a restarted sim
    assert all(card[0] in "CDHS" for card in (frame[-3:-1] for frame in _burn_all(1.0)))


def test_suit_first_game_cards_stay_rank_first() -> None:
    with SimShoe(dialect="ascii", endpoint="socket", cards=["9S", "TH"], suit_first_burns=1.0) as sim:
        sim.draw()
        sim.draw()
        assert _wire(sim, 2) == ["[Game]<Card:9S>", "[Game]<Card:TH>"]


@pytest.mark.parametrize(
    ("dialect", "share", "why"),
    [
        ("ascii", 1.5, "1.5 is not a share between 0 and 1"),
        ("ascii", -0.1, "is not a share between 0 and 1"),
        ("ascii", "half", "'half' is not a share"),
        ("ascii", True, "True is not a share"),
        ("framed", 0.2, "the framed dialect sends a card as fixed fields"),
    ],
)
def test_suit_first_burns_share_is_checked(dialect: str, share: object, why: str) -> None:
    with pytest.raises(SimError, match=f"suit_first_burns: .*{why}"):
        SimShoe(dialect=dialect, suit_first_burns=share)  # type: ignore[arg-type]
