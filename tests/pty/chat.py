"""acp-tui's chat in a real pseudo-terminal, on the demo agent: starting it, reading its prompt,
opening a second tab. Shared by the tests that press keys as terminals send them."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.terminal import Terminal, acp_tui_argv

READY = re.compile(r"·\s+ready")

ALT_LEFT, ALT_RIGHT = "\x1b[1;3D", "\x1b[1;3C"
"""Alt+Left and Alt+Right as xterm, GNOME Terminal, Konsole, Windows Terminal and tmux send them."""

CTRL_UP = "\x1b[1;5A"


def demo_agent(data: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data), *options]


def chat_argv(tmp_path: Path, *agent_options: str) -> list[str]:
    """The command line of acp-tui on the demo agent (its data under ``tmp_path``)."""
    return acp_tui_argv("--", *demo_agent(tmp_path / "d", *agent_options))


def start(
    tmp_path: Path,
    *agent_options: str,
    env: Mapping[str, str] | None = None,
    wrap: Sequence[str] = (),
) -> Terminal:
    """acp-tui on the demo agent in a 160x40 terminal, once its session is ready; ``wrap`` is a
    command line that runs it (tmux, say)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    term = Terminal(
        [*wrap, *chat_argv(tmp_path, *agent_options)], project, env=env, cols=160, rows=40
    )
    try:
        term.wait_for(READY, timeout=60)
    except BaseException:
        term.close()
        raise
    return term


def prompt_line(term: Terminal) -> str:
    """The line of the prompt's text (the one after its top border)."""
    lines = term.text().splitlines()
    top = next(i for i, line in enumerate(lines) if "▔▔▔▔" in line)
    return lines[top + 1]


def open_second_tab(term: Terminal) -> None:
    """Ctrl+N, the current agent, no extra roots: a second tab, shown."""
    term.send("\x0e")
    term.wait_for("A new session with which agent?")
    time.sleep(0.3)
    term.press("enter")
    term.wait_for("Extra workspace roots")
    time.sleep(0.3)
    term.press("enter")
    term.wait_for(lambda text: " 2 " in text and "Extra workspace roots" not in text)
    # The second tab's own pane, ready: the tab bar can show the new tab a frame before its
    # pane replaces the first one (whose status says ready too). Keys sent on that frame were
    # checked against the screens the pane's late arrival then drew (test_tab_keys, under load).
    term.wait_for(
        lambda text: READY.search(text) is not None and "Message the agent" in prompt_line(term)
    )
