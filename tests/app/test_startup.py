"""The first frame: drawn before the protocol models load, then the views arrive in place."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from textual.widgets import TextArea

from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.transcript.view import TranscriptView
from acp_tui.ui.widgets.session_options import SessionOptions
from tests.app.helpers import wait_for

REPO = Path(__file__).resolve().parents[2]

HEAVY = [
    "pydantic",
    "acp_tui.protocol.content",
    "acp_tui.client.agent.agent_client",
    "acp_tui.client.session.transcript",
    "acp_tui.ui.transcript.render",
    "acp_tui.ui.transcript.view",
    "textual.widgets._markdown",
    "hashlib",  # OpenSSL's: a few milliseconds, for the prompt history's file name
]
"""Modules the first frame does not need and would wait for (most take longer to import than
Textual itself)."""

# Runs the real command line's import path, then the app headless; when the app starts loading
# the core (just after its first refresh) it records what is imported and quits.
SCRIPT = """
import json, sys
from pathlib import Path
import acp_tui.cli
from acp_tui.client.agent.launch import LaunchSpec, demo_agent_command
from acp_tui.config.paths import get_paths
from acp_tui.ui.app import AcpApp

seen = {}

async def run_workspace(self):
    seen.update((name, name in sys.modules) for name in json.loads(sys.argv[1]))
    seen["status"] = str(self.chat.query_one("#status").render())
    self.exit()

AcpApp.run_workspace = run_workspace
launch = LaunchSpec(command=demo_agent_command(get_paths()), cwd=Path.cwd(), display_name="demo")
AcpApp(launch).run(headless=True, size=(100, 20))
print(json.dumps(seen))
"""


def test_the_first_frame_does_not_wait_for_the_protocol_models(tmp_path: Path) -> None:
    env = {**os.environ, "ACP_TUI_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(HEAVY)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert {name: seen[name] for name in HEAVY} == dict.fromkeys(HEAVY, False)
    assert "demo" in seen["status"]
    assert "ACP v1" in seen["status"]


async def test_the_views_replace_their_stand_ins_and_keep_the_draft(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"draft")  # the prompt takes keys from the first frame on
        await wait_for(pilot, app.startup.ready.is_set)
        assert not app.chat.query(".stand-in")
        await app.chat.open_browser()  # it arrives the first time it is wanted
        for view in (TranscriptView, SessionOptions, SessionBrowser):
            assert len(app.chat.query(view)) == 1
        assert app.chat.current_pane.query_one("#prompt", TextArea).text == "draft"
        await wait_for(pilot, lambda: app.session is not None)
