"""No keystroke is lost: prompts typed in bursts as turns end, text typed before the first
frame, and messages sent while the agent is down (Pilot, demo agent as a real subprocess)."""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.process.command import AgentCommand
from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.queue_view import QueueView
from tests.app.helpers import wait_for

SIZE = (100, 30)
PROMPTS = int(os.environ.get("KS_PROMPTS", "300"))  # fewer for a quick local run


def burst(app: AcpApp, text: str) -> None:
    """Queue the keys of ``text`` then Enter, the way a terminal delivers fast typing: every
    event is in the app's queue before the first one is handled (Pilot's ``press`` waits for
    the app to go idle after each key, which hides the race)."""
    driver = app._driver
    assert driver is not None
    for char in text:
        key = "space" if char == " " else char
        event = events.Key(key, char)
        event.set_sender(app)
        driver.send_message(event)
    enter = events.Key("enter", None)  # as Pilot sends it
    enter.set_sender(app)
    driver.send_message(enter)


def queue_text(app: AcpApp) -> str:
    """What the queue under the prompt shows (reason line and previews)."""
    queue = app.chat.current_pane.query_one(QueueView)
    return " ".join(str(queue.get_option_at_index(i).prompt) for i in range(queue.option_count))


_read: dict[Path, tuple[tuple[int, int], list[str]]] = {}


def agent_user_texts(data_dir: Path, session_id: str) -> list[str]:
    """Every user message the demo agent recorded for the session, in order.

    The tests ask fifty times a second while the agent writes thousands of lines: the file is
    read again only when it changed, and only its user lines are parsed (parsing every line at
    every look took the CPU the app under test needed, and timed out under load)."""
    history = data_dir / "history" / f"{session_id}.jsonl"
    try:
        stat = history.stat()
    except FileNotFoundError:
        return []
    seen = (stat.st_size, stat.st_mtime_ns)
    kept = _read.get(history)
    if kept is not None and kept[0] == seen:
        return list(kept[1])
    texts: list[str] = []
    for line in history.read_text(encoding="utf-8").splitlines():
        if "user_message_chunk" not in line:
            continue
        update: dict[str, Any] = json.loads(line)
        if update.get("sessionUpdate") == "user_message_chunk":
            texts.append(update["content"].get("text", ""))
    _read[history] = (seen, texts)
    return list(texts)


