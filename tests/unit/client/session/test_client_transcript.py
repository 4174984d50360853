"""Transcript: session updates applied in arrival order, with revisions and change events."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from acp_tui.client.session.entries import (
    Change,
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    ToolCallEntry,
    block_text,
)
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.content import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from acp_tui.protocol.session_config import SessionModeState
from acp_tui.protocol.tools import DiffToolCallContent, TerminalToolCallContent
from acp_tui.protocol.updates import SessionNotification, SessionUpdate


def update(**wire: Any) -> SessionUpdate:
    """A session update parsed from its wire form (camelCase keys)."""
    return SessionNotification.from_wire({"sessionId": "s", "update": wire}).update


def chunk(kind: str, text: str, message_id: str | None = None) -> SessionUpdate:
    wire: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if message_id is not None:
        wire["messageId"] = message_id
    return update(**wire)


def agent(text: str, message_id: str | None = None) -> SessionUpdate:
    return chunk("agent_message_chunk", text, message_id)


def thought(text: str, message_id: str | None = None) -> SessionUpdate:
    return chunk("agent_thought_chunk", text, message_id)


def user(text: str, message_id: str | None = None) -> SessionUpdate:
    return chunk("user_message_chunk", text, message_id)


class Recorder:
    def __init__(self, transcript: Transcript) -> None:
        self.changes: list[Change] = []
        self.unsubscribe = transcript.subscribe(self.changes.append)

    def take(self) -> list[Change]:
        taken, self.changes[:] = list(self.changes), []
        return taken


@pytest.fixture
def transcript() -> Transcript:
    return Transcript("s")


def texts(transcript: Transcript) -> list[tuple[str, str]]:
    return [(e.role, e.text) for e in transcript.entries if isinstance(e, MessageEntry)]


# -- messages ---------------------------------------------------------------------------------


def test_chunks_with_ids_append_to_their_message_when_interleaved(transcript: Transcript) -> None:
    rec = Recorder(transcript)
    for u in (
        agent("Hel", "m1"),
        thought("hmm", "t1"),
        agent("Other", "m2"),
        agent("lo", "m1"),
        thought("…", "t1"),
        user("same id, other role", "m1"),
    ):
        transcript.apply(u)
    assert texts(transcript) == [
        ("agent", "Hello"),
        ("thought", "hmm…"),
        ("agent", "Other"),
        ("user", "same id, other role"),
    ]
    changes = rec.take()
    assert [c.kind for c in changes] == [
        "appended",
        "appended",
        "appended",
        "updated",
        "updated",
        "appended",
    ]
    assert changes[3] == Change("updated", 0)
    first = transcript.entries[0]
    assert isinstance(first, MessageEntry)
    assert first.message_id == "m1"
    assert first.parts == ["Hel", "lo"]
    assert first.revision == 2


def test_chunks_without_ids_group_while_contiguous(transcript: Transcript) -> None:
    for u in (
        agent("a"),
        agent("b"),
        thought("t"),
        agent("c"),
        agent("d", "m1"),
        agent("e"),
        agent("f"),
    ):
        transcript.apply(u)
    assert texts(transcript) == [
        ("agent", "ab"),
        ("thought", "t"),
        ("agent", "c"),
        ("agent", "d"),
        ("agent", "ef"),
    ]


def test_a_different_message_id_starts_a_new_message(transcript: Transcript) -> None:
    for u in (agent("a", "m1"), agent("b", "m2"), agent("c", "m2"), agent("d"), agent("e", "m3")):
        transcript.apply(u)
    assert texts(transcript) == [("agent", "a"), ("agent", "bc"), ("agent", "d"), ("agent", "e")]


@pytest.mark.parametrize("stop_reason", ["end_turn", "cancelled", None])
@pytest.mark.parametrize("message_id", [None, "m1"], ids=["no-id", "same-id"])
def test_a_chunk_after_the_turn_ended_starts_a_new_message(
    transcript: Transcript, stop_reason: str | None, message_id: str | None
) -> None:
    transcript.add_user_message([TextContent(text="hi")])
    transcript.begin_turn()
    transcript.apply(agent("The reply", message_id))
    transcript.apply(agent(".", message_id))
    transcript.end_turn(stop_reason)
    transcript.apply(agent("A late word", message_id))
    transcript.apply(agent(" and more", message_id))
    transcript.apply(thought("late thought", message_id))
    assert texts(transcript) == [
        ("user", "hi"),
        ("agent", "The reply."),
        ("agent", "A late word and more"),
        ("thought", "late thought"),
    ]


def test_the_next_turn_still_groups_its_chunks(transcript: Transcript) -> None:
    transcript.begin_turn()
    transcript.apply(agent("one"))
    transcript.end_turn("end_turn")
    transcript.begin_turn()
    transcript.apply(agent("two, "))
    transcript.apply(agent("three"))
    transcript.apply(agent("x", "m1"))
    transcript.apply(agent("y", "m1"))
    assert texts(transcript) == [("agent", "one"), ("agent", "two, three"), ("agent", "xy")]


def test_a_sealed_message_can_still_be_replaced_whole(transcript: Transcript) -> None:
    transcript.apply(agent("draft", "m1"))
    transcript.end_turn("end_turn")
    transcript.replace_message("agent", "m1", [TextContent(text="final")])
    assert texts(transcript) == [("agent", "final")]


def test_the_echo_of_the_prompt_replaces_the_shown_message(transcript: Transcript) -> None:
    blocks: list[ContentBlock] = [
        TextContent(text="hi"),
        ResourceLink(uri="file:///a.py", name="a.py"),
    ]
    transcript.add_user_message(blocks)
    rec = Recorder(transcript)
    transcript.apply(
        update(
            sessionUpdate="user_message_chunk",
            messageId="u1",
            content={"type": "text", "text": "hi"},
        )
    )
    transcript.apply(
        update(
            sessionUpdate="user_message_chunk",
            messageId="u1",
            content={"type": "resource_link", "uri": "file:///a.py", "name": "a.py"},
        )
    )
    transcript.apply(agent("answer", "m1"))
    # A user chunk after the agent spoke is a new message, not an echo.
    transcript.apply(user("later", "u2"))
    assert texts(transcript) == [
        ("user", "hi [a.py](file:///a.py)"),
        ("agent", "answer"),
        ("user", "later"),
    ]
    echoed = transcript.entries[0]
    assert isinstance(echoed, MessageEntry)
    assert echoed.message_id == "u1"
    assert len(echoed.blocks) == 2
    assert [c.kind for c in rec.take()] == ["updated", "updated", "appended", "appended"]


def test_an_attachment_is_set_apart_from_the_text_before_it() -> None:
    """Text chunks join as they come; a label (an attached resource) gets a space first."""
    attached = EmbeddedResource(resource=TextResourceContents(uri="acp-tui://shell/1", text="x"))
    prompt = [TextContent(text="what is this"), attached, TextContent(text=" and"), attached]
    entry = MessageEntry.of("user", None, prompt)
    assert entry.text == "what is this [acp-tui://shell/1] and [acp-tui://shell/1]"
    alone = MessageEntry.of("user", None, [attached])
    assert alone.text == "[acp-tui://shell/1]"
    entry.set_blocks([TextContent(text="hi\n"), attached])
    assert entry.text == "hi\n[acp-tui://shell/1]"


def test_block_text_of_every_content_kind() -> None:
    assert block_text(TextContent(text="x")) == "x"
    assert block_text(ResourceLink(uri="file:///r", name="r")) == "[r](file:///r)"
    text_res = EmbeddedResource(resource=TextResourceContents(uri="file:///t", text="body"))
    assert block_text(text_res) == "[file:///t]"
    blob = EmbeddedResource(resource=BlobResourceContents(uri="file:///b", blob="AA=="))
    assert block_text(blob) == "[binary resource file:///b]"
    assert (
        block_text(ImageContent(data="AA==", mime_type="image/png")) == "[image · image/png · 1 B]"
    )
    assert block_text(AudioContent(data="AA==", mime_type="audio/wav")) == "[audio audio/wav]"
    unknown = update(sessionUpdate="agent_message_chunk", content={"type": "video", "x": 1})
    transcript = Transcript("s")
    transcript.apply(unknown)
    assert texts(transcript) == [("agent", "[unsupported content: video]")]


# -- tool calls -------------------------------------------------------------------------------


def test_an_update_before_its_tool_call_creates_the_entry(transcript: Transcript) -> None:
    rec = Recorder(transcript)
    transcript.apply(
        update(sessionUpdate="tool_call_update", toolCallId="c1", status="in_progress")
    )
    (entry,) = transcript.entries
    assert isinstance(entry, ToolCallEntry)
    assert (entry.tool_call_id, entry.title, entry.kind, entry.status) == (
        "c1",
        "Tool call",
        "other",
        "in_progress",
    )
    transcript.apply(
        update(sessionUpdate="tool_call", toolCallId="c1", title="Read a.py", kind="read")
    )
    assert transcript.entries == [entry]
    assert (entry.title, entry.kind) == ("Read a.py", "read")
    assert transcript.tool_call("c1") is entry
    assert transcript.tool_call("nope") is None
    assert rec.take() == [Change("appended", 0), Change("updated", 0)]
    assert entry.revision == 2


def test_a_tool_call_update_changes_only_what_it_sets(transcript: Transcript) -> None:
    transcript.apply(
        update(
            sessionUpdate="tool_call",
            toolCallId="c1",
            title="Edit",
            kind="edit",
            status="pending",
            content=[{"type": "diff", "path": "/p/a.py", "oldText": "a", "newText": "b"}],
            locations=[{"path": "/p/a.py", "line": 3}],
            rawInput={"path": "/p/a.py"},
        )
    )
    entry = transcript.tool_call("c1")
    assert entry is not None
    transcript.apply(update(sessionUpdate="tool_call_update", toolCallId="c1", status="completed"))
    assert (entry.title, entry.kind, entry.status) == ("Edit", "edit", "completed")
    assert isinstance(entry.content[0], DiffToolCallContent)
    assert entry.locations[0].line == 3
    assert entry.raw_input == {"path": "/p/a.py"}
    assert entry.raw_output is None

    transcript.apply(
        update(
            sessionUpdate="tool_call_update",
            toolCallId="c1",
            title="Edited",
            content=[],
            rawOutput={"ok": True},
        )
    )
    assert (entry.title, entry.kind, entry.status) == ("Edited", "edit", "completed")
    assert entry.content == []
    assert entry.locations[0].path == "/p/a.py"
    assert entry.raw_output == {"ok": True}
    assert entry.raw_input == {"path": "/p/a.py"}
    # An explicit null title is no title: the old one stays.
    transcript.apply(update(sessionUpdate="tool_call_update", toolCallId="c1", title=None))
    assert entry.title == "Edited"
    assert entry.revision == 4
    assert len(transcript.entries) == 1


def test_terminal_changes_touch_the_tool_calls_showing_it(transcript: Transcript) -> None:
    transcript.apply(update(sessionUpdate="tool_call", toolCallId="c1", title="Run"))
    transcript.apply(
        update(
            sessionUpdate="tool_call",
            toolCallId="c2",
            title="Other",
            content=[{"type": "terminal", "terminalId": "t2"}],
        )
    )
    transcript.apply(
        update(
            sessionUpdate="tool_call_update",
            toolCallId="c1",
            content=[{"type": "terminal", "terminalId": "t1"}],
        )
    )
    first, second = transcript.tool_call("c1"), transcript.tool_call("c2")
    assert first is not None
    assert second is not None
    assert isinstance(first.content[0], TerminalToolCallContent)
    revisions = (first.revision, second.revision)
    rec = Recorder(transcript)
    transcript.terminal_changed("t1")
    transcript.terminal_changed("t1")
    transcript.terminal_changed("unknown")
    assert rec.take() == [Change("updated", 0), Change("updated", 0)]
    assert (first.revision, second.revision) == (revisions[0] + 2, revisions[1])


# -- plan and session state -------------------------------------------------------------------


def plan(*statuses: str) -> SessionUpdate:
    entries = [
        {"content": f"step {i}", "priority": "medium", "status": s} for i, s in enumerate(statuses)
    ]
    return update(sessionUpdate="plan", entries=entries)


def test_the_plan_is_replaced_whole(transcript: Transcript) -> None:
    rec = Recorder(transcript)
    transcript.apply(plan("in_progress", "pending", "pending"))
    transcript.apply(agent("working"))
    transcript.apply(plan("completed", "in_progress"))
    (block,) = [e for e in transcript.entries if isinstance(e, PlanEntryBlock)]
    assert [(e.content, e.status) for e in block.entries] == [
        ("step 0", "completed"),
        ("step 1", "in_progress"),
    ]
    assert transcript.entries[0] is block
    assert block.revision == 2
    assert rec.take()[-1] == Change("updated", 0)
    transcript.apply(plan())
    assert block.entries == []
    assert block.revision == 3
    # A new turn starts a new plan.
    transcript.begin_turn()
    transcript.apply(plan("pending"))
    assert len([e for e in transcript.entries if isinstance(e, PlanEntryBlock)]) == 2


def test_session_state_updates_emit_meta_changes(transcript: Transcript) -> None:
    rec = Recorder(transcript)
    transcript.apply(
        update(
            sessionUpdate="available_commands_update",
            availableCommands=[{"name": "plan", "description": "Plan", "input": {"hint": "what"}}],
        )
    )
    assert [c.name for c in transcript.commands] == ["plan"]
    assert transcript.commands[0].input is not None

    # A mode update before any modes are known changes nothing but is still reported.
    transcript.apply(update(sessionUpdate="current_mode_update", currentModeId="code"))
    assert transcript.modes is None
    transcript.set_modes(
        SessionModeState.from_wire(
            {
                "currentModeId": "ask",
                "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}],
            }
        )
    )
    transcript.apply(update(sessionUpdate="current_mode_update", currentModeId="code"))
    assert transcript.modes is not None
    assert transcript.modes.current_mode_id == "code"
    assert len(transcript.modes.available_modes) == 2

    transcript.apply(
        update(
            sessionUpdate="config_option_update",
            configOptions=[
                {"id": "verbose", "name": "Verbose", "type": "boolean", "currentValue": True}
            ],
        )
    )
    assert [o.id for o in transcript.config_options] == ["verbose"]

    transcript.apply(
        update(
            sessionUpdate="usage_update", used=10, size=100, cost={"amount": 0.5, "currency": "EUR"}
        )
    )
    assert transcript.usage is not None
    assert (transcript.usage.used, transcript.usage.size) == (10, 100)
    assert (transcript.usage.cost_amount, transcript.usage.cost_currency) == (0.5, "EUR")
    transcript.apply(update(sessionUpdate="usage_update", used=20, size=100))
    assert transcript.usage.used == 20
    assert transcript.usage.cost_amount is None

    assert [c.what for c in rec.take()] == [
        "commands",
        "modes",
        "modes",
        "modes",
        "config_options",
        "usage",
        "usage",
    ]
    assert transcript.entries == []


def test_title_omitted_null_or_value(transcript: Transcript) -> None:
    rec = Recorder(transcript)
    transcript.apply(update(sessionUpdate="session_info_update", title="First", updatedAt="t1"))
    assert (transcript.title, transcript.updated_at) == ("First", "t1")
    transcript.apply(update(sessionUpdate="session_info_update", updatedAt="t2"))
    assert (transcript.title, transcript.updated_at) == ("First", "t2")
    transcript.apply(update(sessionUpdate="session_info_update", title=None))
    assert (transcript.title, transcript.updated_at) == (None, "t2")
    transcript.apply(update(sessionUpdate="session_info_update", title="Second"))
    assert transcript.title == "Second"
    # A malformed title counts as omitted.
    transcript.apply(update(sessionUpdate="session_info_update", title=42))
    assert transcript.title == "Second"
    assert [c for c in rec.take()] == [Change("meta", what="title")] * 5


def test_an_unknown_update_becomes_a_quiet_notice(transcript: Transcript) -> None:
    rec = Recorder(transcript)
    transcript.apply(update(sessionUpdate="plan_removed", extra=1))
    transcript.apply(update(sessionUpdate="compaction"))
    assert transcript.unknown_updates == 2
    notices = [e for e in transcript.entries if isinstance(e, NoticeEntry)]
    assert [n.level for n in notices] == ["info", "info"]
    assert "plan_removed" in notices[0].text
    assert "compaction" in notices[1].text
    assert rec.take() == [Change("appended", 0), Change("appended", 1)]


# -- listeners, revisions, turns --------------------------------------------------------------


def test_revisions_grow_on_every_change(transcript: Transcript) -> None:
    seen: list[int] = []
    transcript.apply(agent("a", "m"))
    entry = transcript.entries[0]
    for piece in "bcd":
        seen.append(entry.revision)
        transcript.apply(agent(piece, "m"))
    seen.append(entry.revision)
    assert seen == [1, 2, 3, 4]
    assert isinstance(entry, MessageEntry)
    assert entry.text == "abcd"


def test_subscribe_and_unsubscribe(transcript: Transcript) -> None:
    first: list[Change] = []
    second: list[Change] = []
    stop_first = transcript.subscribe(first.append)
    transcript.subscribe(second.append)
    transcript.apply(agent("a"))
    stop_first()
    stop_first()  # harmless twice
    transcript.apply(agent("b"))
    assert first == [Change("appended", 0)]
    assert second == [Change("appended", 0), Change("updated", 0)]


def test_a_listener_may_unsubscribe_while_notified(transcript: Transcript) -> None:
    calls: list[Change] = []

    def once(change: Change) -> None:
        calls.append(change)
        stop()

    stop = transcript.subscribe(once)
    other: list[Change] = []
    transcript.subscribe(other.append)
    transcript.apply(agent("a"))
    transcript.apply(agent("b"))
    assert len(calls) == 1
    assert len(other) == 2


@pytest.mark.parametrize(
    ("stop_reason", "notice"),
    [
        ("end_turn", None),
        (None, None),
        ("cancelled", "Cancelled."),
        ("max_tokens", "The agent stopped: it reached its token limit."),
        ("max_turn_requests", "The agent stopped: it reached its limit of requests for one turn."),
        ("refusal", "The agent refused to continue."),
        ("something_new", "The turn ended: something_new"),
    ],
)
def test_stop_reasons_other_than_end_turn_become_notices(
    transcript: Transcript, stop_reason: str | None, notice: str | None
) -> None:
    rec = Recorder(transcript)
    transcript.add_user_message([TextContent(text="go")])
    transcript.begin_turn()
    assert rec.changes[-1] == Change("state", what="running")
    transcript.end_turn(stop_reason)
    assert transcript.state == "idle"
    assert transcript.stop_reason == stop_reason
    notices = [e.text for e in transcript.entries if isinstance(e, NoticeEntry)]
    assert notices == ([] if notice is None else [notice])
    states = [c.what for c in rec.take() if c.kind == "state"]
    assert states == ["running", "idle"]


def test_state_changes_are_reported_once(transcript: Transcript) -> None:
    rec = Recorder(transcript)
    transcript.set_state("idle")
    transcript.set_state("requires_action")
    transcript.set_state("requires_action")
    transcript.set_state("running")
    assert rec.take() == [Change("state", what="requires_action"), Change("state", what="running")]


def test_notices_and_iteration(transcript: Transcript) -> None:
    transcript.add_notice("careful", "warning")
    transcript.apply(agent("x"))
    assert len(transcript) == 2
    kinds = [type(e) for e in transcript]
    assert kinds == [NoticeEntry, MessageEntry]
    first = transcript.entries[0]
    assert isinstance(first, NoticeEntry)
    assert first.level == "warning"
    assert first.revision == 1


# -- drafts agents already send: notices and tool names -------------------------------------------


def test_a_notice_is_announced_and_kept_out_of_exports(
    transcript: Transcript, caplog: pytest.LogCaptureFixture
) -> None:
    from acp_tui.client.session.entries import AgentNotice

    rec = Recorder(transcript)
    with caplog.at_level(logging.INFO, logger="acp_tui.agent_notices"):
        quota = update(
            sessionUpdate="notice", severity="warning", title="Quota", description="80% used"
        )
        transcript.apply(quota)
    kept = [(e.text, e.level, e.hint) for e in transcript.entries if isinstance(e, NoticeEntry)]
    assert kept == [("Quota: 80% used", "warning", True)]
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", "Quota: 80% used")
    ]
    assert transcript.unknown_updates == 0
    assert transcript.last_notice == AgentNotice("Quota", "80% used", "warning")
    assert [(c.kind, c.what) for c in rec.take()] == [("appended", ""), ("meta", "notice")]
    transcript.apply(update(sessionUpdate="notice", severity="_custom", title="\x1b[31mred"))
    assert transcript.last_notice == AgentNotice("␛[31mred", None, "info")


def test_a_flood_of_notices_keeps_a_few_and_counts_the_rest(transcript: Transcript) -> None:
    from acp_tui.client.session.notices import KEPT

    transcript.begin_turn()
    for n in range(1000):
        severity = "error" if n == 500 else "info"
        transcript.apply(update(sessionUpdate="notice", severity=severity, title=f"N{n}"))
        transcript.apply(update(sessionUpdate="mystery_update", n=n))
    notices = [e for e in transcript.entries if isinstance(e, NoticeEntry)]
    assert len(transcript.entries) == len(notices) == 2 * KEPT + 2
    texts = [e.text for e in notices]
    assert texts[:2] == ["N0", "The agent sent an update this client does not know: mystery_update"]
    assert f"{1000 - KEPT:,} more notices from the agent this turn" in texts[-2]
    assert notices[-2].level == "error"  # the worst of those counted
    assert f"{1000 - KEPT:,} more updates this client does not know" in texts[-1]
    assert transcript.unknown_updates == 1000
    # A new turn keeps its own first few again.
    transcript.end_turn("end_turn")
    transcript.begin_turn()
    transcript.apply(update(sessionUpdate="notice", severity="info", title="again"))
    assert transcript.entries[-1].text == "again"  # type: ignore[union-attr]


def test_a_notice_read_again_for_its_toast_is_not_parsed_again(
    transcript: Transcript, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The transcript and the toasts each read a notice: a flood parsed every one twice."""
    from acp_tui.client.session import entries
    from acp_tui.protocol.updates import SessionNotice

    parsed: list[object] = []
    validate = SessionNotice.model_validate

    def counted(value: object) -> SessionNotice:
        parsed.append(value)
        return validate(value)

    monkeypatch.setattr(SessionNotice, "model_validate", counted)
    notices = [update(sessionUpdate="notice", severity="info", title=f"N{n}") for n in range(3)]
    for notice in notices:
        transcript.apply(notice)
        assert entries.agent_notice(notice) == transcript.last_notice
    assert len(parsed) == 3
    assert entries.agent_notice(notices[0]) == entries.AgentNotice("N0", None, "info")
    assert len(parsed) == 4  # not the last one read: parsed again


