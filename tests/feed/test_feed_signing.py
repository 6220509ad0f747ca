"""The feed's Ed25519 keys: ``tablehost feed keygen``, the table's private key file, the
collector's public key directory, and what a signature covers."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.floor.tables import start_table, table_profile
from firmware_host.cli import main
from firmware_host.feed import schema, signing
from firmware_host.feed.signing import Keyring, Signer, SigningKeyError
from tests.support.feed_records import payloads


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def test_keygen_writes_a_private_key_0400_and_its_public_key(tmp_path: Path) -> None:
    status, out, _ = cli("feed", "keygen", "BAC-12", "--out", str(tmp_path))
    private, public = tmp_path / "BAC-12.key", tmp_path / "BAC-12.pub"
    assert status == 0 and stat.S_IMODE(private.stat().st_mode) == 0o400
    signer = Signer.from_file(private)
    assert f"its public key, id {signer.key_id}" in out
    assert set(signing.load_public_keys(public)) == {signer.key_id}


def test_keygen_never_overwrites_a_key(tmp_path: Path) -> None:
    assert cli("feed", "keygen", "BAC-12", "--out", str(tmp_path))[0] == 0
    before = (tmp_path / "BAC-12.key").read_bytes()
    status, out, err = cli("feed", "keygen", "BAC-12", "--out", str(tmp_path))
    assert status == 2 and err.count("\n") == 1 and "exists already; a key is never overwritten" in err
    assert (tmp_path / "BAC-12.key").read_bytes() == before


@pytest.mark.parametrize(
    "argv, why",
    [
        (["feed", "keygen", "../etc/x"], "table id '../etc/x': expected"),
        (["feed", "keygen", "T1", "--out", "/proc/nope"], "--out /proc/nope: not a directory"),
    ],
)
def test_keygen_careless_arguments_are_one_line(argv: list[str], why: str) -> None:
    status, _, err = cli(*argv)
    assert status == 2 and err.count("\n") == 1 and why in err


@pytest.mark.parametrize("mode", [0o600, 0o440, 0o644, 0o000])
def test_a_private_key_looser_than_0400_or_unreadable_is_refused_naming_it(tmp_path: Path, mode: int) -> None:
    signing.keygen(tmp_path / "T1.key", tmp_path / "T1.pub")
    key = tmp_path / "T1.key"
    key.chmod(mode)
    if mode == 0 and os.geteuid() == 0:
        pytest.skip("root reads any file")
    why = "cannot read" if mode == 0 else f"mode {mode:04o} is looser than 0400; chmod 0400 {key}"
    with pytest.raises(SigningKeyError, match=why):
        Signer.from_file(key)


def test_a_file_that_is_no_ed25519_key_is_refused(tmp_path: Path) -> None:
    for name, text in (("garbage.key", b"not a key\n"), ("missing.key", None)):
        path = tmp_path / name
        if text is not None:
            path.write_bytes(text)
            path.chmod(0o400)
        with pytest.raises(SigningKeyError, match=f"feed signing key {path}: (not an unencrypted PEM|cannot read)"):
            Signer.from_file(path)


def test_a_table_with_a_loose_signing_key_does_not_start(tmp_path: Path) -> None:
    profile = table_profile(tmp_path, feed='broker = "mqtt://127.0.0.1:1"')
    key = tmp_path / "keys" / "SIM-BAC-1.key"
    key.chmod(0o644)
    table = start_table(profile, tmp_path / "journal.sqlite", 1)
    _, err = table.communicate(timeout=60)
    assert table.returncode == 2 and err.strip().count("\n") == 0 and f"feed signing key {key}: mode 0644" in err


def test_a_feed_section_without_a_signing_key_is_refused(tmp_path: Path) -> None:
    from firmware_host.config.profiles import load_table
    from firmware_host.errors import ProfileError

    with pytest.raises(ProfileError, match="feed.signing_key"):
        load_table(table_profile(tmp_path, feed='broker = "mqtt://f"\n# no signing_key: refused'))


def test_the_collector_needs_keys_or_an_explicit_unsigned(tmp_path: Path) -> None:
    status, _, err = cli("floor", "--broker", "mqtt://127.0.0.1:1", "--db", str(tmp_path / "f.sqlite"))
    assert status == 2 and "give --keys DIR (the tables' public keys), or --unsigned" in err
    status, _, err = cli(
        "floor", "--broker", "mqtt://127.0.0.1:1", "--db", str(tmp_path / "f.sqlite"), "--keys", str(tmp_path / "none")
    )
    assert status == 2 and err.count("\n") == 1 and f"public key directory {tmp_path / 'none'}: cannot read" in err


def test_a_signature_covers_every_field_and_not_the_chain_of_keys() -> None:
    signer = Signer(Ed25519PrivateKey.generate())
    keys = {signer.key_id: signer._private.public_key()}
    message = signer.sign(schema.check_message(payloads()[-1]))
    assert signing.verify(message, keys) is None
    assert signer.sign(message) == message  # deterministic: a resend is the same bytes
    for name, value in [
        ("data", {"round": 1, "winner": "player"}),
        ("seq", 7),
        ("table", "T2"),
        ("at", 1.0),
        ("hash", "1" * 64),
        ("key_id", "0" * 16),
    ]:
        assert signing.verify({**message, name: value}, keys) is not None, name
    assert signing.verify({**message, "sig": "zz"}, keys) == "key_id is not 16 hex digits, or sig not 128"
    assert schema.message_hash(message) == message["hash"]  # the hash leaves the signature out


def _key_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """A collector's key directory holding T1's public key (looked at again at every call); T1's key id."""
    monkeypatch.setattr(signing, "RELOAD_EVERY_S", 0.0)
    key = signing.keygen(tmp_path / "T1.key", tmp_path / "T1.pub")
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "T1.pub").write_bytes((tmp_path / "T1.pub").read_bytes())
    return key, keys