async def test_three_hundred_prompts_typed_as_turns_end_arrive_intact(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app()
    sent = [f"check {i} zebra {'x' * (i % 7)}".rstrip() for i in range(PROMPTS)]
    rng = random.Random(15)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        session_id = app.session.session_id
        for text in sent:
            burst(app, text)
            # Mostly back to back, sometimes a pause that lets a turn end right before the next
            # keys arrive: the moment keys used to land between sending and clearing.
            roll = rng.random()
            if roll < 0.3:
                await pilot.pause(rng.choice((0, 0.005, 0.01, 0.02)))
        # The whole test costs the app ~21 s of CPU (5,844 keys through Textual's TextArea,
        # 300 turns, the queue shown at each change), ~20 s of wall time on a quiet machine.
        # With two suites beside it (load 10-11 on 2 cores) it gets an eighth of a core: a
        # run took 172 s of wall time and this wait timed out at 120 s. It waits for the
        # prompts, nothing is timed: 480 s.
        await wait_for(
            pilot,
            lambda: len(agent_user_texts(tmp_path / "demo", session_id)) >= PROMPTS,
            seconds=480,
        )
        await wait_for(pilot, lambda: app.slot is not None and not app.slot.busy)
    received = agent_user_texts(tmp_path / "demo", session_id)
    assert received == sent


async def test_text_typed_before_the_first_frame_is_kept_and_sent(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        # Straight away: before the core has loaded and before the session exists.
        burst(app, "typed at once")
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        session_id = app.session.session_id
        await wait_for(
            pilot, lambda: agent_user_texts(tmp_path / "demo", session_id) == ["typed at once"]
        )


@pytest.mark.real_agent  # the process exits, then a restart starts another
async def test_a_message_sent_while_the_agent_is_down_waits_visibly_and_goes_after_restart(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        slot = app.slot
        assert slot is not None
        await pilot.press(*"crash", "enter")
        await wait_for(pilot, lambda: not slot.agent.alive and not slot.busy)
        burst(app, "after the crash")
        await wait_for(pilot, lambda: [p.text for p in slot.queue] == ["after the crash"])
        shown = queue_text(app)
        assert "after the crash" in shown
        assert "the agent has stopped (Ctrl+R restarts it)" in shown  # says why it waits
        assert "starting" not in app.chat.current_pane.status_text()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.session is not None and app.session.session_id != "")
        session_id = app.session.session_id  # type: ignore[union-attr]
        await wait_for(
            pilot,
            lambda: "after the crash" in agent_user_texts(tmp_path / "demo", session_id),
            seconds=30,
        )
        assert not slot.queue


FLAKY_START = """\
import os, sys
marker = sys.argv[1]
if not os.path.exists(marker):
    open(marker, "w").close()
    sys.stderr.write("first start fails on purpose\\n")
    sys.exit(3)
os.execv(sys.executable, [sys.executable, "-m", "acp_tui.demo_agent", *sys.argv[2:]])
"""


@pytest.mark.real_agent  # a restart starts the agent's process afresh
async def test_a_message_sent_when_the_agent_failed_to_start_is_kept_and_sent_after_restart(
    tmp_path: Path, project: Path
) -> None:
    script = tmp_path / "flaky.py"
    script.write_text(FLAKY_START)
    data = tmp_path / "demo"
    argv = [sys.executable, str(script), str(tmp_path / "started"), "--data-dir", str(data)]
    launch = LaunchSpec(
        command=AgentCommand(argv, cwd=project, name="flaky"),
        cwd=project,
        display_name="flaky",
    )
    app = AcpApp(launch)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.slot is not None and app.slot.state == "agent_down")
        slot = app.slot
        assert slot is not None
        burst(app, "kept for later")
        await wait_for(pilot, lambda: [p.text for p in slot.queue] == ["kept for later"])
        assert "Ctrl+R restarts it" in queue_text(app)
        assert "starting" not in app.chat.current_pane.status_text()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.session is not None)
        session_id = app.session.session_id  # type: ignore[union-attr]
        await wait_for(
            pilot,
            lambda: agent_user_texts(data, session_id) == ["kept for later"],
            seconds=30,
        )


async def test_a_two_thousand_line_paste_is_sent_intact_and_whitespace_is_not_sent(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app()
    pasted = "\n".join(f"line {n}: {'word ' * (n % 9)}".rstrip() for n in range(2000))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        session_id = app.session.session_id
        burst(app, "   ")  # only whitespace: not sent, not queued
        await pilot.pause()
        assert app.slot is not None
        assert not app.slot.queue
        assert not app.slot.busy
        prompt = app.chat.current_pane.prompt
        prompt.clear()
        app.post_message(events.Paste(pasted))  # as the terminal delivers it: to the app
        await wait_for(pilot, lambda: prompt.text == pasted)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: agent_user_texts(tmp_path / "demo", session_id) == [pasted], seconds=30
        )


async def test_keys_typed_during_a_burst_of_ten_thousand_updates_are_all_kept(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        slot = app.slot
        assert slot is not None
        session_id = app.session.session_id
        burst(app, "stream 10000")
        await wait_for(pilot, lambda: slot.busy)
        typed = [f"typed while it streams {n}" for n in range(5)]
        for text in typed:
            burst(app, text)
            await pilot.pause(0.01)
        await wait_for(
            pilot,
            lambda: agent_user_texts(tmp_path / "demo", session_id) == ["stream 10000", *typed],
            seconds=90,
        )


async def test_a_resize_to_forty_by_twelve_and_back_loses_nothing(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"markdown", "enter")
        await wait_for(pilot, lambda: app.slot is not None and not app.slot.busy)
        prompt = app.chat.current_pane.prompt
        prompt.insert("a draft that must survive")
        before = len(app.session.transcript.entries)  # type: ignore[union-attr]
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert prompt.text == "a draft that must survive"
        assert len(app.session.transcript.entries) == before  # type: ignore[union-attr]
        assert app.return_code is None  # still running, no traceback
