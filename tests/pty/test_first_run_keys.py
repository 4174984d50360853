"""A first run, in a real terminal: the registry offer never takes the keys typed for the chat.

On a first run (no agent configured) acp-tui starts on the demo agent and, once its session is
open, offers the ACP agent registry in a dialog over the chat. A user who started typing at
once must not have their next keys go to that dialog: their message arrives whole, and the
offer is said in passing instead (and made again at the next start).
"""

from __future__ import annotations

import os
from pathlib import Path

from acp_tui.config.paths import HOME_ENV, Paths
from tests.terminal import Terminal, acp_tui_argv

MESSAGE = "hello from the very first second, typed while acp-tui starts up"


def test_keys_typed_at_start_go_to_the_chat_not_to_the_offer(tmp_path: Path) -> None:
    paths = Paths.under(Path(os.environ[HOME_ENV]))
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    # A registry that answers nothing at once: the offer must not need the network.
    paths.config_file.write_text('registry_url = "http://127.0.0.1:9/registry.json"\n')
    project = tmp_path / "project"
    project.mkdir()
    with Terminal(acp_tui_argv(), project, cols=160, rows=40) as term:
        term.type(MESSAGE + "\r", per_second=10)  # from the first instant, for ~6 s
        term.wait_for("You said")
        term.wait_for(lambda text: MESSAGE in " ".join(text.split()))
        term.wait_for("More agents")  # the offer, in passing
        term.press("ctrl+q")
        assert term.wait() == 0
