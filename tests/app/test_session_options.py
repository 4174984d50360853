"""The session options bar against the real demo agent: pickers, live updates and usage."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.widgets import Select, Static, Switch

from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.session_config import SessionConfigBoolean, SessionConfigSelect
from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.session_options import SessionOptions, format_usage
from tests.app.helpers import wait_for

Sent = list[dict[str, Any]]


PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
"""The representative option tests run on ACP v1 and on the v2 draft (``configId`` options)."""


async def start(
    make_app: Callable[..., AcpApp], pilot_size: tuple[int, int] = (140, 40), protocol: int = 1
) -> Any:
    """Run the app; returns (app, pilot context)."""
    app = make_app(protocol=protocol)
    return app, app.run_test(size=pilot_size)


async def mount_bar(app: AcpApp, pilot: Any, sent: Sent) -> SessionOptions:
    await wait_for(pilot, lambda: app.session is not None)
    assert app.client is not None
    assert app.session is not None
    app.client.connection.tracer = lambda direction, msg: (
        sent.append(msg) if direction == "send" else None
    )
    bar = app.chat.current_pane.query_one(SessionOptions)  # the chat screen's own bar
    await wait_for(pilot, lambda: len(bar.query(Select)) >= 2)
    await pilot.pause()
    return bar


def selects(bar: SessionOptions) -> dict[str, Select[str]]:
    return {s.name or "": s for s in bar.query(Select).results(Select)}


def picker(bar: SessionOptions, name: str) -> Select[str] | None:
    """The picker called ``name``; None while the bar is rebuilt (a change of the options' set
    recomposes it, and its pickers are gone for a moment)."""
    return selects(bar).get(name)


def value_of(bar: SessionOptions, name: str) -> object:
    """The value of the picker called ``name``; None while the bar is rebuilt."""
    select = picker(bar, name)
    return None if select is None else select.value


def option(transcript: Transcript, config_id: str) -> Any:
    return next(o for o in transcript.config_options if o.id == config_id)


def requests(sent: Sent, method: str) -> list[dict[str, Any]]:
    return [m for m in sent if m.get("method") == method]


@PROTOCOLS
async def test_bar_shows_model_and_its_settings_first_then_mode_and_verbose_switch(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app, ctx = await start(make_app, protocol=protocol)
    async with ctx as pilot:
        bar = await mount_bar(app, pilot, [])
        assert bar.display
        names = [s.name for s in bar.query(Select).results(Select)]
        # The demo lists mode first and its model_config "effort" last; the model is shown
        # first anyway, with its settings beside it.
        assert names == ["config:model", "config:effort", "config:mode"]
        picks = selects(bar)
        assert picks["config:model"].value == "demo-fast"
        assert picks["config:mode"].value == "ask"
        # Legacy modes exist too on v1 (v2 has none), but a "mode" config option replaces them.
        assert app.session is not None
        assert (app.session.transcript.modes is not None) == (protocol == 1)
        assert "mode" not in picks
        switch = bar.query_one(Switch)
        assert switch.name == "config:verbose"
        assert switch.value is False
        assert "Verbose" in str(bar.query_one(".option-label", Static).render())
        assert not str(bar.query_one("#session-usage", Static).render())


@PROTOCOLS
async def test_choosing_a_model_sends_set_config_option(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app, ctx = await start(make_app, protocol=protocol)
    sent: Sent = []
    async with ctx as pilot:
        bar = await mount_bar(app, pilot, sent)
        assert app.session is not None
        transcript = app.session.transcript
        model = selects(bar)["config:model"]
        model.focus()
        await pilot.press("enter", "down", "enter")
        await wait_for(pilot, lambda: option(transcript, "model").current_value == "demo-smart")
        calls = requests(sent, "session/set_config_option")
        assert len(calls) == 1
        params = calls[0]["params"]
        assert params["configId"] == "model"
        assert params["value"] == "demo-smart"
        assert params.get("type", "id") == "id"  # v1 may omit it; v2 always says "id"
        if protocol == 2:
            assert params == {
                "sessionId": app.session.session_id,
                "configId": "model",
                "type": "id",
                "value": "demo-smart",
            }
        assert model.value == "demo-smart"
        await pilot.pause()
        # The agent's answer updated the widget without sending anything back.
        assert len(requests(sent, "session/set_config_option")) == 1


@PROTOCOLS
async def test_toggling_verbose_sends_a_boolean(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app, ctx = await start(make_app, protocol=protocol)
    sent: Sent = []
    async with ctx as pilot:
        bar = await mount_bar(app, pilot, sent)
        assert app.session is not None
        transcript = app.session.transcript
        bar.query_one(Switch).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: option(transcript, "verbose").current_value is True)
        (call,) = requests(sent, "session/set_config_option")
        assert call["params"]["configId"] == "verbose"
        assert call["params"]["type"] == "boolean"
        assert call["params"]["value"] is True
        verbose = option(transcript, "verbose")
        assert isinstance(verbose, SessionConfigBoolean)
        assert bar.query_one(Switch).value is True


async def test_agent_pushed_mode_change_updates_the_bar_without_echo(
    make_app: Callable[..., AcpApp],
) -> None:
    # v1 only: v2 has no session modes (no session/set_mode or current_mode_update).
    app, ctx = await start(make_app)
    sent: Sent = []
    async with ctx as pilot:
        bar = await mount_bar(app, pilot, sent)
        assert app.client is not None
        assert app.session is not None
        mode = selects(bar)["config:mode"]
        await app.client.set_mode(app.session.session_id, "code")
        await wait_for(pilot, lambda: mode.value == "code")
        await pilot.pause()
        assert requests(sent, "session/set_mode")
        assert not requests(sent, "session/set_config_option")
        # Then a config option pushed by the agent (here: the answer to another client call).
        await app.client.set_config_option(app.session.session_id, "model", "demo-smart")
        await wait_for(pilot, lambda: value_of(bar, "config:model") == "demo-smart")
        await pilot.pause()
        assert len(requests(sent, "session/set_config_option")) == 1
        await wait_for(pilot, lambda: value_of(bar, "config:mode") is not None)
        assert selects(bar)["config:mode"].value == "code"  # (``mode`` if the bar was kept)


async def test_failed_change_is_reverted(make_app: Callable[..., AcpApp]) -> None:
    app, ctx = await start(make_app)
    async with ctx as pilot:
        bar = await mount_bar(app, pilot, [])
        assert app.session is not None
        transcript = app.session.transcript
        model = option(transcript, "model")
        assert isinstance(model, SessionConfigSelect)
        # The agent offers a value it then refuses: the bar goes back to the agent's state.
        bogus_choice = model.flat_options()[0].model_copy(
            update={"value": "demo-bogus", "name": "Bogus"}
        )
        bogus = model.model_copy(update={"options": [*model.flat_options(), bogus_choice]})
        before = selects(bar)["config:model"]
        transcript.set_config_options(
            [bogus if o.id == "model" else o for o in transcript.config_options]
        )
        # A new choice changes the bar's structure: its pickers are composed anew.
        await wait_for(
            pilot,
            lambda: (
                picker(bar, "config:model") not in (None, before)
                and selects(bar)["config:model"].is_mounted
            ),
        )
        select = selects(bar)["config:model"]
        select.value = "demo-bogus"
        await wait_for(pilot, lambda: "Could not change the setting" in _notices(transcript))
        await wait_for(pilot, lambda: value_of(bar, "config:model") == "demo-fast")


def _notices(transcript: Transcript) -> str:
    return " ".join(getattr(e, "text", "") for e in transcript.entries)


async def test_usage_appears_after_a_turn(make_app: Callable[..., AcpApp]) -> None:
    app, ctx = await start(make_app)
    async with ctx as pilot:
        bar = await mount_bar(app, pilot, [])
        assert app.session is not None
        transcript = app.session.transcript
        usage_label = bar.query_one("#session-usage", Static)
        await pilot.press(*"usage", "enter")
        await wait_for(pilot, lambda: transcript.usage is not None)
        # The turn may report its usage more than once: the label shows the last report.
        await wait_for(pilot, lambda: str(usage_label.render()) == format_usage(transcript.usage))
        assert "ctx" in str(usage_label.render())
        assert "$" in str(usage_label.render())


@pytest.mark.parametrize(
    ("used", "size", "amount", "currency", "text"),
    [
        (53_000, 200_000, 0.045, "USD", "53k/200k ctx · $0.045"),
        (950, 8_000, None, None, "950/8.0k ctx"),
        (1_500_000, 2_000_000, 12.5, "EUR", "1.5M/2.0M ctx · 12.50 EUR"),
        (14, 200_000, 0.000042, "USD", "14/200k ctx · $<0.001"),
        (0, 200_000, 0.0, "USD", "0/200k ctx · $0.000"),
    ],
)
def test_format_usage(
    used: int, size: int, amount: float | None, currency: str | None, text: str
) -> None:
    from acp_tui.client.session.entries import Usage

    assert format_usage(Usage(used, size, amount, currency)) == text
    assert format_usage(None) == ""


async def test_a_flood_of_usage_updates_redraws_the_bar_a_few_times_ending_on_the_last(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bar was redrawn once per batch of updates; while an agent floods, the connection
    lets the app run every few milliseconds, so a batch was a handful of updates and the
    redraws (a layout of the screen each) most of the flood's cost."""
    import asyncio

    from acp_tui.protocol.updates import UsageUpdate

    redraws: list[int] = []
    redraw = SessionOptions.refresh_from_transcript

    def counted(self: SessionOptions) -> None:
        redraws.append(1)
        redraw(self)

    monkeypatch.setattr(SessionOptions, "refresh_from_transcript", counted)
    app, ctx = await start(make_app)
    async with ctx as pilot:
        bar = await mount_bar(app, pilot, [])
        assert app.session is not None
        transcript = app.session.transcript
        usage_label = bar.query_one("#session-usage", Static)
        redraws.clear()
        for used in range(1, 1001):
            transcript.apply(UsageUpdate(used=used, size=200_000))
            await asyncio.sleep(0)  # the app runs between the updates, as in a flood
        last = format_usage(transcript.usage)
        assert "1.0k/200k" in last
        await wait_for(pilot, lambda: str(usage_label.render()) == last)
        assert len(redraws) < 200


