"""The simulated tables the soak and the recovery tests run: profiles written into a directory.

:func:`make_profile` is the integration tests' simulated Baccarat table (a shoe on a
pseudo-terminal, mock GPIO, the simulated dealer); :func:`write_profile` is it with the
kill loop's decks, a keyed journal or a doctored allow-list; :func:`paigow_profile` and
:func:`shuffler_profile` copy the shipped simulated tables of ``hardware-profiles/tables``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

__all__ = [
    "REPO",
    "PROFILES",
    "SHOE_MODEL",
    "DECKS",
    "PAIGOW_SEED",
    "SHUFFLER_FAULTS",
    "SHUFFLE_SECONDS",
    "make_profile",
    "write_profile",
    "paigow_profile",
    "shuffler_profile",
    "set_approved",
    "quick_links",
]

#: The checkout: the service runs from it, its ``hardware-profiles`` are copied.
REPO = Path(__file__).resolve().parents[2]
PROFILES = REPO / "hardware-profiles"
#: The device model of the simulated shoe in :func:`make_profile`'s table.
SHOE_MODEL = "tablehost-ts8-2026"
#: § 541.3(a)'s fewest decks: a run reaches the cover card and the next shoe soonest.
DECKS = 6
#: Seed of the Pai Gow runs: its fault sequence holds every kind of no roll within 200 rounds.
PAIGOW_SEED = 7
#: The shuffler's faults per shuffle, lower than the shipped profile's (0.2): some shuffles go through.
SHUFFLER_FAULTS = "jam = 0.1, door_open = 0.1, missing_card = 0.1, extra_card = 0.1, unplug = 0.1, same_order = 0.1"
#: A shuffle takes this long (the shipped profile: no time), so kills land while one runs.
SHUFFLE_SECONDS = 0.2


def make_profile(
    directory: Path,
    *,
    model: str = SHOE_MODEL,
    variant: str = "standard",
    faults: str = "",
    dealer: str = "",
    shoe_sim: str = "",
    journal: str = "",
) -> Path:
    """A simulated Baccarat table profile in ``directory`` (device models copied beside it);
    ``shoe_sim``: more lines for ``[devices.shoe.sim]``; ``journal``: the ``[journal]`` table's lines."""
    shutil.copytree(PROFILES / "devices", directory / "devices")
    (directory / "tables").mkdir()
    path = directory / "tables" / "t.toml"
    path.write_text(f"""
[table]
id = "IT-BAC"
game = "baccarat"
decks = 8
[rules]
variant = "{variant}"
[devices.shoe]
model = "{model}"
port = "sim"
[devices.shoe.sim]
faults = {{ {faults} }}
{shoe_sim}
[gpio]
pin_factory = "mock"
buttons = {{ no_more_bets = 17, reveal = 27, card_disclosed = 22, void_round = 23, acknowledge = 24 }}
lamp = {{ green = 5, amber = 6, red = 13 }}
[sim.dealer]
{dealer}
[journal]
{journal}
""")
    return path


#: The kill loop's tables checkpoint every few rounds, so that kills land in checkpoint writes
#: and restarts start from checkpoints (issue 15).
CHECKPOINTS = "checkpoint_every_steps = 20"


def write_profile(
    directory: Path,
    *,
    faults: str = "",
    dealer: str = "",
    approved: str | None = None,
    shoe_sim: str = "",
    key_file: Path | None = None,
    decks: int = DECKS,
    journal: str = CHECKPOINTS,
) -> Path:
    """The integration tests' simulated Baccarat table in ``directory``, with ``decks`` decks.

    :param faults: the shoe sim's faults, TOML inline-table body (``"drop_frame = 0.01"``).
    :param dealer: the ``[sim.dealer]`` body (dealer errors).
    :param approved: replaces the shoe model's ``[approved]`` body (the firmware allow-list).
    :param shoe_sim: more lines for ``[devices.shoe.sim]``: the ``serial`` and ``firmware`` the sim
        reports, its ``endpoint``.
    :param key_file: the journal's HMAC key file (a keyed journal).
    :param journal: more lines for ``[journal]`` (default :data:`CHECKPOINTS`: kills land in checkpoint writes).
    """
    path = make_profile(directory, faults=faults, dealer=dealer)
    text = path.read_text().replace("decks = 8", f"decks = {decks}")
    text = text.replace("[devices.shoe.sim]\n", f"[devices.shoe.sim]\n{shoe_sim}\n")
    keyed = f'hmac_key_file = "{key_file}"\n' if key_file else ""
    path.write_text(text.replace("[journal]\n", f"[journal]\n{keyed}{journal}\n"))
    if approved is not None:
        set_approved(directory / "devices" / f"{SHOE_MODEL}.toml", approved)
    return path


