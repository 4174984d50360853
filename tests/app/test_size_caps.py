"""Huge lists from an agent are capped for display ("… N more"), and what one message can make
the app hold is capped too (`acp_tui.protocol.held`): the rest is counted, and shown in the same
"… N more"."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from acp_tui.client.agent.dialects.v1 import V1Dialect
from acp_tui.client.session.entries import (
    MessageEntry,
    PlanEntryBlock,
    PlanEntryView,
    ToolCallEntry,
)
from acp_tui.client.session.forms import MAX_FIELDS, Form
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.client_methods import RequestPermissionRequest
from acp_tui.protocol.content import ImageContent
from acp_tui.protocol.elicitation import ElicitationSchema
from acp_tui.protocol.held import (
    FIELDS,
    HOLD,
    MEDIA,
    hold_elicitation,
    hold_permission,
    hold_update,
)
from acp_tui.protocol.methods import SessionInfo
from acp_tui.protocol.tools import ToolCallLocation
from acp_tui.protocol.updates import AvailableCommand, SessionUpdate
from acp_tui.ui.browser.rows import WINDOW, RowState, SessionRows
from acp_tui.ui.dialogs.permission import OPTIONS_SHOWN, PermissionDialog
from acp_tui.ui.plain_text import LIST_LIMIT
from acp_tui.ui.transcript.render import RenderOptions, Styles, render_entry
from acp_tui.ui.widgets.completion import command_choices
from tests.app.helpers import wait_for, wait_for_screen

MANY = 200_000


def plain(renderable: object) -> str:
    from rich.console import Console

    console = Console(width=120, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


def test_a_plan_of_200k_entries_shows_the_first_and_counts_the_rest() -> None:
    block = PlanEntryBlock(
        entries=[PlanEntryView(f"step {n}", "medium", "pending") for n in range(MANY)]
    )
    text = plain(render_entry(block, RenderOptions(Styles())))
    assert f"step {LIST_LIMIT - 1}\n" in text
    assert f"step {LIST_LIMIT}\n" not in text
    assert f"… {MANY - LIST_LIMIT:,} more plan entries" in text
    assert len(block.entries) == MANY  # the data is whole


def test_tool_call_locations_and_title_are_capped() -> None:
    entry = ToolCallEntry(
        tool_call_id="t",
        title="T" * 10_000_000,
        locations=[ToolCallLocation(path=f"/f{n}") for n in range(MANY)],
    )
    text = plain(render_entry(entry, RenderOptions(Styles())))
    assert len(text) < 20_000
    assert f"… {MANY - LIST_LIMIT:,} more locations" in text


def test_command_completion_offers_at_most_the_list_limit() -> None:
    commands = [AvailableCommand(name=f"cmd{n}", description="d") for n in range(MANY)]
    assert len(command_choices(commands, "")) == LIST_LIMIT
    assert len(command_choices(commands, "cmd19999")) == 11  # typing narrows: 19999, 199990..


class Host(App[None]):
    def __init__(self, screen: PermissionDialog | None = None) -> None:
        super().__init__()
        self.dialog = screen

    def compose(self) -> ComposeResult:
        yield SessionRows(id="rows") if self.dialog is None else Static("behind")

    def on_mount(self) -> None:
        if self.dialog is not None:
            self.push_screen(self.dialog)


async def test_a_permission_with_100k_options_shows_a_few_buttons_and_counts_the_rest() -> None:
    count = 100_000
    request = RequestPermissionRequest.model_validate(
        {
            "sessionId": "s",
            "toolCall": {"toolCallId": "t", "title": "T" * 10_000_000},
            "options": [
                {"optionId": f"o{n}", "name": f"option {n}", "kind": "allow_once"}
                for n in range(count)
            ],
        }
    )
    app = Host(PermissionDialog(request))
    async with app.run_test(size=(100, 40)) as pilot:
        dialog = await wait_for_screen(pilot, PermissionDialog)
        assert len(dialog.query(Button)) == OPTIONS_SHOWN
        more = dialog.query_one("#permission-more", Static)
        assert f"… {count - OPTIONS_SHOWN:,} more options (not shown)" in str(more.content)
        assert len(str(dialog.query_one("#permission-title", Static).content)) < 2000


def held_update(update: dict[str, Any]) -> SessionUpdate:
    """``update`` as the client takes it from the wire: capped, then parsed."""
    params = {"sessionId": "s", "update": update}
    hold_update(params["update"])
    _, events = V1Dialect().parse_update(params)
    (parsed,) = events
    return parsed  # type: ignore[return-value]


def test_a_plan_of_200k_entries_is_held_as_1000_and_counted() -> None:
    entries = [
        {"content": f"step {n}", "priority": "low", "status": "pending"} for n in range(MANY)
    ]
    transcript = Transcript("s")
    transcript.apply(held_update({"sessionUpdate": "plan", "entries": entries}))
    (block,) = transcript.entries
    assert isinstance(block, PlanEntryBlock)
    assert len(block.entries) == HOLD
    assert block.not_kept == MANY - HOLD
    text = plain(render_entry(block, RenderOptions(Styles())))
    assert f"… {MANY - LIST_LIMIT:,} more plan entries" in text


def test_commands_and_locations_are_held_capped_and_counted() -> None:
    transcript = Transcript("s")
    commands = [{"name": f"cmd{n}", "description": "d"} for n in range(5000)]
    transcript.apply(
        held_update({"sessionUpdate": "available_commands_update", "availableCommands": commands})
    )
    assert len(transcript.commands) == HOLD
    assert transcript.commands_not_kept == 5000 - HOLD
    locations = [{"path": f"/f{n}"} for n in range(5000)]
    tool = {
        "sessionUpdate": "tool_call",
        "toolCallId": "t",
        "title": "Read",
        "locations": locations,
    }
    transcript.apply(held_update(tool))
    entry = transcript.tool_call("t")
    assert entry is not None
    assert len(entry.locations) == HOLD
    assert entry.locations_not_kept == 5000 - HOLD
    text = plain(render_entry(entry, RenderOptions(Styles())))
    assert f"… {5000 - LIST_LIMIT:,} more locations" in text


def held_v2_update(update: dict[str, Any]) -> SessionUpdate:
    """``update`` as the client takes it from a v2 agent: capped, parsed, in the shared shape."""
    from acp_tui.client.agent.dialects.v2 import V2Dialect

    params = {"sessionId": "s", "update": update}
    hold_update(params["update"])
    _, events = V2Dialect().parse_update(params)
    (parsed,) = events
    return parsed  # type: ignore[return-value]


def test_a_v2_plan_commands_and_tool_call_keep_their_counts_in_the_shared_shape() -> None:
    """v2's updates become the shared (v1) ones: the counts of what the caps left out stayed
    on the v2 models, and a 200,000-entry plan said nothing of the 199,000 left out."""
    entries = [
        {"content": f"step {n}", "priority": "low", "status": "pending"} for n in range(5000)
    ]
    plan = {"type": "items", "planId": "p", "entries": entries}
    transcript = Transcript("s")
    transcript.apply(held_v2_update({"sessionUpdate": "plan_update", "plan": plan}))
    (block,) = transcript.entries
    assert isinstance(block, PlanEntryBlock)
    assert len(block.entries) == HOLD
    assert block.not_kept == 5000 - HOLD
    text = plain(render_entry(block, RenderOptions(Styles())))
    assert f"… {5000 - LIST_LIMIT:,} more plan entries" in text
    commands = [{"name": f"cmd{n}", "description": "d"} for n in range(3000)]
    transcript.apply(
        held_v2_update(
            {"sessionUpdate": "available_commands_update", "availableCommands": commands}
        )
    )
    assert len(transcript.commands) == HOLD
    assert transcript.commands_not_kept == 3000 - HOLD
    locations = [{"path": f"/f{n}"} for n in range(3000)]
    transcript.apply(
        held_v2_update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t",
                "title": "Read",
                "locations": locations,
            }
        )
    )
    entry = transcript.tool_call("t")
    assert entry is not None
    assert len(entry.locations) == HOLD
    assert entry.locations_not_kept == 3000 - HOLD


def test_a_big_image_is_not_kept_but_its_size_is_shown() -> None:
    data = "A" * (MEDIA + 4)
    image = {"type": "image", "mimeType": "image/png", "data": data}
    transcript = Transcript("s")
    transcript.apply(held_update({"sessionUpdate": "agent_message_chunk", "content": image}))
    (message,) = transcript.entries
    assert isinstance(message, MessageEntry)
    (block,) = message.blocks
    assert isinstance(block, ImageContent)
    assert block.data == ""
    assert message.text == "[image · image/png · 732.4 KB, not kept]"


async def test_a_permission_with_100k_options_holds_1000_and_counts_the_rest() -> None:
    count = 100_000
    params: dict[str, Any] = {
        "sessionId": "s",
        "toolCall": {"toolCallId": "t", "title": "Pick"},
        "options": [
            {"optionId": f"o{n}", "name": f"option {n}", "kind": "allow_once"} for n in range(count)
        ],
    }
    hold_permission(params)
    request = RequestPermissionRequest.model_validate(params)
    assert len(request.options) == HOLD
    app = Host(PermissionDialog(request))
    async with app.run_test(size=(100, 40)) as pilot:
        dialog = await wait_for_screen(pilot, PermissionDialog)
        more = dialog.query_one("#permission-more", Static)
        assert f"… {count - OPTIONS_SHOWN:,} more options (not shown)" in str(more.content)


def test_a_form_of_5000_fields_with_many_choices_is_held_capped() -> None:
    properties = {
        f"f{n}": {"type": "string", "enum": [f"v{k}" for k in range(3000)]} for n in range(5000)
    }
    params: dict[str, Any] = {
        "mode": "form",
        "message": "Fill",
        "requestedSchema": {"type": "object", "properties": properties, "required": ["f4999"]},
    }
    hold_elicitation(params)
    schema = params["requestedSchema"]
    assert len(schema["properties"]) == FIELDS
    assert all(len(spec["enum"]) == HOLD for spec in schema["properties"].values())
    form = Form.of(ElicitationSchema.model_validate(schema))
    assert form.hidden == 5000 - MAX_FIELDS
    assert form.hidden_required == ("f4999",)  # not kept, still known to be required


async def test_a_choice_field_counts_the_choices_left_out_under_its_list() -> None:
    """A field of 3,000 choices is held as its first 1,000: the form said nothing of the
    rest, a single choice's drop-down or a multiple choice's list alike."""
    from acp_tui.ui.widgets.form_fields import FieldRow

    properties = {
        "one": {"type": "string", "enum": [f"v{k}" for k in range(3000)]},
        "titled": {
            "type": "string",
            "oneOf": [{"const": f"c{k}", "title": f"C {k}"} for k in range(1500)],
        },
        "many": {
            "type": "array",
            "items": {"anyOf": [{"const": f"a{k}", "title": f"A {k}"} for k in range(1001)]},
        },
        "few": {"type": "string", "enum": ["x", "y"]},
    }
    params: dict[str, Any] = {
        "mode": "form",
        "message": "Pick",
        "requestedSchema": {"type": "object", "properties": properties},
    }
    hold_elicitation(params)
    form = Form.of(ElicitationSchema.model_validate(params["requestedSchema"]))
    counts = {f.name: (len(f.choices), f.choices_not_kept) for f in form.fields}
    assert counts == {
        "one": (HOLD, 2000),
        "titled": (HOLD, 500),
        "many": (HOLD, 1),
        "few": (2, 0),
    }

    class Rows(App[None]):
        def compose(self) -> ComposeResult:
            for field in form.fields:
                yield FieldRow(field)

    app = Rows()
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.pause()
        hints = {
            row.field.name: [str(s.content) for s in row.query(".field-hint").results(Static)]
            for row in app.query(FieldRow).results(FieldRow)
        }
    assert hints["one"] == ["… 2,000 more choices from the agent (not kept)"]
    assert hints["titled"] == ["… 500 more choices from the agent (not kept)"]
    assert hints["many"] == ["… 1 more choice from the agent (not kept)"]
    assert hints["few"] == []


async def test_100k_sessions_show_a_window_of_rows_that_grows_near_its_end() -> None:
    infos = [
        SessionInfo(session_id=f"s{n}", cwd="/p", title=f"session {n}") for n in range(100_000)
    ]
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        rows = app.query_one(SessionRows)
        rows.show_rows(infos, {}, RowState("end", "100000 session(s)"))
        # The rows are laid out a slice at a time, from timers (a loaded machine takes more
        # than one pause): wait for the window, then check nothing more came.
        await wait_for(pilot, lambda: rows.option_count >= WINDOW + 1)
        await pilot.pause()
        assert rows.option_count == WINDOW + 1  # and the row counting the rest
        last = rows.get_option_at_index(WINDOW)
        assert f"… {100_000 - WINDOW:,} more below" in str(last.prompt)
        assert rows.highlighted_info is infos[0]
        rows.focus()
        rows.highlighted = WINDOW - 1
        await wait_for(pilot, lambda: rows.option_count == 2 * WINDOW + 1)
        assert len(rows.infos) == 100_000


async def test_end_on_the_last_row_shown_shows_the_rows_loaded_below_it() -> None:
    """The next page arrives while the highlight is on the last row: End reaches the row that
    counts those still to show, and shows them (it once stayed put, and the browser with it)."""
    infos = [SessionInfo(session_id=f"s{n}", cwd="/p", title=f"session {n}") for n in range(600)]
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        rows = app.query_one(SessionRows)
        rows.show_rows(infos[:WINDOW], {}, RowState("more", "More below…"))
        await wait_for(pilot, lambda: rows.option_count >= WINDOW)  # (a slice at a time)
        await pilot.pause()
        rows.focus()
        rows.highlighted = WINDOW - 1  # the last session shown
        await pilot.pause()
        rows.show_rows(infos, {}, RowState("end", "600 session(s)"))  # a page more arrived
        await wait_for(pilot, lambda: rows.option_count >= WINDOW + 1)  # (a slice at a time)
        await pilot.pause()
        assert rows.option_count == WINDOW + 1
        await pilot.press("end")
        await wait_for(pilot, lambda: rows.option_count == len(infos) + 1)


def test_a_20mb_session_title_makes_a_short_tab() -> None:
    from types import SimpleNamespace
    from typing import cast

    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.ui.widgets.session_tabs import TITLE_WIDTH, tab_label

    slot = SimpleNamespace(
        title="S" * 20_000_000,
        state="ready",
        attention=None,
        busy=False,
        agent=SimpleNamespace(display_name="A" * 1_000_000),
    )
    label = str(tab_label(cast(SessionSlot, slot), 1, with_agent=True))
    assert len(label) < 200
    assert f"{'S' * (TITLE_WIDTH - 1)}…" in label


def test_a_50mb_meta_is_not_kept() -> None:
    chunk = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "padded"},
        "_meta": {"pad": "p" * (MEDIA + 1)},
    }
    small = {**chunk, "_meta": {"trace": "t1"}}
    assert held_update(chunk).meta is None
    assert held_update(small).meta == {"trace": "t1"}