def test_a_malformed_notice_is_the_quiet_unknown_notice(transcript: Transcript) -> None:
    transcript.apply(update(sessionUpdate="notice", severity="error", title=""))
    transcript.apply(update(sessionUpdate="mystery_update", x=1))
    assert transcript.last_notice is None
    assert transcript.unknown_updates == 2
    assert [e.text for e in transcript.entries if isinstance(e, NoticeEntry)] == [
        "The agent sent an update this client does not know: notice",
        "The agent sent an update this client does not know: mystery_update",
    ]


def test_a_tool_call_name_is_kept_replaced_and_cleared(transcript: Transcript) -> None:
    transcript.apply(
        update(sessionUpdate="tool_call", toolCallId="t", title="Edit", name="edit_file")
    )
    entry = transcript.tool_call("t")
    assert entry is not None
    assert entry.name == "edit_file"
    transcript.apply(update(sessionUpdate="tool_call_update", toolCallId="t", status="completed"))
    assert entry.name == "edit_file"  # omitted: unchanged
    transcript.apply(update(sessionUpdate="tool_call_update", toolCallId="t", name="write"))
    assert entry.name == "write"
    transcript.apply(update(sessionUpdate="tool_call_update", toolCallId="t", name=None))
    assert entry.name is None
    transcript.apply(update(sessionUpdate="tool_call_update", toolCallId="t", name=5))
    assert entry.name is None  # malformed: no name


def test_a_long_turn_keeps_its_time_and_a_short_one_adds_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import acp_tui.client.session.transcript as transcript_module

    now = [100.0]
    monkeypatch.setattr(transcript_module.time, "monotonic", lambda: now[0])
    transcript = Transcript("s")
    transcript.begin_turn()
    assert transcript.turn_started == 100.0
    now[0] += 3
    transcript.end_turn("end_turn")
    assert transcript.turn_started is None
    assert not transcript.entries
    transcript.begin_turn()
    now[0] += 75
    transcript.end_turn("end_turn")
    [note] = transcript.entries
    assert isinstance(note, NoticeEntry)
    assert (note.text, note.hint) == ("Worked for 1m 15s", True)
