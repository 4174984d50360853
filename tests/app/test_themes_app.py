"""The app registers the themes, applies the configured one, saves a switch, reports problems."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from textual.command import CommandList

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.process.command import AgentCommand
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings, load_settings, save_settings
from acp_tui.ui.app import AcpApp
from tests.app.helpers import wait_for


def build_app(
    tmp_path: Path, settings: Settings | None = None, warnings: tuple[str, ...] = ()
) -> AcpApp:
    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(tmp_path / "demo")]
    launch = LaunchSpec(
        command=AgentCommand(argv, cwd=tmp_path, name="demo"),
        cwd=tmp_path,
        display_name="demo",
        settings=settings or Settings(),
        warnings=warnings,
    )
    return AcpApp(launch)


def notices(app: AcpApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def test_packaged_themes_are_registered_and_the_configured_one_applied(
    tmp_path: Path,
) -> None:
    app = build_app(tmp_path, Settings(theme="acp-paper"))
    async with app.run_test() as pilot:
        await pilot.pause()
        for name in ("acp-dusk", "acp-ember", "acp-paper", "acp-meadow"):
            assert name in app.available_themes
        assert app.theme == "acp-paper"
        assert not app.current_theme.dark
        assert app.get_css_variables()["primary"].lower() == "#2f5d8a"
        assert notices(app) == []


async def test_user_themes_are_registered_and_a_bad_one_is_reported(
    tmp_path: Path, acp_home: Paths
) -> None:
    user = acp_home.data_dir / "themes"
    user.mkdir(parents=True)
    (user / "mine.toml").write_text('name = "mine"\ndark = true\nprimary = "#aa5500"\n')
    (user / "broken.toml").write_text('name = "broken"\ndark = true\nprimary = "nope"\n')
    app = build_app(tmp_path, Settings(theme="mine"))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "mine"
        assert "broken" not in app.available_themes
        [notice] = notices(app)
        assert notice.startswith("Theme problems: ")
        assert "broken.toml" in notice


async def test_an_unknown_theme_falls_back_and_leaves_the_config_alone(
    tmp_path: Path, acp_home: Paths
) -> None:
    save_settings(Settings(theme="gone"), acp_home.config_file)
    before = acp_home.config_file.read_bytes()
    app = build_app(tmp_path, Settings(theme="gone"))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "textual-dark"
        [notice] = notices(app)
        assert "no theme named 'gone'" in notice
        await pilot.pause()
    assert acp_home.config_file.read_bytes() == before


async def test_switching_theme_is_saved_to_the_config(tmp_path: Path, acp_home: Paths) -> None:
    settings = Settings(agents={"alpha": AgentConfig(command="alpha")})
    save_settings(settings, acp_home.config_file)
    app = build_app(tmp_path, settings)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: not app.theme_files_pending)
        app.theme = "acp-ember"
        await wait_for(
            pilot, lambda: load_settings(acp_home.config_file).settings.theme == "acp-ember"
        )
    loaded = load_settings(acp_home.config_file)
    assert loaded.problems == []
    assert loaded.settings == replace(settings, theme="acp-ember")


async def test_switching_from_the_command_palette(tmp_path: Path, acp_home: Paths) -> None:
    app = build_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: not app.theme_files_pending)
        app.action_change_theme()
        await pilot.pause()
        await pilot.press(*"acp-meadow")

        def meadow_highlighted() -> bool:
            found = app.screen.query(CommandList)
            if not found:
                return False
            option = found.first().highlighted_option
            return option is not None and "acp-meadow" in str(option.prompt)

        await wait_for(pilot, meadow_highlighted)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.theme == "acp-meadow")
        await wait_for(pilot, lambda: acp_home.config_file.exists())
    assert load_settings(acp_home.config_file).settings.theme == "acp-meadow"


async def test_a_broken_config_is_not_overwritten_by_a_switch(
    tmp_path: Path, acp_home: Paths
) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text("# mine\n[agents.alpha]\ncommand = 7\n")
    before = acp_home.config_file.read_bytes()
    problems = load_settings(acp_home.config_file).problems
    app = build_app(tmp_path, warnings=tuple(problems))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: not app.theme_files_pending)
        app.theme = "acp-dusk"
        await wait_for(pilot, lambda: any("Theme not saved" in n for n in notices(app)))
    assert acp_home.config_file.read_bytes() == before
    left = sorted(p.name for p in acp_home.config_dir.iterdir())
    assert left == ["config.toml", "config.toml.lock"]  # no temp file


async def test_config_warnings_are_shown_on_start(tmp_path: Path) -> None:
    warning = "/home/u/.config/acp-tui/config.toml: agents.alpha.protocol: expected 1 or 2 (got 9)"
    app = build_app(tmp_path, warnings=(warning,))
    async with app.run_test() as pilot:
        await pilot.pause()
        [notice] = notices(app)
        assert notice.startswith("Config file problems: ")
        assert warning in notice
        assert "default settings" in notice


async def test_textual_theme_goes_first_and_the_theme_files_follow(tmp_path: Path) -> None:
    app = build_app(tmp_path)  # the default theme, textual-dark, needs no file
    assert app.theme_files_pending
    assert "acp-dusk" not in app.available_themes
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: "acp-dusk" in app.available_themes)
        assert not app.theme_files_pending
        assert app.theme == "textual-dark"
        assert notices(app) == []


async def test_a_user_theme_file_may_replace_a_textual_theme_so_it_is_read_first(
    tmp_path: Path, acp_home: Paths
) -> None:
    user = acp_home.data_dir / "themes"
    user.mkdir(parents=True)
    (user / "mine.toml").write_text('name = "textual-dark"\ndark = true\nprimary = "#aa5500"\n')
    app = build_app(tmp_path)
    assert not app.theme_files_pending
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.current_theme.primary == "#aa5500"  # the user's, not Textual's
