"""The CLI's exit (issue 13): what the command wrote arrives, then the process leaves at once.

``montecarlo.cli.leave`` skips the interpreter's teardown (0.4 s of a cold
matchup) with ``os._exit`` after flushing, unless another thread or a child
process still runs, when it exits the usual way.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import threading

import pytest

from montecarlo import cli


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "montecarlo", *args], capture_output=True, text=True, timeout=300
    )


def test_the_whole_output_arrives_through_a_pipe():
    """Block-buffered stdout is flushed before the process leaves."""
    done = _run("units")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) > 10  # a header and the shipped roster
    assert lines[0].split()[:2] == ["name", "hp"]
    assert done.stderr == ""


def test_bad_input_still_exits_2_with_its_one_line():
    done = _run("matchup", "pikeman:x", "knight:3")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().count("\n") == 0
    assert "pikeman" in done.stderr.lower() and "error" in done.stderr


class Left(Exception):
    """Raised by the stand-in for ``os._exit``: the process would have ended here."""


@pytest.fixture
def calls(monkeypatch):
    """What leave() did, in order: "flush" per stream flushed, then the exit status."""
    done: list = []

    def fake_exit(status):
        done.append(status)
        raise Left

    monkeypatch.setattr(cli.os, "_exit", fake_exit)
    return done


class Stream:
    def __init__(self, calls):
        self.calls = calls

    def flush(self):
        self.calls.append("flush")


def test_leave_flushes_then_exits_at_once(monkeypatch, calls):
    monkeypatch.setattr(sys, "stdout", Stream(calls))
    monkeypatch.setattr(sys, "stderr", Stream(calls))
    with pytest.raises(Left):
        cli.leave(3)
    assert calls[:2] == ["flush", "flush"]  # stdout, stderr (then logging's handlers)
    assert calls[-1] == 3 and 3 not in calls[:-1]


def test_leave_exits_the_usual_way_while_another_thread_runs(monkeypatch):
    monkeypatch.setattr(cli.os, "_exit", lambda status: pytest.fail("os._exit with a live thread"))
    release = threading.Event()
    worker = threading.Thread(target=release.wait)
    worker.start()
    try:
        with pytest.raises(SystemExit) as exc:
            cli.leave(4)
        assert exc.value.code == 4
    finally:
        release.set()
        worker.join()


def test_leave_skips_a_missing_stream(monkeypatch, calls):
    """pythonw, services and a descriptor closed at start-up leave sys.stdout None."""
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(Left):
        cli.leave(0)
    assert calls[-1] == 0


def test_output_lost_to_a_full_disk_is_not_a_success(monkeypatch, calls):
    class Full:
        def flush(self):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys, "stdout", Full())
    with pytest.raises(Left):
        cli.leave(0)
    assert calls[-1] == 120  # as Python's own exit does when its final flush fails


def test_a_closed_stdout_descriptor_still_exits_with_the_status():
    """Started with descriptor 1 closed (``>&-``), Python has no sys.stdout at all."""
    command = f"exec {shlex.quote(sys.executable)} -m montecarlo units >&-"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
