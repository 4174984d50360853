"""The transcript from the keyboard: Home/End and paging, block selection and copy, find."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from acp_tui.client.session.transcript import Transcript
from acp_tui.ui.transcript.blocks import BlockRef
from acp_tui.ui.transcript.view import TranscriptView
from tests.app.helpers import wait_for
from tests.app.test_transcript_view import ViewApp, agent, chunk, settle, update

REPLY = """\
Here is the plan, in prose that wraps over a few lines when the view is narrow enough to
make it wrap, which it is.

```python
def first() -> int:
    return 1
```

Then some more words between the two blocks.

```sh
echo second
```
"""


def long_transcript(turns: int) -> Transcript:
    """``turns`` turns of a prompt, a markdown reply (two code blocks) and a tool call."""
    transcript = Transcript("s")
    for n in range(turns):
        transcript.apply(chunk("user_message_chunk", f"question {n}", f"u{n}"))
        transcript.apply(agent(f"Answer {n}.\n\n" + REPLY, f"a{n}"))
        transcript.apply(
            update(
                sessionUpdate="tool_call",
                toolCallId=f"t{n}",
                title=f"Edit file_{n}.py",
                kind="edit",
                status="completed",
            )
        )
    transcript.add_notice("the very end")
    return transcript


async def focused_view(pilot: Pilot[Any]) -> TranscriptView:
    view = pilot.app.query_one(TranscriptView)
    await settle(pilot, view)
    view.focus()
    await pilot.pause()
    return view


async def test_home_and_end_reach_the_ends_in_one_press_at_any_length() -> None:
    app = ViewApp(long_transcript(300))
    async with app.run_test(size=(80, 24)) as pilot:
        view = await focused_view(pilot)
        assert "the very end" in view.visible_lines()
        await pilot.press("home")
        await settle(pilot, view)
        assert view.scroll_offset.y == 0
        assert view.visible_lines()[0] == "❯ question 0"
        assert view.selected == BlockRef(0)
        await pilot.press("end")
        await settle(pilot, view)
        assert view.scroll_offset.y == view.max_scroll_y
        assert "the very end" in view.visible_lines()
        await pilot.press("ctrl+home")
        await settle(pilot, view)
        assert view.visible_lines()[0] == "❯ question 0"
        await pilot.press("ctrl+end")
        await settle(pilot, view)
        assert "the very end" in view.visible_lines()
        assert view.following


async def test_page_keys_move_a_page_and_the_selection_stays_in_view() -> None:
    app = ViewApp(long_transcript(40))
    async with app.run_test(size=(80, 24)) as pilot:
        view = await focused_view(pilot)
        await pilot.press("home")
        await settle(pilot, view)
        page = view.scrollable_content_region.height
        await pilot.press("pagedown")
        await settle(pilot, view)
        assert view.scroll_offset.y == page - 1  # one line of the last page stays
        assert view.selected is not None
        assert view.in_view(view.selected)
        await pilot.press("pagedown", "pageup")
        await settle(pilot, view)
        assert view.scroll_offset.y == page - 1
        assert not view.following


async def test_up_and_down_select_blocks_and_c_copies_a_code_block() -> None:
    transcript = Transcript("s")
    transcript.apply(chunk("user_message_chunk", "show me", "u"))
    transcript.apply(agent(REPLY, "a"))
    transcript.add_notice("Turn ended.")
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 40)) as pilot:
        view = await focused_view(pilot)
        assert view.selected == BlockRef(2)  # the last block in view
        await pilot.press("up")
        assert view.selected == BlockRef(1, 1)  # the reply's second code block
        await pilot.press("c")
        assert app.clipboard == "echo second"
        await pilot.press("up")
        assert view.selected == BlockRef(1, 0)
        await pilot.press("c")
        assert app.clipboard == "def first() -> int:\n    return 1"
        await pilot.press("up")
        assert view.selected == BlockRef(1)  # the whole reply: its markdown source
        await pilot.press("c")
        assert app.clipboard == REPLY
        await pilot.press("up", "up")
        assert view.selected == BlockRef(0)  # the first block: Up stays there
        await pilot.press("down", "down", "down", "down")
        assert view.selected == BlockRef(2)
        await pilot.press("c")  # a notice has no source: what is shown
        assert app.clipboard == "Turn ended."


async def test_the_selected_block_is_drawn_while_the_view_has_the_focus() -> None:
    transcript = Transcript("s")
    transcript.add_notice("first")
    transcript.add_notice("second")
    app = ViewApp(transcript)
    async with app.run_test(size=(60, 10)) as pilot:
        view = pilot.app.query_one(TranscriptView)
        await settle(pilot, view)
        tint = view.painter.mark_style("transcript--block", background_only=True).bgcolor
        assert tint is not None

        def tinted(line: int) -> bool:
            strip = view.render_line(line)
            return any(s.style is not None and s.style.bgcolor == tint for s in strip)

        app.set_focus(None)
        view.select(BlockRef(0))
        await pilot.pause()
        assert not tinted(0)  # not focused: not drawn
        view.focus()
        await pilot.pause()
        assert tinted(0)
        assert not tinted(2)
        await pilot.press("down")
        assert tinted(2)
        assert not tinted(0)


async def test_enter_expands_and_collapses_the_selected_thought() -> None:
    transcript = Transcript("s")
    transcript.apply(chunk("agent_thought_chunk", "Deep thoughts.\nMore of them.", "t"))
    transcript.apply(agent("The answer.", "a"))
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = await focused_view(pilot)
        await pilot.press("up")
        assert view.selected == BlockRef(0)
        assert view.plain_lines()[0].startswith("💭 thought — click to expand")
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.plain_lines()[0] == "💭 thought — click to collapse")
        assert "  More of them." in view.plain_lines()
        await pilot.press("enter")
        await wait_for(pilot, lambda: "  More of them." not in view.plain_lines())
        await pilot.press("down")
        assert not view.check_action("toggle_block", ())  # Enter is for thoughts only


async def test_find_counts_marks_and_steps_through_the_matches() -> None:
    app = ViewApp(long_transcript(200))
    async with app.run_test(size=(80, 24)) as pilot:
        view = await focused_view(pilot)
        await pilot.press("home")
        await settle(pilot, view)
        total, current = view.find("ECHO SECOND")  # any case
        assert (total, current) == (200, 0)
        await settle(pilot, view)
        line = view.match_line()
        assert line is not None
        assert "echo second" in view.line_strip(line).text
        assert line in range(view.scroll_offset.y, view.scroll_offset.y + 22)
        marked = view.painter.mark_style("transcript--match-current")
        strip = view.render_line(line - view.scroll_offset.y)
        assert marked.bgcolor is not None
        shown = [s.text for s in strip if s.style and s.style.bgcolor == marked.bgcolor]
        assert "".join(shown) == "echo second"
        assert view.find_step(-1) == (200, 199)  # wraps around to the last one
        await settle(pilot, view)
        line = view.match_line()
        assert line is not None
        assert "echo second" in view.line_strip(line).text
        assert line in range(view.scroll_offset.y, view.scroll_offset.y + 22)
        assert view.find("question 1") == (111, 110)  # from the top of the view: "question 199"
        assert view.find("nowhere at all") == (0, None)
        view.clear_find()
        assert view.search.total == 0


async def test_find_opens_the_thought_that_holds_the_match() -> None:
    transcript = Transcript("s")
    transcript.apply(chunk("agent_thought_chunk", "Thinking about the needle.", "t"))
    transcript.apply(agent("No needle here... well, one.", "a"))
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = await focused_view(pilot)
        await pilot.press("home")
        assert view.find("needle") == (2, 0)
        await settle(pilot, view)
        assert "Thinking about the needle." in view.plain_lines()[1]
        view.show_thoughts = False  # hidden thoughts are not searched
        await settle(pilot, view)
        assert view.find("needle")[0] == 1
