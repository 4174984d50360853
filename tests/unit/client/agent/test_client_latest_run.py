"""A run of updates each of which replaces the one before (plans, commands, options, modes,
usage) is applied once, as its last one; every update is still parsed, nothing overtakes
another, and the recorder's drain comes once per block read, not once per update."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.client.agent.coalesce import LatestRun
from acp_tui.client.agent.dialects import dialect_for
from acp_tui.client.agent.inbox import UpdateInbox
from acp_tui.client.session.entries import MessageEntry, NoticeEntry, PlanEntryBlock
from acp_tui.client.session.live_session import LiveSession
from acp_tui.protocol.updates import (
    AgentMessageChunk,
    AvailableCommandsUpdate,
    PlanUpdate,
    UsageUpdate,
)


def plan(done: int, total: int = 3) -> dict[str, Any]:
    entries = [
        {
            "content": f"step {n}",
            "priority": "medium",
            "status": "completed" if n < done else "pending",
        }
        for n in range(total)
    ]
    return {"sessionUpdate": "plan", "entries": entries}


def commands(*names: str) -> dict[str, Any]:
    listed = [{"name": name, "description": f"the {name} command"} for name in names]
    return {"sessionUpdate": "available_commands_update", "availableCommands": listed}


def chunk(text: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}


class Fixture:
    """An inbox with sessions s1 and s2, what its listeners saw, and how often it drained."""

    def __init__(self, protocol: int = 1) -> None:
        self.sessions = {sid: LiveSession(sid, Path("/tmp/project")) for sid in ("s1", "s2")}
        self.inbox = UpdateInbox(dict(self.sessions), {}, dialect_for(protocol))
        self.seen: list[tuple[str, Any]] = []
        self.drains = 0
        self.inbox.updates.subscribe(lambda sid, update: self.seen.append((sid, update)))
        self.inbox.drained.subscribe(self.drained)

    def drained(self) -> None:
        self.drains += 1

    def take(self, update: dict[str, Any], session_id: str = "s1") -> None:
        assert self.inbox.take_now("session/update", {"sessionId": session_id, "update": update})

    def kinds(self) -> list[str]:
        return [type(update).__name__ for _sid, update in self.seen]


def plan_statuses(session: LiveSession) -> list[list[str]]:
    blocks = [e for e in session.transcript.entries if isinstance(e, PlanEntryBlock)]
    return [[e.status for e in block.entries] for block in blocks]


def test_latest_run_holds_the_last_of_one_kind_for_one_session() -> None:
    run = LatestRun()
    first, second = PlanUpdate(entries=[]), PlanUpdate(entries=[])
    assert run.take() is None
    assert LatestRun.supersedes([first])
    assert not LatestRun.supersedes([first, second])
    assert not LatestRun.supersedes([AgentMessageChunk.model_validate(chunk("x"))])
    assert run.add("s1", first)
    assert run.add("s1", second)
    assert run.superseded == 1
    assert not run.add("s2", PlanUpdate(entries=[]))  # another session: not the same run
    assert not run.add("s1", UsageUpdate(used=1, size=2))  # another kind
    assert run.take() == ("s1", second)
    assert run.take() is None
    assert run.add("s1", UsageUpdate(used=1, size=2))  # a new run after a take


def test_a_run_of_plans_is_applied_once_as_its_last() -> None:
    fx = Fixture()
    for done in range(4):
        fx.take(plan(done))
    assert fx.seen == []  # held until the block read ends
    fx.inbox.apply_held()
    session = fx.sessions["s1"]
    assert plan_statuses(session) == [["completed"] * 3]
    assert fx.kinds() == ["PlanUpdate"]
    (plan_block,) = [e for e in session.transcript.entries if isinstance(e, PlanEntryBlock)]
    assert plan_block.revision == 1


def test_nothing_overtakes_a_held_update() -> None:
    fx = Fixture()
    fx.take(chunk("before "))
    fx.take(plan(1))
    fx.take(plan(2))
    fx.take(chunk("after"))
    fx.take(commands("a"))
    fx.take(commands("a", "b"))
    fx.take(plan(3))
    fx.inbox.apply_held()
    assert fx.kinds() == [
        "AgentMessageChunk",
        "PlanUpdate",
        "AgentMessageChunk",
        "AvailableCommandsUpdate",
        "PlanUpdate",
    ]
    kept = [update for _sid, update in fx.seen]
    assert [e.status for e in kept[1].entries] == ["completed", "completed", "pending"]
    assert isinstance(kept[3], AvailableCommandsUpdate)
    assert [c.name for c in kept[3].available_commands] == ["a", "b"]
    transcript = fx.sessions["s1"].transcript
    messages = [e for e in transcript.entries if isinstance(e, MessageEntry)]
    plans = [e for e in transcript.entries if isinstance(e, PlanEntryBlock)]
    assert [m.text for m in messages] == ["before ", "after"]
    assert transcript.entries.index(plans[0]) == 1  # between the two texts, where it came
    assert [c.name for c in transcript.commands] == ["a", "b"]


def test_runs_are_per_session() -> None:
    fx = Fixture()
    fx.take(plan(1), "s1")
    fx.take(plan(2), "s2")
    fx.take(plan(3), "s1")
    fx.inbox.apply_held()
    assert [sid for sid, _update in fx.seen] == ["s1", "s2", "s1"]
    assert plan_statuses(fx.sessions["s1"]) == [["completed"] * 3]
    assert plan_statuses(fx.sessions["s2"]) == [["completed", "completed", "pending"]]


def test_a_malformed_update_in_a_run_is_said_after_what_came_before_it() -> None:
    fx = Fixture()
    changes: list[str] = []
    transcript = fx.sessions["s1"].transcript
    transcript.subscribe(lambda change: changes.append(change.kind))
    fx.take(plan(1))
    fx.take({"sessionUpdate": "plan", "entries": "not a list"})  # lenient: an empty plan
    fx.take({"sessionUpdate": "usage_update", "used": "lots"})  # malformed: skipped, said
    fx.take(plan(2))
    fx.inbox.apply_held()
    assert fx.kinds() == ["PlanUpdate", "PlanUpdate"]
    assert fx.seen[0][1].entries == []
    notes = [e for e in transcript.entries if isinstance(e, NoticeEntry)]
    plans = [e for e in transcript.entries if isinstance(e, PlanEntryBlock)]
    said = "The agent sent a usage_update update it could not read: skipped."
    assert [n.text for n in notes] == [said]
    assert transcript.entries.index(plans[0]) < transcript.entries.index(notes[0])
    assert plan_statuses(fx.sessions["s1"]) == [["completed", "completed", "pending"]]


def test_a_plan_with_unreadable_entries_is_not_held() -> None:
    fx = Fixture()
    bad = plan(1)
    bad["entries"].append({"content": 3})
    fx.take(plan(0))
    fx.take(bad)
    fx.take(plan(2))
    fx.inbox.apply_held()
    # Each still said: the first plan, the one with its note, then the last.
    assert fx.kinds() == ["PlanUpdate", "PlanUpdate", "PlanUpdate"]
    notes = [e.text for e in fx.sessions["s1"].transcript.entries if isinstance(e, NoticeEntry)]
    assert notes == ["The agent sent a plan entry it could not read: skipped."]


def test_the_last_of_a_v2_run_is_applied() -> None:
    fx = Fixture(protocol=2)
    for done in range(3):
        fx.take(
            {
                "sessionUpdate": "plan_update",
                "plan": {"type": "items", "planId": "p", **plan(done)},
            }
        )
    fx.inbox.apply_held()
    assert fx.kinds() == ["PlanUpdate"]
    assert plan_statuses(fx.sessions["s1"]) == [["completed", "completed", "pending"]]


def test_drained_once_per_block_not_once_per_update() -> None:
    fx = Fixture()
    for n in range(5):
        fx.take({"sessionUpdate": "_custom_kind", "n": n})
    assert fx.drains == 0
    assert fx.sessions["s1"].transcript.unknown_updates == 5  # applied meanwhile, each of them
    fx.inbox.apply_held()
    assert fx.drains == 1
    assert len(fx.seen) == 5


def info(**fields: str) -> dict[str, Any]:
    return {"sessionUpdate": "session_info_update", **fields}


def test_session_info_is_held_while_each_gives_what_the_one_before_gave() -> None:
    fx = Fixture()
    when = "2026-01-01T00:00:00Z"
    fx.take(info(title="one"))
    fx.take(info(title="two", updatedAt=when))  # gives the title and more: replaces it
    fx.take(info(updatedAt=when))  # no title: the one before is applied first
    fx.take(info(title="three"))  # no time: the one before is applied first
    fx.take(info(title="four"))
    fx.inbox.apply_held()
    given = [(u.model_fields_set & {"title", "updated_at"}, u.title) for _sid, u in fx.seen]
    assert given == [
        ({"title", "updated_at"}, "two"),
        ({"updated_at"}, None),
        ({"title"}, "four"),
    ]
    transcript = fx.sessions["s1"].transcript
    assert transcript.title == "four"
    assert transcript.updated_at == when
