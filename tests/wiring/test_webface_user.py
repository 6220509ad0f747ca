"""The web face under a user of its own (issue 30): it serves the table and takes actions from the
face file the service writes for it (what the display may show), while it cannot open the journal
at all (every card before it is exposed, the protection data), the journal's key or the feed's
signing key; and a process of a uid the service does not allow is refused at the control socket."""

from __future__ import annotations

import grp
import json
import os
import shutil
import subprocess
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.display.table import BACCARAT, DEALER_PIN, Running, start, write_profile
from firmware_host.display.face_file import MODE as FACE_MODE
from firmware_host.display.face_file import face_path
from firmware_host.host.journal_keys import write_key
from tests.support.device_events import eventually
from tests.support.other_user import OtherUser, other_user
from tests.support.paths import REPO


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder other users may enter (pytest's tmp_path is root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="tablehost-web-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def open_to_group(paths: list[Path], gid: int) -> None:
    """Files the web user's group may read, never write (the face file and its -wal and -shm: the
    service makes them 0640 in its own group, which deploy/ puts the web user in)."""
    for path in paths:
        if path.exists():
            os.chown(path, -1, gid)
            assert path.stat().st_mode & 0o777 == FACE_MODE


def owners_only(paths: list[Path]) -> None:
    """The journal's files as the service's unit makes them (``UMask=0077``): its owner's alone."""
    for path in paths:
        if path.exists():
            path.chmod(0o600)


def side_files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def can_open(user: OtherUser, path: Path, mode: str = "rb") -> str:
    """What opening ``path`` as ``user`` does: ``opened`` or the exception's name."""
    code = f"try:\n    open({str(path)!r}, {mode!r}).close()\n    print('opened')\nexcept OSError as exc:\n    print(type(exc).__name__)"
    return user.run(code).strip()


def serve_as(user: OtherUser, profile: Path, journal: Path, socket: Path) -> tuple[subprocess.Popen[str], str]:
    """The web face as ``user`` (as systemd's tablehost-web.service runs it); and its display's URL."""
    process = user.popen(
        "-m", "firmware_host.cli.webface", "--profile", str(profile), "--devices-dir",
        str(REPO / "hardware-profiles" / "devices"), "--journal", str(journal), "--socket", str(socket),
        "--http", "127.0.0.1:0", stdout=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    said = json.loads(process.stdout.readline())
    assert "display" in said, said
    return process, said["display"]


def acknowledged(running: Running) -> bool:
    """Whether the journal holds the display's ``acknowledge`` as the dealer's DealerCommand."""
    return any(
        r.kind == "input" and r.type == "DealerCommand" and r.data["command"] == "acknowledge"
        and r.data["device"] == "display:dealer"
        for r in running.table.journal.records()
    )  # fmt: skip


def test_the_web_face_as_its_own_user_serves_and_acts_but_cannot_open_the_keys(folder: Path) -> None:
    user = other_user("nobody", "nogroup")
    group = grp.getgrnam(user.group).gr_gid
    journal_key, feed_key = folder / "journal.key", folder / "feed.key"
    write_key(journal_key)
    feed_key.write_bytes(os.urandom(32))
    for key in (journal_key, feed_key):
        key.chmod(0o600)  # the service user's alone
    profile = write_profile(folder, BACCARAT.format(decks=8, rules="") + '\n[journal]\nhmac_key_file = "journal.key"\n')
    profile.chmod(0o644)
    for pin in ("dealer.pin", "supervisor.pin"):
        os.chown(folder / pin, user.uid, -1)  # the PIN files are the web face's
    journal = folder / "journal.sqlite"
    running: Running = start(profile, journal, pace=0.02, web_face="external", web_user=user.name)
    process = None
    try:
        assert running.table.control is not None
        face = running.table.face
        assert face is not None and face.path == face_path(journal)
        owners_only(side_files(journal))
        open_to_group(side_files(face.path), group)
        assert can_open(user, journal_key) == can_open(user, feed_key) == "PermissionError"
        for path in side_files(journal):  # nothing of the journal: no card before it is exposed
            assert can_open(user, path) == can_open(user, path, "r+b") == "PermissionError", path
        assert can_open(user, face.path) == "opened"
        assert can_open(user, face.path, "r+b") == "PermissionError"  # it cannot write the face file

        process, url = serve_as(user, profile, journal, running.table.control.path)
        assert face.sync(30)
        target = face.written  # the last record the display may show
        eventually(lambda: json.load(urllib.request.urlopen(url + "/api/state", timeout=5))["seq"] >= target)
        seen = json.load(urllib.request.urlopen(url + "/api/state", timeout=5))["seq"]
        eventually(lambda: face.sync(5) and face.written > seen)  # the table deals on: the web face follows
        eventually(lambda: json.load(urllib.request.urlopen(url + "/api/state", timeout=5))["seq"] > seen)

        request = urllib.request.Request(
            url + "/api/action",
            json.dumps({"command": "acknowledge", "pin": DEALER_PIN}).encode(),
            {"Content-Type": "application/json"},
        )
        assert urllib.request.urlopen(request, timeout=30).status == 202
        eventually(lambda: acknowledged(running))  # journaled by the service, from the web face's action
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=10)
        running.stop()


def test_a_peer_of_another_uid_is_refused_at_the_control_socket(folder: Path) -> None:
    user = other_user("daemon", "daemon")
    profile = write_profile(folder, BACCARAT.format(decks=8, rules=""))
    running = start(profile, folder / "journal.sqlite", rounds=1, web_face="external", web_user="nobody")
    try:
        control = running.table.control
        assert control is not None
        control.path.chmod(0o666)  # past the file's mode: the peer's uid is what the service checks
        said = user.run(
            "from pathlib import Path\nfrom firmware_host.web.control import ControlClient, ControlError\n"
            f"try:\n    print(ControlClient(Path({str(control.path)!r})).request('status'))\n"
            "except ControlError:\n    print('refused')"
        )
        assert said.strip() == "refused"
        assert control.counts.get("peer", 0) >= 1
    finally:
        running.stop()
