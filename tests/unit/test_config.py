"""Tests for loading and saving the settings file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import tomli_w

from acp_tui.config.paths import Paths
from acp_tui.config.settings import (
    AgentConfig,
    Settings,
    load_settings,
    save_settings,
    settings_to_toml,
)


@pytest.fixture
def config_file(acp_home: Paths) -> Path:
    acp_home.config_dir.mkdir(parents=True)
    return acp_home.config_file


def test_missing_file_gives_defaults_and_no_problem(config_file: Path) -> None:
    loaded = load_settings(config_file)
    assert loaded.settings == Settings()
    assert loaded.problems == []
    assert not config_file.exists()


def test_valid_file_is_read(config_file: Path) -> None:
    config_file.write_text(
        'default_agent = "claude"\nshow_thoughts = false\n'
        '[agents.claude]\ncommand = "claude-code-acp"\nargs = ["--x"]\nprotocol = 2\n'
        'env = { TOKEN = "t" }\n'
    )
    loaded = load_settings(config_file)
    assert loaded.problems == []
    assert loaded.settings.default_agent == "claude"
    assert loaded.settings.show_thoughts is False
    assert loaded.settings.agents["claude"] == AgentConfig(
        command="claude-code-acp", args=["--x"], protocol=2, env={"TOKEN": "t"}
    )


def test_bad_toml_names_file_line_and_column(config_file: Path) -> None:
    config_file.write_text('theme = "x"\nshow_thoughts = \n')
    loaded = load_settings(config_file)
    assert loaded.settings == Settings()
    [problem] = loaded.problems
    assert str(config_file) in problem
    assert "line 2, column 17" in problem  # the end of the line


def test_wrong_type_names_key_and_expectation(config_file: Path) -> None:
    config_file.write_text('[agents.claude]\ncommand = "c"\nprotocol = 3\n')
    loaded = load_settings(config_file)
    assert loaded.settings == Settings()
    [problem] = loaded.problems
    assert str(config_file) in problem
    assert "agents.claude.protocol" in problem
    assert "expected 1 or 2" in problem
    assert "got 3" in problem


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ('show_thoughts = "yes"', "show_thoughts", "boolean"),
        ('[agents.a]\ncommand = "c"\nprotocol = true', "agents.a.protocol", "1 or 2"),
        ('[agents.a]\ncommand = "c"\nargs = ["x", 1]', "agents.a.args[1]", "string"),
        ("[agents.a]\nargs = []", "agents.a.command", "required"),
        ('[agents."my.agent"]\ncommand = 5', 'agents."my.agent".command', "string"),
    ],
)
def test_each_type_problem_is_named(config_file: Path, text: str, key: str, expected: str) -> None:
    config_file.write_text(text + "\n")
    [problem] = load_settings(config_file).problems
    assert f"{config_file}: {key}: " in problem
    assert expected in problem


def test_unknown_keys_are_reported_one_message_each(config_file: Path) -> None:
    config_file.write_text('thme = "x"\n[agents.a]\ncommand = "c"\nargz = []\n')
    loaded = load_settings(config_file)
    assert loaded.settings == Settings()
    assert sorted(loaded.problems) == [
        f"{config_file}: agents.a.argz: unknown key",
        f"{config_file}: thme: unknown key",
    ]


def test_unreadable_or_undecodable_file_is_a_problem_not_an_error(config_file: Path) -> None:
    config_file.write_bytes(b"theme = '\xff'\n")
    [problem] = load_settings(config_file).problems
    assert str(config_file) in problem
    assert "UTF-8" in problem
    config_file.unlink()
    config_file.mkdir()
    [problem] = load_settings(config_file).problems
    assert str(config_file) in problem


@pytest.mark.parametrize("text", ["", 'theme = "x"\n', "theme = \n", "thme = 1\n"])
def test_loading_never_touches_the_file(config_file: Path, text: str) -> None:
    config_file.write_text(text)
    before = config_file.read_bytes()
    mtime = config_file.stat().st_mtime_ns
    load_settings(config_file)
    assert config_file.read_bytes() == before
    assert config_file.stat().st_mtime_ns == mtime
    assert os.listdir(config_file.parent) == [config_file.name]


def test_round_trip(config_file: Path) -> None:
    settings = Settings(
        default_agent="a",
        theme="nord",
        show_thoughts=False,
        agents={
            "a": AgentConfig(command="agent", args=["--acp"], env={"K": "v"}, title="Agent A"),
            "b.c": AgentConfig(command="b", protocol=2, additional_directories=["../lib"]),
        },
    )
    save_settings(settings, config_file)
    loaded = load_settings(config_file)
    assert loaded.problems == []
    assert loaded.settings == settings


def test_save_creates_the_directory(acp_home: Paths) -> None:
    save_settings(Settings(theme="nord"), acp_home.config_file)
    assert load_settings(acp_home.config_file).settings.theme == "nord"


def test_save_keeps_the_file_mode(config_file: Path) -> None:
    config_file.write_text("")
    config_file.chmod(0o644)
    save_settings(Settings(), config_file)
    assert config_file.stat().st_mode & 0o777 == 0o644


def test_settings_to_toml_matches_what_is_saved(config_file: Path) -> None:
    settings = Settings(agents={"a": AgentConfig(command="x")})
    save_settings(settings, config_file)
    assert config_file.read_text() == settings_to_toml(settings)
    assert "default_agent" not in settings_to_toml(settings)  # None is absent, not null


@pytest.mark.parametrize("failing", ["replace", "dump"])
def test_failed_save_leaves_old_file_and_no_temp_file(
    config_file: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    config_file.write_text('theme = "old"\n')
    before = config_file.read_bytes()

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    if failing == "replace":
        monkeypatch.setattr(os, "replace", boom)
    else:
        monkeypatch.setattr(tomli_w, "dump", boom)
    with pytest.raises(OSError, match="No space left"):
        save_settings(Settings(theme="new"), config_file)
    assert config_file.read_bytes() == before
    assert os.listdir(config_file.parent) == [config_file.name]
