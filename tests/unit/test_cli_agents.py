"""Tests for `acp-tui agents list|add|remove` and for choosing an agent."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import types
from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.cli import main
from acp_tui.client.agent.launch import LaunchSpec, agent_choices
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings, load_settings
from tests.unit.cli_run import run_here

TIMEOUT = 60


def agents(*args: str) -> subprocess.CompletedProcess[str]:
    """`acp-tui agents ARGS` with this test's ACP_TUI_HOME and no stdin, in this process (the
    command's own process is tested below); never a traceback."""
    result = run_here(["agents", *args], None)
    assert "Traceback" not in result.stderr
    return result


def config(paths: Paths) -> dict[str, object]:
    return tomllib.loads(paths.config_file.read_text())


def test_add_writes_the_command_exactly_as_given(acp_home: Paths) -> None:
    result = agents("add", "alpha", "--", "alpha-acp", "--stdio", "a b", "--", "-a", "$HOME")
    assert result.returncode == 0, result.stderr
    assert "alpha" in result.stdout
    assert config(acp_home)["agents"] == {
        "alpha": {
            "command": "alpha-acp",
            "args": ["--stdio", "a b", "--", "-a", "$HOME"],
            "env": {},
            "protocol": 1,
            "additional_directories": [],
            "mcp_servers": [],
        }
    }
    assert load_settings(acp_home.config_file).problems == []


def test_add_and_remove_keep_the_files_comments(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    text = '# mine\ntheme = "acp-dusk"  # evenings\n\n[agents.alpha]\ncommand = "a"  # old\n'
    acp_home.config_file.write_text(text)
    assert agents("add", "beta", "--", "b").returncode == 0
    assert acp_home.config_file.read_text().startswith(text)
    assert agents("remove", "beta").returncode == 0
    assert acp_home.config_file.read_text().rstrip("\n") == text.rstrip("\n")


def test_add_with_options(acp_home: Paths) -> None:
    result = agents(
        "add",
        "beta",
        "--protocol",
        "2",
        "--env",
        "KEY=a=b",
        "--add-dir",
        "../docs",
        "--title",
        "Beta Agent",
        "--default",
        "--",
        "beta",
    )
    assert result.returncode == 0, result.stderr
    settings = load_settings(acp_home.config_file).settings
    assert settings.default_agent == "beta"
    assert settings.agents["beta"] == AgentConfig(
        command="beta",
        env={"KEY": "a=b"},
        protocol=2,
        additional_directories=["../docs"],
        title="Beta Agent",
    )


def test_list_shows_configured_agents_and_the_demo(acp_home: Paths) -> None:
    assert agents("list").stdout == "demo (built in): the bundled demo agent\n"
    assert agents("add", "zed", "--default", "--", "zed-acp", "--flag").returncode == 0
    assert agents("add", "alpha", "--", "alpha").returncode == 0
    result = agents("list")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "alpha: alpha",
        "zed (default): zed-acp --flag",
        "demo (built in): the bundled demo agent",
    ]


