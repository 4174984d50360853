"""The agent picker: Enter starts the highlighted agent, Esc or q leaves without starting any."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from acp_tui.config.settings import AgentConfig, Settings
from acp_tui.ui.agent_picker import AgentPicker

SETTINGS = Settings(
    theme="acp-meadow",
    agents={
        "alpha": AgentConfig(command="alpha-acp", args=["--stdio"]),
        "beta": AgentConfig(command="beta", title="Beta Agent"),
    },
)
NAMES = ["alpha", "beta", "demo"]


async def test_enter_returns_the_highlighted_agent() -> None:
    app = AgentPicker(NAMES, SETTINGS)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "acp-meadow"
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.return_value == "beta"


async def test_the_demo_agent_can_be_chosen() -> None:
    app = AgentPicker(NAMES, SETTINGS)
    async with app.run_test() as pilot:
        await pilot.press("end", "enter")
        await pilot.pause()
    assert app.return_value == "demo"


async def test_the_options_show_each_agent_command() -> None:
    app = AgentPicker(NAMES, SETTINGS)
    async with app.run_test() as pilot:
        await pilot.pause()
        options = app.query_one("#agents", OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(3)]
    assert labels == [
        "alpha  alpha-acp --stdio",
        "beta  Beta Agent: beta",
        "demo  the bundled demo agent",
    ]


@pytest.mark.parametrize("key", ["escape", "q"])
async def test_leaving_returns_none(key: str) -> None:
    app = AgentPicker(NAMES, SETTINGS)
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
    assert app.return_value is None
