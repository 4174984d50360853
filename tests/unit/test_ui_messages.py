"""WorkspacePoster: a flood of Workspace events costs the chat screen a few messages."""

from __future__ import annotations

from typing import Any, cast

from textual.message import Message

from acp_tui.client.workspace import events
from acp_tui.ui import messages


def poster() -> tuple[messages.WorkspacePoster, list[Message]]:
    posted: list[Message] = []
    return messages.WorkspacePoster(posted.append), posted


def tab() -> Any:
    return cast(Any, object())


def test_a_tab_state_event_coming_while_one_of_its_kind_waits_is_gathered_in_it() -> None:
    """Each question refused at once flipped the turn's state twice: a message each, a
    status line redrawn each, for 10,000 questions. The handler reads the state afresh."""
    post, posted = poster()
    first, second = tab(), tab()
    for _ in range(1000):
        post(events.TurnChanged(first))
        post(events.TurnChanged(second))
        post(events.QueueChanged(first))
        post(events.SlotStateChanged(first))
    kinds = [(type(m).__name__, cast(Any, m).event.slot) for m in posted]
    assert kinds == [
        ("TurnChanged", first),
        ("TurnChanged", second),
        ("QueueChanged", first),
        ("SlotStateChanged", first),
    ]
    turn = cast(messages.TurnChanged, posted[0])
    assert len(turn.take()) == 1000
    assert turn.take() == [turn.event]  # taken: it stands for itself alone
    post(events.TurnChanged(first))  # handled: the next one is a message again
    post(events.TurnChanged(second))  # the second tab's still waits
    assert len(posted) == 5
    assert cast(Any, posted[4]).event.slot is first


def test_every_notice_that_comes_while_one_waits_is_said_by_it_in_order() -> None:
    post, posted = poster()
    for n in range(500):
        post(events.Notice(f"notice {n}", "warning", tab()))
    assert len(posted) == 1
    notice = cast(messages.Notice, posted[0])
    assert [event.text for event in notice.take()] == [f"notice {n}" for n in range(500)]
    post(events.Notice("later"))
    assert len(posted) == 2


def test_other_events_are_a_message_each() -> None:
    post, posted = poster()
    slot = tab()
    for _ in range(3):
        post(events.SessionShown(slot))
    assert [type(m) for m in posted] == [messages.SessionShown] * 3


def test_workspace_messages_reach_the_chat_screen_only() -> None:
    """The App handles none of them: bubbling up to it cost a dispatch per event."""
    post, posted = poster()
    post(events.SessionShown(tab()))
    post(events.Notice("x"))
    assert not any(message.bubble for message in posted)


def test_a_flood_of_titles_of_a_session_is_one_change_each_field_as_last_given() -> None:
    """10,000 titles were a message each (only one next to another replaced it), and each
    redrew the tab, the status line and the browser's row."""
    from typing import cast as typed

    post, posted = poster()
    agent = tab()
    for n in range(1000):
        post(events.SessionInfoChanged(agent, "s1", f"title {n}", None, frozenset({"title"})))
        post(events.SessionInfoChanged(agent, "s2", "other", None, frozenset({"title"})))
    post(events.SessionInfoChanged(agent, "s1", None, "2026-01-01", frozenset({"updated_at"})))
    assert len(posted) == 2
    first = typed(messages.SessionInfoChanged, posted[0])
    merged = first.merged()
    assert (merged.title, merged.updated_at) == ("title 999", "2026-01-01")
    assert merged.changes() == {"title": "title 999", "updated_at": "2026-01-01"}
    cleared = events.SessionInfoChanged(agent, "s1", None, None, frozenset({"title"}))
    post(cleared)  # handled: a message again; a null title clears it
    assert typed(messages.SessionInfoChanged, posted[2]).merged().changes() == {"title": None}