def test_remove_deletes_the_agent_and_unsets_the_default(acp_home: Paths) -> None:
    assert agents("add", "alpha", "--default", "--", "alpha").returncode == 0
    assert agents("add", "beta", "--", "beta").returncode == 0
    result = agents("remove", "alpha")
    assert result.returncode == 0, result.stderr
    assert "default_agent" in result.stdout
    settings = load_settings(acp_home.config_file).settings
    assert list(settings.agents) == ["beta"]
    assert settings.default_agent is None
    assert "alpha" not in agents("list").stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["remove", "nope"], "no agent named 'nope'"),
        (["remove", "demo"], "built in"),
        (["add", "demo", "--", "x"], "bundled demo agent's name"),
        (["add", "-bad", "--", "x"], "unrecognized arguments: -bad"),
        (["add", "bad name", "--", "x"], "invalid agent name"),
        (["add", "alpha"], "expected '-- COMMAND ARGS...'"),
        (["add", "alpha", "--"], "expected an agent command"),
        (["add", "alpha", "--env", "NOEQUALS", "--", "x"], "expected KEY=VALUE"),
        (["add", "alpha", "--protocol", "3", "--", "x"], "invalid choice"),
        (["list", "--", "x"], "only used with 'add'"),
        ([], "required"),
        (["rename"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2_with_one_line(acp_home: Paths, args: list[str], needle: str) -> None:
    result = agents(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("acp-tui agents: error: ")
    assert needle in line
    assert not acp_home.config_file.exists()


def test_adding_an_existing_name_needs_replace(acp_home: Paths) -> None:
    assert agents("add", "alpha", "--", "one").returncode == 0
    result = agents("add", "alpha", "--", "two")
    assert result.returncode == 2
    assert "--replace" in result.stderr
    assert load_settings(acp_home.config_file).settings.agents["alpha"].command == "one"
    assert agents("add", "alpha", "--replace", "--", "two").returncode == 0
    assert load_settings(acp_home.config_file).settings.agents["alpha"].command == "two"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[agents.alpha\ncommand = 'a'\n", "invalid TOML: line 2"),
        ("[agents.alpha]\ncommand = 'a'\nprotocol = 9\n", "agents.alpha.protocol"),
        ("[agents.alpha]\ncommand = 'a'\ncolour = 'red'\n", "agents.alpha.colour: unknown key"),
    ],
)
@pytest.mark.parametrize(
    "args", [["add", "beta", "--", "beta"], ["remove", "alpha"]], ids=["add", "remove"]
)
def test_a_broken_config_is_never_overwritten(
    acp_home: Paths, text: str, needle: str, args: list[str]
) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text("# my notes\n" + text)
    before = acp_home.config_file.read_bytes()
    result = agents(*args)
    assert result.returncode == 1
    assert needle in result.stderr
    assert str(acp_home.config_file) in result.stderr
    assert "not changing" in result.stderr
    assert acp_home.config_file.read_bytes() == before
    left = sorted(p.name for p in acp_home.config_dir.iterdir())
    assert left == ["config.toml", "config.toml.lock"]  # no temp file


def test_list_with_a_broken_config_warns_and_shows_the_demo(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text("default_agent = 3\n")
    result = agents("list")
    assert result.returncode == 0
    assert "default_agent" in result.stderr
    assert result.stdout == "demo (built in): the bundled demo agent\n"


def test_help_lists_the_actions() -> None:
    result = agents("--help")
    assert result.returncode == 0
    for action in ("list", "add", "remove"):
        assert action in result.stdout
    assert "@agentclientprotocol/claude-agent-acp" in result.stdout  # the package's name today


# -- choosing an agent ---------------------------------------------------------------------

TWO = Settings(agents={"beta": AgentConfig(command="b"), "alpha": AgentConfig(command="a")})


def test_several_agents_and_nothing_chosen_asks() -> None:
    assert agent_choices(None, None, TWO) == ["alpha", "beta", "demo"]


@pytest.mark.parametrize(
    ("agent_name", "command", "settings"),
    [
        ("alpha", None, TWO),
        ("demo", None, TWO),
        (None, ["my-agent"], TWO),
        (None, None, replace(TWO, default_agent="beta")),
        (None, None, Settings(agents={"alpha": AgentConfig(command="a")})),
        (None, None, Settings()),
    ],
)
def test_no_question_when_something_decides(
    agent_name: str | None, command: list[str] | None, settings: Settings
) -> None:
    assert agent_choices(agent_name, command, settings) == []


@pytest.fixture
def picker(monkeypatch: pytest.MonkeyPatch) -> tuple[list[list[str]], list[LaunchSpec]]:
    """Fake picker and app modules: record what was offered and what was launched."""
    offered: list[list[str]] = []
    launched: list[LaunchSpec] = []
    answer: list[str | None] = [None]

    def pick_agent(names: list[str], settings: Settings) -> str | None:
        offered.append(list(names))
        return answer[0]

    def run_app(launch: LaunchSpec) -> int:
        launched.append(launch)
        return 0

    fake_picker = types.ModuleType("acp_tui.ui.agent_picker")
    fake_picker.pick_agent = pick_agent  # type: ignore[attr-defined]
    fake_picker.answer = answer  # type: ignore[attr-defined]
    fake_app = types.ModuleType("acp_tui.ui.app")
    fake_app.run_app = run_app  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "acp_tui.ui.agent_picker", fake_picker)
    monkeypatch.setitem(sys.modules, "acp_tui.ui.app", fake_app)
    return offered, launched


def write_two_agents(paths: Paths) -> None:
    paths.config_dir.mkdir(parents=True)
    paths.config_file.write_text(
        "[agents.alpha]\ncommand = 'alpha-acp'\n[agents.beta]\ncommand = 'beta-acp'\n"
    )


def test_main_asks_and_starts_the_chosen_agent(
    picker: tuple[list[list[str]], list[LaunchSpec]], acp_home: Paths, tmp_path: Path
) -> None:
    offered, launched = picker
    write_two_agents(acp_home)
    sys.modules["acp_tui.ui.agent_picker"].answer[0] = "beta"
    assert main([str(tmp_path)]) == 0
    assert offered == [["alpha", "beta", "demo"]]
    [spec] = launched
    assert list(spec.command.argv) == ["beta-acp"]


def test_main_leaving_the_picker_starts_nothing(
    picker: tuple[list[list[str]], list[LaunchSpec]], acp_home: Paths, tmp_path: Path
) -> None:
    offered, launched = picker
    write_two_agents(acp_home)
    assert main([str(tmp_path)]) == 0
    assert offered == [["alpha", "beta", "demo"]]
    assert launched == []


def test_main_with_dash_a_does_not_ask(
    picker: tuple[list[list[str]], list[LaunchSpec]], acp_home: Paths, tmp_path: Path
) -> None:
    offered, launched = picker
    write_two_agents(acp_home)
    assert main([str(tmp_path), "-a", "alpha"]) == 0
    assert offered == []
    [spec] = launched
    assert list(spec.command.argv) == ["alpha-acp"]


def test_agents_commands_never_import_textual_or_rich() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from acp_tui.cli import main\n"
        "for argv in (['agents', 'list'], ['agents', 'add', 'a', '--', 'a'],"
        " ['agents', 'remove', 'a'], ['agents', 'remove', 'a']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()),"
        " contextlib.redirect_stderr(io.StringIO()):\n"
        "        main(argv)\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]\n"
        "print(','.join(sorted(loaded)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=os.environ,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