def test_the_keyring_reads_each_tables_file_and_sees_a_rotation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_id, keys = _key_directory(tmp_path, monkeypatch)
    (keys / "README").write_text("not a key file: ignored\n")
    keyring = Keyring(keys)
    assert keyring.tables == {"T1"} and set(keyring.keys("T1")) == {old_id}
    new = Ed25519PrivateKey.generate().public_key()
    both = (tmp_path / "T1.pub").read_bytes() + new.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    (keys / "T1.pub.tmp").write_bytes(both)
    os.replace(keys / "T1.pub.tmp", keys / "T1.pub")  # renamed into place, as docs/feed.md says
    assert set(keyring.keys("T1")) == {old_id, signing.key_id(new)}
    (keys / "T1.pub.tmp").write_bytes(b"garbage")
    os.replace(keys / "T1.pub.tmp", keys / "T1.pub")  # a bad file later: the table keeps the keys it had
    assert set(keyring.keys("T1")) == {old_id, signing.key_id(new)}


def test_bad_files_in_the_key_directory_are_skipped_named_once_and_never_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 29 item 6: a malformed file, a FIFO, a directory, a dangling link or a name that is
    no table id in --keys is skipped and named once; the good tables are read; nothing hangs."""
    good, keys = _key_directory(tmp_path, monkeypatch)
    (keys / "T2.pub").write_text("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
    (keys / "T3.pub").write_text("")
    os.mkfifo(keys / "T4.pub")  # opened blocking, this hung the collector's start
    (keys / "T5.pub").mkdir()
    (keys / "T6.pub").symlink_to(keys / "nowhere")
    (keys / "bad\x1b[2J.pub").write_bytes((tmp_path / "T1.pub").read_bytes())
    with caplog.at_level(logging.ERROR, logger="tablehost.floor"):
        keyring = Keyring(keys)
        assert keyring.tables == {"T1"} and set(keyring.keys("T1")) == {good}
        assert sorted(keyring.skipped) == ["T2.pub", "T3.pub", "T4.pub", "T5.pub", "T6.pub", "bad\x1b[2J.pub"]
        assert "a PEM block" in keyring.skipped["T2.pub"] and "no PEM public key" in keyring.skipped["T3.pub"]
        assert "not a regular file" in keyring.skipped["T4.pub"] and "not a regular file" in keyring.skipped["T5.pub"]
        assert "cannot read" in keyring.skipped["T6.pub"]
        (keys / "T1.pub").touch()  # the directory looked at again: the same files are not named again
        os.utime(keys, None)
        assert keyring.tables == {"T1"}
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 6, lines
    assert not any("\x1b" in line for line in lines) and any("\\u001b[2J" in line for line in lines)
