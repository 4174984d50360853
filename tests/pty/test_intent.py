"""The agent's questions take an answer only once the keyboard has been quiet, in a real terminal.

A dialog may appear while the user is typing: the keys meant for the prompt must answer
nothing, however long the typing goes on, and the dialog says they were dropped. Pilot delivers
Textual key events, so these drive the real app through a pseudo-terminal with the bytes a
terminal sends, at a person's typing speed.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

from tests.terminal import Terminal, acp_tui_argv

READY = re.compile(r"·\s+ready")

PERMISSION_TITLE = "Edit config.json"
"""The title of the demo agent's permission request (its keyword ``permission``)."""

IGNORED = "keys typed before this appeared were ignored"


def demo_agent(data: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data), *extra]


def start(tmp_path: Path, *agent_options: str) -> Terminal:
    """acp-tui on the demo agent in a terminal wide enough for the status line."""
    project = tmp_path / "project"
    project.mkdir()
    argv = acp_tui_argv("--", *demo_agent(tmp_path / "d", *agent_options))
    return Terminal(argv, project, cols=160)


def burst(
    term: Terminal,
    key: str,
    seconds: float,
    per_second: float = 10.0,
    gaps: list[float] | None = None,
) -> int:
    """Type ``key`` over and over for ``seconds``; returns how many were sent. ``gaps`` gets
    the time before each key, to tell a busy machine's stalled typist from the app's fault."""
    count = round(seconds * per_second)
    term.type(key * count, per_second=per_second, gaps=gaps)
    return count


STALL = 0.25
"""A pause of the typist this long (two and a half of its keys) is the machine's, not the
person's. The dialog takes a key after 0.8 s of quiet since it was drawn, and the test sees
only part of that time: not how long the app's frame took to reach its reader, nor how long
a key waited before the app's input thread read it. A machine that stalled the typist this
long can stall those too, and a key may then rightly answer. (At 0.4 s, a loaded run failed
with the typist 0.39 s late.)"""

ATTEMPTS = 3


def burst_at_the_dialog(tmp_path: Path) -> str | None:
    """Type a burst of `a` (Allow once) at the permission dialog, then one deliberate `a`.
    Returns why the run says nothing of the app (the typist was stalled and the burst
    answered), or None when it checked all it should."""
    with start(tmp_path) as term:
        term.wait_for(READY, timeout=60)
        asked_from = len(term.output)
        term.type("permission\r")
        term.wait_for(PERMISSION_TITLE)
        # `a` is "Allow once": ten a second for five seconds, all of it while the dialog shows.
        gaps: list[float] = []
        typing = time.monotonic()
        sent = burst(term, "a", seconds=5, gaps=gaps)
        screen = term.text()
        shown = term.read_at(b"Allow once", start=asked_from)  # the dialog's, none before
        late = typing + gaps[0] - shown if shown is not None else None
        told = (
            f"the typist's longest gap: {max(gaps):.2f} s; its first key went out "
            + (f"{late:.2f} s" if late is not None else "an unknown time")
            + " after the dialog was read"
        )
        if "You chose" in screen and (max(gaps) >= STALL or (late or 0.0) >= STALL):
            return told
        assert "You chose" not in screen, f"{screen}\n{told}"
        assert PERMISSION_TITLE in screen, screen
        assert "Allow once" in screen, screen
        # Once the keyboard has been quiet, the dialog says what it dropped, and takes answers.
        screen = term.wait_for(f"{sent} {IGNORED}.", timeout=10)
        assert "You chose" not in screen, screen
        term.send("a")
        screen = term.wait_for("You chose Allow once", timeout=15)
        assert PERMISSION_TITLE not in screen.split("You chose")[-1]
        term.press("ctrl+q")
        assert term.wait(timeout=30) == 0
    return None


def test_a_burst_of_keys_answers_no_permission_and_a_key_after_a_pause_does(
    tmp_path: Path,
) -> None:
    """A loaded machine may stall the typist, before its first key or between two, past
    `STALL`: the dialog may then rightly take a key of the burst, and that run says nothing of
    the app. It is run again, up to `ATTEMPTS` times; a burst that answers while the typist
    kept its pace fails at once."""
    stalls: list[str] = []
    for attempt in range(ATTEMPTS):
        run = tmp_path / f"run{attempt}"
        run.mkdir()
        stalled = burst_at_the_dialog(run)
        if stalled is None:
            return
        stalls.append(stalled)
    raise AssertionError(
        f"the machine stalled the typist in all {ATTEMPTS} runs:\n" + "\n".join(stalls)
    )


def test_a_burst_typed_while_the_app_is_stopped_answers_no_permission(tmp_path: Path) -> None:
    """A busy machine may not run the app for a second while the user types: the keys wait
    unread in the terminal, and the dialog's clock must not take the first one as an answer.
    The app is stopped (SIGSTOP, as a loaded machine would leave it unscheduled) in the middle
    of a burst; the keys typed meanwhile answer nothing."""
    with start(tmp_path) as term:
        term.wait_for(READY, timeout=60)
        term.type("permission\r")
        term.wait_for(PERMISSION_TITLE)
        sent = burst(term, "a", seconds=0.3)
        os.kill(term.process.pid, signal.SIGSTOP)
        try:
            sent += burst(term, "a", seconds=0.5)
            time.sleep(1.0)  # longer than the dialog's quiet time
        finally:
            os.kill(term.process.pid, signal.SIGCONT)
        gaps: list[float] = []  # after the stop: a stalled typist would pause the keyboard
        sent += burst(term, "a", seconds=1, gaps=gaps)
        gap = f"the typist's longest gap after the stop: {max(gaps):.2f} s"
        screen = term.wait_for(
            lambda text: f"{sent} {IGNORED}." in text or "You chose" in text, timeout=10
        )
        assert "You chose" not in screen, f"{screen}\n{gap}"
        assert f"{sent} {IGNORED}." in screen, f"{screen}\n{gap}"
        term.send("a")
        term.wait_for("You chose Allow once", timeout=15)
        term.press("ctrl+q")
        assert term.wait(timeout=30) == 0


def test_the_enter_of_a_prompt_typed_as_the_login_dialog_appears_answers_nothing(
    tmp_path: Path,
) -> None:
    with start(tmp_path, "--require-auth", "--auth-on", "session/prompt") as term:
        term.wait_for(READY, timeout=60)
        term.type("hello\r")
        term.wait_for("needs you to log in")
        # The user goes on typing the next prompt, and ends it with Enter, as the dialog shows.
        term.type("more\r", per_second=10)
        screen = term.wait_for(f"5 {IGNORED}.", timeout=10)
        assert "needs you to log in" in screen
        assert "You said" not in screen
        # Now a deliberate answer: Tab to the first login method, then Enter.
        term.press("tab")
        time.sleep(0.3)  # a person's pace between the two keys
        term.press("enter")
        screen = term.wait_for("You said", timeout=30)
        assert "needs you to log in" not in screen
        term.press("ctrl+q")
        assert term.wait(timeout=30) == 0
