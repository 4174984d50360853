"""AppProcess.stop ends the app's whole tree, however the app behaves: quitting when told,
stuck (it reads nothing and ignores SIGTERM), or gone already with its children left behind."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import time
from pathlib import Path

from acp_tui.client.process import watchdog
from acp_tui.serve.app_process import AppProcess, app_env
from acp_tui.serve.wire import PRELUDE

# A stand-in for the app: the web driver's prelude, a child that detaches (a new session, as
# a daemon would), the child's pid on stdout, then the behaviour asked for.
FAKE_APP = textwrap.dedent(
    """
    import os, signal, subprocess, sys, time
    mode = sys.argv[1]
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,  # as agents: their stdout is their own pipe
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    out = sys.stdout.buffer
    out.write(b"__GANGLION__\\n" + str(child.pid).encode() + b"\\n")
    out.flush()
    if mode == "stuck":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
    elif mode == "quits":
        sys.stdin.buffer.read(1)  # the quit packet
    # "crashed": exit at once, the child left running
    """
)


async def started(app: AppProcess) -> watchdog.Proc:
    """Start ``app``; the process of its detached child."""
    await app.start()
    assert await app.wait_started()
    assert app.process is not None
    assert app.process.stdout is not None
    pid = int(await app.process.stdout.readline())
    proc = watchdog.read_stat(pid)
    assert proc is not None
    return proc


def gone(proc: watchdog.Proc) -> bool:
    now = watchdog.read_stat(proc.pid)
    return now is None or now.start != proc.start or now.zombie


def fake_app(tmp_path: Path, mode: str) -> AppProcess:
    script = tmp_path / "fake_app.py"
    script.write_text(FAKE_APP)
    return AppProcess([sys.executable, str(script), mode], tmp_path, app_env(os.environ, 80, 24))


async def test_a_stuck_app_and_its_detached_child_are_killed_within_the_bounds(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path, "stuck")
    child = await started(app)
    began = time.monotonic()
    await app.stop(quit_grace=0.5)
    assert time.monotonic() - began < 0.5 + 1.5 + 1.0 + 1.0
    assert app.process is not None
    assert app.process.returncode is not None
    assert gone(child)


async def test_an_app_that_quits_when_told_has_its_leftovers_swept(tmp_path: Path) -> None:
    app = fake_app(tmp_path, "quits")
    child = await started(app)
    await app.stop()
    assert app.process is not None
    assert app.process.returncode == 0  # it quit by itself, on the quit packet
    assert gone(child)


async def test_a_crashed_app_leaves_no_child(tmp_path: Path) -> None:
    app = fake_app(tmp_path, "crashed")
    child = await started(app)
    assert app.process is not None
    await asyncio.wait_for(app.process.wait(), 30)
    assert not gone(child)  # the app is gone, its child is not...
    await app.stop()
    assert gone(child)  # ...until the tree is swept


async def test_stop_twice_at_once_stops_once(tmp_path: Path) -> None:
    app = fake_app(tmp_path, "quits")
    await started(app)
    await asyncio.gather(app.stop(), app.stop())
    assert app.process is not None
    assert app.process.returncode == 0


def test_the_app_gets_the_web_driver_and_the_size_but_never_the_token() -> None:
    env = app_env({"PATH": "/bin", "ACP_TUI_SERVE_TOKEN": "secret-token-123456"}, 120, 40)
    assert env["TEXTUAL_DRIVER"] == "textual.drivers.web_driver:WebDriver"
    assert (env["COLUMNS"], env["ROWS"]) == ("120", "40")
    assert env["PATH"] == "/bin"
    assert "ACP_TUI_SERVE_TOKEN" not in env
    assert PRELUDE == b"__GANGLION__\n"
