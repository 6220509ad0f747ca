"""The table's loop keeps a core to itself when its web face is a process of its own (issue 30
item 4, :mod:`firmware_host.host.cpus`): the service on the lowest CPU it may use, the web face on
the others; ``--cpus`` is outside input (a unit's command line), parsed strictly."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.host import cpus
from tests.cli.test_webface_priority import ended, forked
from tests.display.test_run_http import sim_profile
from tests.support.paths import REPO

TWO_CPUS = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs this process may use")


@given(st.frozensets(st.integers(0, 255), max_size=12))
def test_the_service_keeps_the_lowest_cpu_and_the_web_face_has_the_rest(allowed: frozenset[int]) -> None:
    placed = cpus.split(allowed)
    if len(allowed) < 2:
        assert placed is None
        assert cpus.parse_cpus("auto", allowed, allowed) == allowed  # one CPU: nothing placed
        return
    assert placed is not None
    service, web = placed
    assert service == {min(allowed)} and web == allowed - service and web
    assert cpus.parse_cpus("auto", allowed, allowed) == web


@given(st.text(max_size=30))
def test_a_cpus_argument_is_a_list_of_allowed_cpus_or_refused_with_why(text: str) -> None:
    allowed = frozenset({0, 1, 2, 3})
    try:
        parsed = cpus.parse_cpus(text, allowed, allowed)
    except ValueError as exc:
        assert str(exc)  # says what and why
        return
    assert parsed <= allowed and parsed
    assert text == "auto" or parsed == {int(part) for part in text.split(",")}


def test_a_cpus_argument_names_its_fault() -> None:
    present = frozenset({0, 1, 2, 3})
    assert cpus.parse_cpus("1,3", frozenset({0}), present) == {1, 3}  # not yet allowed, but present
    assert cpus.parse_cpus("auto", frozenset({2, 3}), present) == {3}
    for bad, why in (("1,,2", "separated by commas"), ("7", "CPUs are [0, 1, 2, 3]"), ("٣", "separated by commas")):
        with pytest.raises(ValueError, match=re.escape(why)):
            cpus.parse_cpus(bad, frozenset({0, 1}), present)


def _affinities(pid: int) -> set[frozenset[int]]:
    return {frozenset(os.sched_getaffinity(int(task.name))) for task in Path(f"/proc/{pid}/task").iterdir()}


def _kept_and_given_back() -> None:
    threading.Thread(target=signal.pause, daemon=True).start()
    allowed = os.sched_getaffinity(0)
    with cpus.kept_to({min(allowed)}):
        assert _affinities(os.getpid()) == {frozenset({min(allowed)})}
    assert _affinities(os.getpid()) == {frozenset(allowed)}


@TWO_CPUS
def test_kept_to_moves_every_thread_and_gives_them_back() -> None:
    ended(forked(_kept_and_given_back))  # in a child: this worker's own CPUs are never touched


@TWO_CPUS
def test_tablehost_run_keeps_the_lowest_cpu_and_its_web_face_runs_on_the_others(tmp_path: Path) -> None:
    allowed = os.sched_getaffinity(0)
    argv = [sys.executable, "-m", "firmware_host", "run", "--profile", str(sim_profile(tmp_path))]
    argv += ["--rounds", "500", "--pace", "0.5", "--journal", str(tmp_path / "j.sqlite"), "--http", "127.0.0.1:0"]
    service = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert service.stdout is not None
        for line in service.stdout:  # said once the web face serves
            if "dealer display" in line:
                break
        children = Path(f"/proc/{service.pid}/task/{service.pid}/children").read_text().split()
        assert len(children) == 1
        assert _affinities(service.pid) == {frozenset({min(allowed)})}
        assert _affinities(int(children[0])) == {frozenset(allowed - {min(allowed)})}
    finally:
        service.send_signal(signal.SIGTERM)
        service.communicate(timeout=60)
