"""The chat app opens the "Add an agent" dialog: from the palette, and once on a first run."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from textual import events
from textual.widgets import OptionList

import acp_tui.cli as cli
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings, save_settings
from acp_tui.registry.first_run import should_offer_registry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.add_agent import AddAgentDialog
from tests.app.helpers import wait_for, wait_for_screen
from tests.registry_helpers import (
    RegistryServer,
    fixture_archives,
    registry_json,
    serve_fixture,
    write_file_registry,
)


@pytest.fixture
def registry_url(acp_home: Paths, tmp_path: Path) -> str:
    """A file:// registry named by the config file, so nothing goes to the network."""
    url = write_file_registry(tmp_path, registry_json("https://x.invalid", fixture_archives()))
    save_settings(Settings(registry_url=url), acp_home.config_file)
    return url


@pytest.fixture
def server(acp_home: Paths) -> Iterator[RegistryServer]:
    with serve_fixture() as state:
        save_settings(Settings(registry_url=state.url), acp_home.config_file)
        yield state


async def test_the_palette_has_add_an_agent(
    make_app: Callable[..., AcpApp], registry_url: str
) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Add an agent" in titles
        [command] = [c for c in app.get_system_commands(app.screen) if c.title == "Add an agent"]
        command.callback()
        dialog = await wait_for_screen(pilot, AddAgentDialog)
        assert not dialog.first_run
        assert dialog.registry_url == registry_url
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AddAgentDialog))


async def test_a_first_run_offers_the_registry_once_the_demo_session_is_open(
    make_app: Callable[..., AcpApp], server: RegistryServer, acp_home: Paths
) -> None:
    app = AcpApp(replace(make_app().launch, offer_registry=True))
    async with app.run_test(size=(110, 44)) as pilot:
        dialog = await wait_for_screen(pilot, AddAgentDialog)
        assert app.session is not None  # the demo agent started first, without waiting
        assert dialog.first_run
        options = dialog.query_one("#add-list", OptionList)
        await wait_for(pilot, lambda: options.option_count > 0)
        options.highlighted = next(i for i, e in enumerate(dialog.entries) if e.id == "alpha")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, AddAgentDialog))
        await wait_for(pilot, lambda: any(n.title == "Agent added" for n in app._notifications))
        [note] = [n for n in app._notifications if n.title == "Agent added"]
        assert "Start it with: acp-tui -a alpha" in note.message
        assert "it is the only agent configured" in note.message
    settings = cli.load_settings(acp_home.config_file).settings
    assert settings.agents["alpha"].registry_id == "alpha"
    assert not should_offer_registry(Settings(), acp_home)  # answered: never again


async def test_no_dialog_once_the_user_has_typed_even_if_the_prompt_is_empty(
    make_app: Callable[..., AcpApp], registry_url: str, acp_home: Paths
) -> None:
    """Keys typed while the agent starts may still be on their way to the prompt when the
    session opens (under load they were: the dialog took them). Whoever has typed is told of
    the registry in passing, and offered it again at the next start."""
    app = AcpApp(replace(make_app().launch, offer_registry=True))
    async with app.run_test(size=(110, 44)) as pilot:
        # Typed, then taken back (the prompt is empty), while the agent starts. The keys go
        # in as a terminal sends them: Pilot's press would wait for the app to be idle.
        assert app._driver is not None
        for key, char in (("x", "x"), ("backspace", None)):
            event = events.Key(key, char)
            event.set_sender(app)
            app._driver.send_message(event)
        await wait_for(pilot, lambda: app.chat_screen.typed)
        assert app.session is None  # (before the session opened)
        await wait_for(pilot, lambda: any(n.title == "More agents" for n in app._notifications))
        assert app.session is not None
        assert not isinstance(app.screen, AddAgentDialog)
        assert app.chat.current_pane.prompt.text == ""
    assert should_offer_registry(Settings(), acp_home)  # not answered: offered next time


async def test_keeping_the_demo_agent_is_remembered(
    make_app: Callable[..., AcpApp], registry_url: str, acp_home: Paths
) -> None:
    assert should_offer_registry(Settings(), acp_home)
    app = AcpApp(replace(make_app().launch, offer_registry=True))
    async with app.run_test(size=(110, 44)) as pilot:
        await wait_for_screen(pilot, AddAgentDialog)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AddAgentDialog))
    assert not should_offer_registry(Settings(), acp_home)


async def test_no_offer_without_the_flag(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.pause()
        assert not isinstance(app.screen, AddAgentDialog)


# -- when the command line asks for the offer ------------------------------------------------


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[LaunchSpec]]:
    """The launch specs the chat would have run (the app itself is not started)."""
    import gc

    import acp_tui.ui.app as app_module

    specs: list[LaunchSpec] = []

    def fake_run_app(launch: LaunchSpec) -> int:
        specs.append(launch)
        return 0

    monkeypatch.setattr(app_module, "run_app", fake_run_app)
    collecting = gc.isenabled()
    yield specs
    if collecting:
        gc.enable()  # the chat start pauses the collector until the app resumes it


def test_the_cli_offers_only_on_a_first_run_with_nothing_configured(
    acp_home: Paths, tmp_path: Path, launched: list[LaunchSpec]
) -> None:
    assert cli.main([str(tmp_path)]) == 0
    assert cli.main([str(tmp_path), "-a", "demo"]) == 0
    assert cli.main([str(tmp_path), "--", sys.executable, "-c", "pass"]) == 0
    save_settings(Settings(default_agent="demo"), acp_home.config_file)
    assert cli.main([str(tmp_path)]) == 0
    save_settings(Settings(agents={"x": AgentConfig(command="x")}), acp_home.config_file)
    assert cli.main([str(tmp_path)]) == 0
    assert [spec.offer_registry for spec in launched] == [True, False, False, False, False]


def test_the_cli_does_not_offer_once_answered(
    acp_home: Paths, tmp_path: Path, launched: list[LaunchSpec]
) -> None:
    from acp_tui.registry.first_run import offer_answered

    offer_answered(acp_home)
    assert cli.main([str(tmp_path)]) == 0
    assert [spec.offer_registry for spec in launched] == [False]
