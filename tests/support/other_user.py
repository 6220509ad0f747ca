"""Running a piece of tablehost as another user (issue 30: the web face's own uid).

Only root can start a process as another user; CI runs as root. The test interpreter may live
where that user cannot reach (a pyenv under ``/root``): then a system ``python3`` of the same
version is used, with the repository and this interpreter's site-packages on its path.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
from typing import Any

import pytest

from tests.support.paths import REPO

__all__ = ["OtherUser", "other_user"]


class OtherUser:
    """A user of this machine and how to run Python as it."""

    def __init__(self, name: str, group: str, argv: list[str], env: dict[str, str]) -> None:
        self.name, self.group = name, group
        self.uid, self.gid = pwd.getpwnam(name).pw_uid, pwd.getpwnam(name).pw_gid
        self.argv, self.env = argv, env

    def popen(self, *args: str, **options: Any) -> subprocess.Popen[str]:
        """``python ARGS`` as this user (no supplementary groups)."""
        return subprocess.Popen(
            [*self.argv, *args],
            user=self.name,
            group=self.group,
            extra_groups=[],
            env=self.env,
            cwd="/",
            text=True,
            **options,
        )

    def run(self, code: str) -> str:
        """Run ``python -c CODE`` as this user; its standard output."""
        done = subprocess.run(
            [*self.argv, "-c", code],
            user=self.name,
            group=self.group,
            extra_groups=[],
            env=self.env,
            cwd="/",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout


def other_user(name: str = "nobody", group: str = "nogroup") -> OtherUser:
    """``name`` (in ``group``) as an :class:`OtherUser`; the test is skipped where this process
    cannot start one (not root, no such user, no interpreter that user can run)."""
    if os.geteuid() != 0:
        pytest.skip("only root can start a process as another user")
    try:
        pwd.getpwnam(name)
        import grp

        grp.getgrnam(group)
    except KeyError:
        pytest.skip(f"no user {name} or group {group} on this machine")
    env = {"PATH": "/usr/bin:/bin", "TABLEHOST_CLOCK": os.environ.get("TABLEHOST_CLOCK", "")}
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for argv, path in (
        ([sys.executable], str(REPO)),
        ([shutil.which(version, path=env["PATH"]) or f"/usr/bin/{version}"], None),
    ):
        pythonpath = path or os.pathsep.join([str(REPO), sysconfig.get_paths()["purelib"]])
        candidate = {**env, "PYTHONPATH": pythonpath}
        try:
            done = subprocess.run(
                [*argv, "-c", "import starlette, firmware_host"],
                user=name,
                group=group,
                extra_groups=[],
                env=candidate,
                cwd="/",
                capture_output=True,
                timeout=60,
            )
        except (PermissionError, FileNotFoundError):
            continue
        if done.returncode == 0:
            return OtherUser(name, group, argv, candidate)
    pytest.skip(f"no Python {name} can run tablehost with")
