"""A terminal login, in a real terminal: the app is suspended while it runs, and comes back.

The demo agent asks for a login at the first prompt; the user picks "Log in from the terminal",
and its login (``--login --login-seconds N``) prints a line a second before it asks for "yes".
While it runs acp-tui is suspended and must write nothing at all: its refresh timers once
filled the stopped driver's writer queue and froze the app for good (about 17 s in). These
drive the real app through a pseudo-terminal, as a user's terminal would.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import termios
import time
from pathlib import Path

import pytest

from acp_tui.client.process import watchdog
from tests.reap_helpers import children, wait_for_child, wait_gone
from tests.terminal import Terminal, acp_tui_argv

pytestmark = pytest.mark.skipif(not watchdog.have_proc(), reason="needs Linux /proc")

SYNC = b"\x1b[?2026"
"""The start or end of a synchronized update: Textual writes one around every frame."""


def demo_agent(data: Path, protocol: int, seconds: int) -> list[str]:
    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data)]
    argv += ["--require-auth", "--auth-on", "session/prompt", "--login-seconds", str(seconds)]
    return [*argv, "--protocol", str(protocol)] if protocol > 1 else argv


def start_login(term: Terminal) -> int:
    """Send a prompt, pick the terminal login in the dialog; returns where its output starts."""
    term.wait_for(re.compile(r"·\s+ready"), timeout=60)
    term.type("hello\r")
    term.wait_for("Log in from the terminal")
    time.sleep(1.5)  # the keyboard quiet, as a person reading the dialog
    start = len(term.output)
    term.press("tab")  # no button has the focus at first: to "Demo login", then to this one
    time.sleep(0.3)
    term.press("tab")
    time.sleep(0.3)
    term.press("enter")
    return term.wait_for_output(b"terminal login", start=start)


@pytest.mark.parametrize(
    ("protocol", "seconds"),
    # A minute, as the logins that froze it; v2 for 20 s, past the ~17 s the freeze took.
    [(1, 60), (2, 20)],
    ids=["v1", "v2"],
)
def test_a_long_login_leaves_the_app_alive_and_silent(
    tmp_path: Path, protocol: int, seconds: int
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    argv = acp_tui_argv(
        "--protocol", str(protocol), "--", *demo_agent(tmp_path / "d", protocol, seconds)
    )
    with Terminal(argv, project, cols=160) as term:
        begun = start_login(term)
        asked = term.wait_for_output(b"Type 'yes' to log in", timeout=seconds + 30, start=begun)
        assert term.process.poll() is None
        # Nothing but the login's own output while suspended: not one frame of the app's.
        during = bytes(term.output[begun:asked])
        assert SYNC not in during, during[-400:]
        assert f"{seconds}/{seconds} s".encode() in during
        term.send("yes\r")
        screen = term.wait_for("You said", timeout=30)
        # The login's exit and output are shown once the app is back, and the prompt that
        # needed it went out once.
        screen = term.wait_for(lambda text: "Logged in." in text and "exit" in text)
        assert screen.count("You said") == 1, screen
        term.press("ctrl+q")
        assert term.wait(timeout=30) == 0


def test_sigterm_during_a_login_ends_the_app_the_login_and_the_agents(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    argv = acp_tui_argv("--", *demo_agent(tmp_path / "d", 1, 60))
    with Terminal(argv, project, cols=160) as term:
        begun = start_login(term)
        term.wait_for_output(b"1/60 s", start=begun, timeout=30)
        login = wait_for_child(term.process.pid, "--login")
        others = {
            proc.pid: proc
            for proc in watchdog.snapshot().values()
            if proc.ppid == term.process.pid and not proc.zombie
        }
        sent = time.monotonic()
        term.process.send_signal(signal.SIGTERM)
        code = term.wait(timeout=30)
        took = time.monotonic() - sent
        assert code == 128 + signal.SIGTERM
        # The normal way out (the hard one comes only after 10 s): nothing waited for the login.
        assert took < 8, took
        wait_gone({"login": login, **{str(pid): proc for pid, proc in others.items()}})
        assert not children(term.process.pid, "acp_tui")
        # The terminal is given back as it was found: not left raw.
        mode = termios.tcgetattr(term.slave)
        assert mode[3] & termios.ICANON
        assert mode[3] & termios.ECHO
        assert os.isatty(term.slave)
