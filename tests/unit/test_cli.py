"""Tests for the `acp-tui` command line, mostly as real subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
import types
from pathlib import Path

import pytest

from acp_tui import __version__
from acp_tui.cli import main
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.config.paths import Paths
from acp_tui.config.settings import Settings, settings_to_toml
from acp_tui.config.strict import validate
from tests.unit.cli_run import run_process

TIMEOUT = 60


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m acp_tui ARGS` with this test's environment (its ACP_TUI_HOME), no stdin."""
    return run_process(list(args), cwd)


def test_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"acp-tui {__version__}\n"


def test_help() -> None:
    result = run_cli("--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: acp-tui [DIR] [-a NAME | -- COMMAND ARGS...]")
    assert "--protocol" in result.stdout
    assert "[--protocol {1,2}]" in result.stdout.splitlines()[0]  # not doubled braces
    assert "config" in result.stdout


def test_config_help() -> None:
    result = run_cli("config", "--help")
    assert result.returncode == 0, result.stderr
    assert "path" in result.stdout
    assert "show" in result.stdout


def test_headless_paths_never_import_textual_or_rich() -> None:
    code = textwrap.dedent(
        """
        import contextlib, io, sys
        from acp_tui.cli import main
        for argv in (["--help"], ["--version"], ["config", "path"], ["config", "show"],
                     ["--bogus"], ["-a", "no-such-agent"]):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                main(argv)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
        print(",".join(loaded))
        """
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
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-a", "x", "--", "my-agent"], "not both"),
        (["--"], "after '--'"),
        (["/no/such/dir"], "/no/such/dir: no such directory"),
        (["--protocol", "3"], "invalid choice"),
        (["--bogus"], "--bogus"),
        (["one", "two"], "unrecognized arguments: two"),
        (["-a", "no-such-agent"], "'no-such-agent'"),
        (["config"], "required"),
        (["config", "nope"], "invalid choice"),
        (["--continue", "--session", "x"], "not allowed with"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], needle: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("acp-tui")
    assert needle in lines[0]
    assert "Traceback" not in result.stderr


def test_dir_that_is_a_file_is_a_usage_error(tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    result = run_cli(str(a_file))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"acp-tui: error: {a_file}: not a directory (see 'acp-tui --help')"
    ]


def test_unknown_agent_lists_demo(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text('[agents.alpha]\ncommand = "alpha"\n')
    result = run_cli("-a", "beta")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "acp-tui: error: no agent named 'beta'; known agents: alpha, demo"
    ]


def test_config_path_is_under_acp_tui_home(acp_home: Paths) -> None:
    result = run_cli("config", "path")
    assert result.returncode == 0, result.stderr
    printed = Path(result.stdout.strip())
    assert printed == acp_home.config_file
    assert printed.is_relative_to(Path(os.environ["ACP_TUI_HOME"]))


def test_config_show_prints_the_effective_settings(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text('theme = "nord"\n[agents.alpha]\ncommand = "alpha"\n')
    result = run_cli("config", "show")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    shown = validate(Settings, tomllib.loads(result.stdout))
    assert shown.theme == "nord"
    assert shown.agents["alpha"].command == "alpha"


def test_config_show_hides_env_and_header_values(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text(
        '[agents.alpha]\ncommand = "alpha"\nenv = { OPENAI_API_KEY = "sk-agent-secret" }\n'
        '[mcp_servers.files]\ncommand = "files-mcp"\nenv = { TOKEN = "stdio-secret" }\n'
        '[mcp_servers.web]\nurl = "https://mcp.example/"\n'
        'headers = { Authorization = "Bearer header-secret" }\n'
    )
    result = run_cli("config", "show")
    assert result.returncode == 0, result.stderr
    for secret in ("sk-agent-secret", "stdio-secret", "header-secret"):
        assert secret not in result.stdout
    shown = validate(Settings, tomllib.loads(result.stdout))  # still valid settings
    assert shown.agents["alpha"].env == {"OPENAI_API_KEY": "(hidden)"}
    assert shown.mcp_servers["files"].env == {"TOKEN": "(hidden)"}
    assert shown.mcp_servers["web"].headers == {"Authorization": "(hidden)"}
    assert shown.mcp_servers["web"].url == "https://mcp.example/"


def test_config_show_with_a_broken_file_warns_and_shows_defaults(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text("theme = \n")
    before = acp_home.config_file.read_bytes()
    result = run_cli("config", "show")
    assert result.returncode == 0, result.stderr
    assert result.stdout == settings_to_toml(Settings())
    first = result.stderr.splitlines()[0]
    assert first.startswith("acp-tui: warning: ")
    assert str(acp_home.config_file) in first
    assert "line 1" in first
    assert acp_home.config_file.read_bytes() == before


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[LaunchSpec]:
    """Replace the Textual app with a recorder, so main() can be run in-process."""
    calls: list[LaunchSpec] = []

    def run_app(launch: LaunchSpec) -> int:
        calls.append(launch)
        return 7

    fake = types.ModuleType("acp_tui.ui.app")
    fake.run_app = run_app  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "acp_tui.ui.app", fake)
    return calls


def test_main_runs_the_app_with_the_resolved_launch(
    launched: list[LaunchSpec], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--protocol", "1"]) == 7
    [spec] = launched
    assert spec.is_demo
    assert spec.cwd == Path.cwd()
    assert spec.protocol_version == 1
    assert spec.warnings == ()


def test_main_passes_dir_and_command_verbatim(launched: list[LaunchSpec], tmp_path: Path) -> None:
    assert main([str(tmp_path), "--", "agent", "-a", "--", "--protocol"]) == 7
    [spec] = launched
    assert spec.cwd == tmp_path
    assert list(spec.command.argv) == ["agent", "-a", "--", "--protocol"]
    assert spec.protocol_version == 1


def test_continue_and_session_reach_the_launch(launched: list[LaunchSpec], tmp_path: Path) -> None:
    assert main([str(tmp_path), "--continue"]) == 7
    assert main([str(tmp_path), "--session", "abc-123"]) == 7
    first, second = launched
    assert (first.continue_last, first.session_id) == (True, None)
    assert (second.continue_last, second.session_id) == (False, "abc-123")


def test_main_continues_on_defaults_after_settings_problems(
    launched: list[LaunchSpec],
    acp_home: Paths,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text('[agents.alpha]\ncommand = "alpha"\nprotocol = 9\n')
    assert main([str(tmp_path)]) == 7
    [spec] = launched
    assert spec.is_demo
    assert spec.settings == Settings()
    [warning] = spec.warnings
    assert "agents.alpha.protocol" in warning
    err = capsys.readouterr().err
    assert f"acp-tui: warning: {acp_home.config_file}: agents.alpha.protocol" in err


def test_protocol_2_starts_the_demo_agent_speaking_v2(
    launched: list[LaunchSpec], tmp_path: Path
) -> None:
    assert main([str(tmp_path), "--protocol", "2"]) == 7
    [spec] = launched
    assert spec.is_demo
    assert spec.protocol_version == 2
    assert list(spec.command.argv)[-2:] == ["--protocol", "2"]


def test_a_protocol_version_the_client_cannot_speak_is_refused() -> None:
    from dataclasses import replace

    from acp_tui.client.agent.launch import LaunchError, check_supported, demo_agent_command

    spec = LaunchSpec(command=demo_agent_command(Paths.under(Path("/nowhere"))), cwd=Path("/"))
    check_supported(spec)
    check_supported(replace(spec, protocol_version=2))
    with pytest.raises(LaunchError, match="protocol version 3 is not supported"):
        check_supported(replace(spec, protocol_version=3))
