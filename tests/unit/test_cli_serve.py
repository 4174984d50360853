"""`acp-tui serve`'s command line: what it checks before it listens, and the confirmation a
host other than loopback needs (the server itself is tested in ``tests/serve``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.commands import serve as serve_module
from acp_tui.commands.serve import serve_command
from tests.terminal import Terminal, acp_tui_argv
from tests.unit.cli_run import run_process

TIMEOUT = 60


def run_serve(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_process(["serve", *args], cwd)


def test_help_names_every_option_and_the_risk() -> None:
    result = run_serve("--help")
    assert result.returncode == 0, result.stderr
    for option in ["--host", "--port", "--open", "--token", "--max-sessions", "-a", "--add-dir"]:
        assert option in result.stdout
    assert "run commands" in result.stdout
    assert "ACP_TUI_SERVE_TOKEN" in result.stdout


def test_another_host_without_a_token_or_a_terminal_is_refused_with_the_risk() -> None:
    result = run_serve("--host", "0.0.0.0", "--port", "0", "-a", "demo")
    assert result.returncode == 2
    assert "lets other machines reach this server" in result.stderr
    assert "run commands as you" in result.stderr
    assert "plain http" in result.stderr
    assert "needs --token" in result.stderr
    assert result.stdout == ""  # nothing was served


def test_another_host_is_not_served_when_the_user_says_no(tmp_path: Path) -> None:
    argv = acp_tui_argv("serve", "--host", "0.0.0.0", "--port", "0", "-a", "demo")
    with Terminal(argv, tmp_path, cols=200) as term:
        term.wait_for("Serve on 0.0.0.0 anyway? [y/N]")
        term.send("n\r")
        assert term.wait() == 1
        assert "not started" in term.text()
        assert "served at" not in term.text()


def test_another_host_is_served_once_the_user_says_yes(monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[str] = []
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda question: "y")
    monkeypatch.setattr(serve_module, "_run", lambda options: served.append(options.host) or 0)
    assert serve_command(["--host", "0.0.0.0", "-a", "demo"]) == 0
    assert served == ["0.0.0.0"]


def test_another_host_with_a_token_needs_no_confirmation(monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[str] = []
    monkeypatch.setattr("builtins.input", lambda question: pytest.fail("asked"))
    monkeypatch.setattr(serve_module, "_run", lambda options: served.append(options.token) or 0)
    token = "my-own-token-0123456789"
    assert serve_command(["--host", "0.0.0.0", "--token", token, "-a", "demo"]) == 0
    assert served == [token]


def test_loopback_needs_no_confirmation(monkeypatch: pytest.MonkeyPatch) -> None:
    hosts: list[str] = []
    monkeypatch.setattr("builtins.input", lambda question: pytest.fail("asked"))
    monkeypatch.setattr(serve_module, "_run", lambda options: hosts.append(options.host) or 0)
    for host in ["127.0.0.1", "localhost", "::1"]:
        assert serve_command(["--host", host, "-a", "demo"]) == 0
    assert hosts == ["127.0.0.1", "localhost", "::1"]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--token", "short"], "the token is too short"),
        (["--token", "with spaces in this token"], "may only use letters"),
        (["--max-sessions", "0"], "--max-sessions must be at least 1"),
        (["--port", "70000"], "not a port"),
        (["-a", "no-such-agent"], "no-such-agent"),
        (["-a", "demo", "--", "my-agent"], "either -a NAME or -- COMMAND"),
        (["--"], "expected an agent command"),
        (["/no/such/dir"], "no such directory"),
        (["--add-dir", "/no/such/dir"], "--add-dir '/no/such/dir'"),
        (["--protocol", "3"], "invalid choice"),
    ],
)
def test_bad_arguments_are_refused_before_anything_listens(args: list[str], error: str) -> None:
    result = run_serve(*args)
    assert result.returncode == 2, result.stderr
    assert error in result.stderr
    assert result.stdout == ""


def test_each_page_runs_the_chat_with_the_same_agent_choice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    extra = tmp_path / "lib"
    extra.mkdir()
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(serve_module, "_run", lambda options: seen.append(options.chat_args) or 0)
    argv = [str(tmp_path), "--add-dir", "lib", "--protocol", "2", "--", "my-agent", "--acp"]
    assert serve_command(argv) == 0
    assert seen == [
        (str(tmp_path), "--add-dir", str(extra), "--protocol", "2", "--", "my-agent", "--acp")
    ]
    assert serve_command([str(tmp_path), "-a", "demo"]) == 0
    assert seen[-1] == (str(tmp_path), "-a", "demo")


@pytest.mark.parametrize("missing", ["aiohttp", "textual_serve"])
def test_without_the_serve_extra_it_says_how_to_install_it(missing: str) -> None:
    code = (
        f"import sys; sys.modules[{missing!r}] = None; from acp_tui.cli import main; "
        "sys.exit(main(['serve', '--port', '0', '-a', 'demo']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=os.environ.copy(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 1
    assert "pip install 'acp-tui[serve]'" in result.stderr
    assert result.stdout == ""
