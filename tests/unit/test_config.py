"""Tests for loading and saving the settings file."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import FrozenInstanceError, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pytest

from acp_tui.config.paths import Paths
from acp_tui.config.settings import (
    AgentConfig,
    Settings,
    load_settings,
    save_settings,
    settings_to_toml,
)
from acp_tui.config.strict import Invalid, validate


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


@pytest.mark.parametrize("failing", ["replace", "fsync"])
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
        monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError, match="No space left"):
        save_settings(Settings(theme="new"), config_file)
    assert config_file.read_bytes() == before
    assert os.listdir(config_file.parent) == [config_file.name]


COMMENTED = """\
# My acp-tui settings.
default_agent = "a"
theme = "acp-dusk"  # dark, for the evening

[agents.a]
# The one I use most.
command = "agent"
args = ["--acp"]  # required
env = { K = "v" }

# Kept for the old project.
[agents.b]
command = "b"
"""


def test_saving_keeps_the_comments_and_layout_of_what_did_not_change(config_file: Path) -> None:
    config_file.write_text(COMMENTED)
    loaded = load_settings(config_file).settings
    save_settings(replace(loaded, theme="acp-paper"), config_file)
    assert config_file.read_text() == COMMENTED.replace('"acp-dusk"', '"acp-paper"')


def test_saving_removes_what_is_gone_and_adds_what_is_new(config_file: Path) -> None:
    config_file.write_text(COMMENTED)
    loaded = load_settings(config_file).settings
    agents = {
        "a": replace(loaded.agents["a"], env={"K": "v", "L": "w"}),
        "c": AgentConfig(command="c"),
    }
    settings = replace(loaded, default_agent=None, show_thoughts=False, agents=agents)
    save_settings(settings, config_file)
    text = config_file.read_text()
    assert load_settings(config_file) == load_settings(config_file)  # no problems, stable
    assert load_settings(config_file).settings == settings
    assert "# My acp-tui settings." in text
    assert "# The one I use most." in text
    assert 'args = ["--acp"]  # required' in text
    assert "[agents.b]" not in text
    assert "default_agent" not in text
    assert text.index("show_thoughts = false") < text.index("[agents.a]")
    assert "protocol" not in text  # defaults the file left out stay out


def test_saving_over_a_file_that_is_not_toml_writes_it_afresh(config_file: Path) -> None:
    config_file.write_text("theme = = nonsense\n")
    save_settings(Settings(theme="acp-paper"), config_file)
    assert config_file.read_text() == settings_to_toml(Settings(theme="acp-paper"))


def test_every_problem_in_the_file_is_reported(config_file: Path) -> None:
    config_file.write_text(
        'theme = 1\nshow_thoughts = "yes"\n[agents."my.agent"]\nargs = ["x", 1]\n'
        'protocol = 3\nenv = { A = true }\n[agents.b]\ncommand = "b"\ntitle = ["B"]\n'
    )
    loaded = load_settings(config_file)
    assert loaded.settings == Settings()
    assert loaded.problems == [
        f"{config_file}: theme: expected a valid string (got 1)",
        f"{config_file}: show_thoughts: expected a valid boolean (got 'yes')",
        f'{config_file}: agents."my.agent".command: required key is missing',
        f'{config_file}: agents."my.agent".args[1]: expected a valid string (got 1)',
        f'{config_file}: agents."my.agent".env.A: expected a valid string (got True)',
        f'{config_file}: agents."my.agent".protocol: expected 1 or 2 (got 3)',
        f"{config_file}: agents.b.title: expected a valid string (got ['B'])",
    ]


def test_a_long_value_is_shortened_in_the_message(config_file: Path) -> None:
    config_file.write_text(f'show_thoughts = "{"x" * 60}"\n')
    [problem] = load_settings(config_file).problems
    assert problem.endswith(f"show_thoughts: expected a valid boolean (got '{'x' * 36}...)")


def test_the_top_level_must_be_a_table() -> None:
    with pytest.raises(Invalid) as caught:
        validate(Settings, [])
    assert caught.value.problems == [((), "expected a valid dictionary (got [])")]


def test_settings_are_frozen_and_compare_by_value() -> None:
    settings = Settings(agents={"a": AgentConfig(command="x")})
    assert settings == Settings(agents={"a": AgentConfig(command="x")})
    assert Settings().agents is not Settings().agents  # no shared mutable default
    with pytest.raises(FrozenInstanceError):
        settings.theme = "nord"  # type: ignore[misc]


# -- the strict validator, on its own --------------------------------------------------------


def _even(value: int) -> None:
    if value % 2:
        raise ValueError("expected an even number")


@dataclass(frozen=True, kw_only=True)
class Inner:
    size: int = field(metadata={"check": _even})
    label: str | None = None


@dataclass(frozen=True, kw_only=True)
class Sample:
    count: int = 0
    ratio: float = 0.5
    kind: Literal["a", "b", "c"] = "a"
    tags: list[str] = field(default_factory=list)
    inner: dict[str, Inner] = field(default_factory=dict)
    extra: Any = None


def problems(data: object) -> list[tuple[tuple[str | int, ...], str]]:
    with pytest.raises(Invalid) as caught:
        validate(Sample, data)
    return caught.value.problems


def test_a_boolean_is_never_a_number() -> None:
    assert problems({"count": True, "ratio": False}) == [
        (("count",), "expected a valid integer (got True)"),
        (("ratio",), "expected a valid number (got False)"),
    ]


def test_an_integer_is_accepted_for_a_float_but_not_the_reverse() -> None:
    sample = validate(Sample, {"ratio": 1})
    assert sample.ratio == 1.0
    assert type(sample.ratio) is float
    assert problems({"count": 1.0}) == [(("count",), "expected a valid integer (got 1.0)")]


def test_a_literal_names_every_choice_and_matches_types_exactly() -> None:
    assert problems({"kind": "d"}) == [(("kind",), "expected 'a', 'b' or 'c' (got 'd')")]
    assert validate(Sample, {"kind": "c"}).kind == "c"


def test_nested_locations_and_field_checks() -> None:
    data = {"inner": {"x.y": {"size": 3}, "z": {"size": "2", "label": 1, "colour": "red"}}}
    assert problems(data) == [
        (("inner", "x.y", "size"), "expected an even number"),
        (("inner", "z", "size"), "expected a valid integer (got '2')"),
        (("inner", "z", "label"), "expected a valid string (got 1)"),
        (("inner", "z", "colour"), "unknown key"),
    ]
    sample = validate(Sample, {"inner": {"x": {"size": 2}}, "tags": ["t"], "extra": [1]})
    assert sample == Sample(inner={"x": Inner(size=2)}, tags=["t"], extra=[1])


def test_wrong_containers_are_reported_without_looking_inside() -> None:
    assert problems({"tags": "t", "inner": ["x"]}) == [
        (("tags",), "expected a valid list (got 't')"),
        (("inner",), "expected a valid dictionary (got ['x'])"),
    ]


def test_the_settings_modules_do_not_import_pydantic() -> None:
    # pydantic costs ~55 ms to import; the settings and themes are read before the first frame.
    code = "import acp_tui.config.settings, acp_tui.ui.themes, sys; "
    code += "print('pydantic' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[2],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    "url",
    [
        "https://registry.example/registry.json",
        "file:///srv/registry.json",
        "http://127.0.0.1:8123/registry.json",
        "http://localhost/registry.json",
        "http://[::1]:9/registry.json",
    ],
)
def test_registry_url_accepts_https_file_and_loopback_http(config_file: Path, url: str) -> None:
    config_file.write_text(f'registry_url = "{url}"\n')
    loaded = load_settings(config_file)
    assert loaded.problems == []
    assert loaded.settings.registry_url == url


@pytest.mark.parametrize(
    "url",
    ["http://registry.example/r.json", "http://127.0.0.1.evil.example/r", "ftp://x/r", "r.json"],
)
def test_registry_url_refuses_plain_http_elsewhere_and_other_schemes(
    config_file: Path, url: str
) -> None:
    config_file.write_text(f'registry_url = "{url}"\n')
    [problem] = load_settings(config_file).problems
    assert "registry_url" in problem
    assert "https://" in problem


@pytest.mark.parametrize(("text", "seconds"), [("", 120), ("5", 5), ("2.5", 2.5)])
def test_request_timeout_is_a_number_of_seconds(
    config_file: Path, text: str, seconds: float
) -> None:
    config_file.write_text(f"request_timeout = {text}\n" if text else "")
    loaded = load_settings(config_file)
    assert loaded.problems == []
    assert loaded.settings.request_timeout == seconds


@pytest.mark.parametrize("text", ["0", "-3", "0.5", "100000", '"120"', "true"])
def test_request_timeout_refuses_what_is_no_wait(config_file: Path, text: str) -> None:
    config_file.write_text(f"request_timeout = {text}\n")
    loaded = load_settings(config_file)
    [problem] = loaded.problems
    assert "request_timeout" in problem
    assert loaded.settings.request_timeout == 120


def test_the_registry_fields_of_an_agent_round_trip(config_file: Path) -> None:
    agent = AgentConfig(
        command="npx",
        args=["-y", "@x/agent@1.2.3"],
        registry_id="x-agent",
        registry_version="1.2.3",
        registry_distribution="npx",
    )
    save_settings(Settings(agents={"x-agent": agent}), config_file)
    assert load_settings(config_file).settings.agents["x-agent"] == agent
    config_file.write_text('[agents.x]\ncommand = "x"\nregistry_distribution = "docker"\n')
    [problem] = load_settings(config_file).problems
    assert "agents.x.registry_distribution" in problem