async def test_the_values_of_an_option_left_out_by_the_cap_are_counted_in_its_list(
    make_app: Callable[..., AcpApp],
) -> None:
    """An option of 3,000 values is held as its first 1,000 (`acp_tui.protocol.held`): its
    list said nothing of the rest. A last line counts them; it cannot be chosen."""
    from textual.widgets._select import SelectOverlay

    from acp_tui.client.agent.dialects.v1 import V1Dialect
    from acp_tui.protocol.held import HOLD, hold_update
    from acp_tui.ui.option_commands import choose_option
    from acp_tui.ui.widgets.session_options import LEFT_OUT

    values = [{"value": f"v{n}", "name": f"Model {n}"} for n in range(3000)]
    update = {
        "sessionUpdate": "config_option_update",
        "configOptions": [
            {
                "id": "model",
                "name": "Model",
                "type": "select",
                "category": "model",
                "currentValue": "v0",
                "options": values,
            }
        ],
    }
    params = {"sessionId": "s", "update": update}
    hold_update(update)
    (parsed,) = V1Dialect().parse_update(params)[1]
    app, ctx = await start(make_app)
    async with ctx as pilot:
        bar = await mount_bar(app, pilot, [])
        assert app.session is not None
        app.session.transcript.apply(parsed)  # type: ignore[arg-type]
        await wait_for(
            pilot, lambda: len(getattr(picker(bar, "config:model"), "_options", ())) == HOLD + 1
        )
        select = selects(bar)["config:model"]
        await wait_for(pilot, lambda: select.is_mounted)
        last_label, last_value = select._options[-1]
        assert str(last_label) == "… 2,000 more values from the agent (not kept)"
        assert last_value == LEFT_OUT
        overlay = select.query_one(SelectOverlay)
        assert overlay.get_option_at_index(HOLD).disabled
        assert not overlay.get_option_at_index(HOLD - 1).disabled
        # /model names none of them: the choices said, and the count.
        notes: list[str] = []
        app.notify = lambda message, **_: notes.append(message)  # type: ignore[method-assign]
        assert app.slot is not None
        assert app.workspace is not None
        choose_option(app, app.workspace, app.slot, "model", "nothing like it")
        assert notes
        assert notes[-1].endswith("(and 2,000 more from the agent, not kept)")