def paigow_profile(directory: Path, name: str = "sim-paigow.toml") -> Path:
    """``make run-paigow``'s simulated Pai Gow table (faults included) in ``directory``, or
    another of ``hardware-profiles/tables`` by ``name`` (``sim-paigow-gpio-lid.toml``)."""
    shutil.copytree(PROFILES / "devices", directory / "devices")
    (directory / "tables").mkdir()
    path = directory / "tables" / name
    text = (PROFILES / "tables" / name).read_text()
    assert "[journal]\n" in text, f"the shipped profile {name} no longer has a [journal] table"
    path.write_text(text.replace("[journal]\n", f"[journal]\n{CHECKPOINTS}\n"))
    return path


def shuffler_profile(directory: Path, key_file: Path, *, comparable: bool = False) -> Path:
    """The shipped simulated shuffler table in ``directory``: 6-deck batches (§ 541.3(b): 12 to
    16 decks in two batches of 6 to 8), :data:`SHUFFLER_FAULTS`, shuffles of
    :data:`SHUFFLE_SECONDS`, a keyed journal.

    :param comparable: for runs compared with an uninterrupted one (``docs/recovery.md``,
        "Compared with an uninterrupted run"): a dealer who never errs, and no fault that
        pauses the table at a moment of wall time, the shoe's link outage (``disconnect``,
        rolled on the link's stream, which retransmissions draw from too) and the shuffler's
        pulled cable (``unplug``, half-way through a shuffle that runs while play goes on):
        a pause that catches the players betting refuses their wagers.
    """
    path = paigow_profile(directory, "sim-baccarat-shuffler.toml")
    text, _, _ = path.read_text().partition("[journal]")  # --journal names the journal
    faults = SHUFFLER_FAULTS.replace(", unplug = 0.1", "") if comparable else SHUFFLER_FAULTS
    comparable_only = (("card_drawn_in_error = 0.003", "card_drawn_in_error = 0"),
                       ("card_disclosed = 0.002", "card_disclosed = 0"),
                       (", disconnect = 0.001", "")) if comparable else ()  # fmt: skip
    for old, new in (("decks = 8 ", "decks = 6 "), ("decks_per_batch = 8", "decks_per_batch = 6"),
                     ("jam = 0.2, door_open = 0.2, missing_card = 0.2, extra_card = 0.2, unplug = 0.2, "
                      "same_order = 0.2", faults),
                     ("[devices.shuffler.sim]\n", f"[devices.shuffler.sim]\nshuffle_seconds = {SHUFFLE_SECONDS}\n"),
                     *comparable_only):  # fmt: skip
        assert old in text, f"the shipped profile no longer has {old!r}"
        text = text.replace(old, new)
    path.write_text(f'{text}[journal]\nhmac_key_file = "{key_file}"\n{CHECKPOINTS}\n')
    return path


def set_approved(model_file: Path, body: str) -> None:
    """Replace the ``[approved]`` section (the last one) of a device model file."""
    text = model_file.read_text()
    head, found, _ = text.partition("[approved]")
    assert found, f"{model_file} has no [approved] section"
    model_file.write_text(f"{head}[approved]\n{body}\n")


#: :func:`quick_links`' timeouts (the shoe's model: acks after 0.25 s, a heartbeat every second).
#: The first reconnect stays at the model's 0.5 s: sooner, it would find a pulled cable's port still
#: refusing (a ``port_missing`` fault) and back off, which takes longer and is another path.
QUICK_TIMEOUTS = {"ack_s": 0.1, "heartbeat_s": 0.3}


def quick_links(directory: Path, model: str = SHOE_MODEL) -> None:
    """Make the device model ``model`` copied into ``directory`` (``devices/MODEL.toml``) time out
    sooner (:data:`QUICK_TIMEOUTS`): a dropped frame is sent again after 0.1 s, and a silent device
    is lost after three missed heartbeats of 0.3 s. For the long runs with link faults whose checks
    hold whatever the timing: the same faults, retransmissions, losses and handshakes, with less
    waiting for them."""
    path = directory / "devices" / f"{model}.toml"
    text = path.read_text()
    for key in QUICK_TIMEOUTS:
        text = re.sub(rf"^{key} = .*\n", "", text, flags=re.MULTILINE)
    head, found, tail = text.partition("[timeouts]\n")
    assert found, f"{path} has no [timeouts] section"
    lines = "".join(f"{key} = {value}\n" for key, value in QUICK_TIMEOUTS.items())
    path.write_text(f"{head}[timeouts]\n{lines}{tail}")
