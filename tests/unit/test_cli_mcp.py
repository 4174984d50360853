"""Tests for `acp-tui mcp list|add|remove` (as subprocesses) and the `[mcp_servers.NAME]` tables."""

from __future__ import annotations

import os
import subprocess
import sys

from acp_tui.config.paths import Paths
from acp_tui.config.settings import McpServerConfig, load_settings

TIMEOUT = 60
SECRET = "s3cr3t-value"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m acp_tui ARGS` with this test's ACP_TUI_HOME; never a traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        env=os.environ,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert "Traceback" not in result.stderr
    return result


def test_add_list_and_remove(acp_home: Paths) -> None:
    assert run("agents", "add", "claude", "--", "claude-acp").returncode == 0
    added = run(
        "mcp", "add", "files", "--all-agents", "--env", f"TOKEN={SECRET}", "--", "sh", "-c", "x"
    )
    assert added.returncode == 0, added.stderr
    web = run("mcp", "add", "web", "--agent", "claude", "--url", "https://mcp.example.com/mcp",
              "--header", f"Authorization: Bearer {SECRET}")  # fmt: skip
    assert web.returncode == 0, web.stderr
    loaded = load_settings(acp_home.config_file)
    assert loaded.problems == []
    settings = loaded.settings
    assert settings.mcp_servers["files"] == McpServerConfig(
        command="sh", args=["-c", "x"], env={"TOKEN": SECRET}, all_agents=True
    )
    assert settings.mcp_servers["web"].headers == {"Authorization": f"Bearer {SECRET}"}
    assert settings.mcp_servers["web"].transport == "http"
    assert settings.agents["claude"].mcp_servers == ["web"]

    listed = run("mcp", "list")
    assert listed.returncode == 0
    assert "files (stdio, all agents): sh -c x; TOKEN set (values hidden)" in listed.stdout
    assert "web (http, agents: claude): https://mcp.example.com/mcp" in listed.stdout
    assert SECRET not in listed.stdout + listed.stderr

    assert run("mcp", "remove", "web").returncode == 0
    after = load_settings(acp_home.config_file).settings
    assert list(after.mcp_servers) == ["files"]
    assert after.agents["claude"].mcp_servers == []


def test_bad_input_is_a_usage_error(acp_home: Paths) -> None:
    cases = [
        (("mcp", "add", "x", "--url", "ftp://host/x"), "http:// or https://"),
        (("mcp", "add", "x", "--agent", "nobody", "--", "sh"), "no agent named 'nobody'"),
        (("mcp", "add", "x"), "expected '-- COMMAND ARGS...' or --url URL"),
        (("mcp", "add", "x", "--header", "A: b", "--", "sh"), "only used with --url"),
        (("mcp", "add", "-bad-", "--", "sh"), ""),
        (("mcp", "remove", "nothing"), "no MCP server named 'nothing'"),
        (("mcp", "list", "--", "sh"), "only used with 'add'"),
    ]
    for args, message in cases:
        result = run(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, args
    assert not acp_home.config_file.exists()


def test_a_missing_command_is_a_warning_not_an_error(acp_home: Paths) -> None:
    result = run("mcp", "add", "gone", "--all-agents", "--", "no-such-mcp-server-anywhere")
    assert result.returncode == 0
    assert "'no-such-mcp-server-anywhere' is not on PATH" in result.stderr


def test_adding_twice_needs_replace(acp_home: Paths) -> None:
    assert run("mcp", "add", "x", "--", "sh").returncode == 0
    again = run("mcp", "add", "x", "--", "sh")
    assert again.returncode == 2
    assert "--replace" in again.stderr
    assert run("mcp", "add", "x", "--replace", "--url", "https://e.com/m", "--sse").returncode == 0
    server = load_settings(acp_home.config_file).settings.mcp_servers["x"]
    assert server == McpServerConfig(type="sse", url="https://e.com/m")


def write(paths: Paths, text: str) -> list[str]:
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(text)
    return load_settings(paths.config_file).problems


def test_tables_that_do_not_fit_their_transport_are_named(acp_home: Paths) -> None:
    problems = write(
        acp_home,
        '[mcp_servers.a]\nargs = ["x"]\n'
        '[mcp_servers.b]\ntype = "http"\ncommand = "x"\n'
        '[mcp_servers.c]\ncommand = "x"\nurl = "https://e.com"\n'
        '[mcp_servers.d]\ntype = "sse"\nurl = "file:///x"\n'
        '[mcp_servers.e]\ntype = "websocket"\nurl = "https://e.com"\n',
    )
    text = "\n".join(problems)
    assert "mcp_servers.a.command: required key is missing (a stdio server needs a command)" in text
    assert "mcp_servers.b.url: required key is missing (an http server needs a url)" in text
    assert "mcp_servers.c.command: an http server takes url and headers, not a command" in text
    assert "mcp_servers.d.url: expected an http:// or https:// URL" in text
    assert "mcp_servers.e.type: expected 'stdio', 'http' or 'sse'" in text
    unknown = write(
        acp_home,
        '[mcp_servers.a]\ncommand = "a"\n[agents.z]\ncommand = "z"\nmcp_servers = ["a", "nope"]\n',
    )
    assert [p.split(": ", 1)[1] for p in unknown] == [
        "agents.z.mcp_servers[1]: no [mcp_servers.nope] table for 'nope'"
    ]


def test_a_good_table_round_trips(acp_home: Paths) -> None:
    text = (
        "# my servers\n"
        '[mcp_servers.web]\nurl = "https://e.com/mcp"  # hosted\n'
        'headers = { Authorization = "Bearer t" }\nall_agents = true\n'
    )
    assert write(acp_home, text) == []
    assert run("mcp", "add", "files", "--", "sh").returncode == 0
    saved = acp_home.config_file.read_text()
    assert saved.startswith(text)  # comments and layout kept
    assert load_settings(acp_home.config_file).problems == []
