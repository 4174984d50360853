"""Every headless command prints what others wrote (a registry, the config, an agent) shown,
never obeyed: no escape sequence or bidi control reaches the terminal, whatever prints it."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from acp_tui.cli import main
from acp_tui.commands import agent_registry
from acp_tui.config.paths import Paths
from tests.registry_helpers import PLATFORM, RegistryServer, serve_fixture

ESCAPE, RLO = "\x1b", "\u202e"
OSC52 = "\x1b]52;c;cHduZWQ=\x07"  # would write "pwned" to the clipboard
OSC0 = "\x1b]0;pwned\x07"  # would set the window title


def unsafe(text: str) -> list[str]:
    return [char for char in (ESCAPE, RLO, "\x07") if char in text]


def acp_tui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        env=os.environ,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def hostile_config(acp_home: Paths) -> Paths:
    """A config whose agent and MCP server carry escapes and bidi controls everywhere."""
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text(
        f"""
default_agent = "evil"
[agents.evil]
command = "evil-acp{OSC0}"
args = ["--title", "{OSC52}", "{RLO}exe.txt"]
title = "Evil{RLO} agent"
mcp_servers = ["tools{RLO}"]

[mcp_servers."tools{RLO}"]
command = "mcp{OSC0}"
args = ["{OSC52}"]
""".replace("\x1b", "\\u001b")
        .replace("\x07", "\\u0007")
        .replace(RLO, "\\u202e")
    )
    return acp_home


@pytest.mark.parametrize(
    "args",
    [("agents", "list"), ("mcp", "list"), ("config", "show")],
    ids=lambda a: " ".join(a),
)
def test_config_strings_are_printed_literally(hostile_config: Paths, args: tuple[str, ...]) -> None:
    result = acp_tui(*args)
    assert result.returncode == 0, result.stderr
    assert not unsafe(result.stdout + result.stderr), result.stdout
    assert "pwned" in result.stdout  # still shown, made visible


@pytest.fixture
def server(acp_home: Paths, monkeypatch: pytest.MonkeyPatch) -> Iterator[RegistryServer]:
    monkeypatch.setattr(agent_registry, "current_platform", lambda: PLATFORM)
    monkeypatch.setattr(
        agent_registry, "WHICH", lambda name: "/usr/bin/npx" if name == "npx" else None
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with serve_fixture() as state:
        acp_home.config_dir.mkdir(parents=True)
        acp_home.config_file.write_text(f'registry_url = "{state.url}"\n')
        yield state


def test_registry_strings_are_printed_literally_by_search_add_and_list(
    server: RegistryServer, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main(["agents", "search"]) == 0
    out, err = capfd.readouterr()
    assert "right-to-left override" in out
    assert not unsafe(out + err), out
    assert main(["agents", "add", "--from-registry", "escapes", "--yes"]) == 0
    out, err = capfd.readouterr()
    assert not unsafe(out + err), out
    assert main(["agents", "list"]) == 0  # the entry's arguments, now in the config
    out, err = capfd.readouterr()
    assert "exe.txt" in out
    assert not unsafe(out + err), out


def test_an_error_naming_a_config_string_is_printed_literally(hostile_config: Paths) -> None:
    result = acp_tui("agents", "remove", f"no{RLO}such{OSC0}")
    assert result.returncode != 0
    assert not unsafe(result.stdout + result.stderr), result.stderr
