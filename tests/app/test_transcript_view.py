"""TranscriptView: literal text, thoughts, selection and copy, following, width, huge replies."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Offset
from textual.pilot import Pilot
from textual.selection import Selection

from acp_tui.client.session.transcript import Transcript
from acp_tui.client.tools.terminals import TerminalOutput
from acp_tui.protocol.updates import SessionNotification, SessionUpdate
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.terminal import TerminalDialog
from acp_tui.ui.transcript.pieces import BlockScanner, Piece
from acp_tui.ui.transcript.view import TranscriptView
from tests.app.helpers import wait_for, wait_for_screen


def update(**wire: Any) -> SessionUpdate:
    return SessionNotification.from_wire({"sessionId": "s", "update": wire}).update


def chunk(kind: str, text: str, message_id: str = "m") -> SessionUpdate:
    content = {"type": "text", "text": text}
    return update(sessionUpdate=kind, messageId=message_id, content=content)


def agent(text: str, message_id: str = "m") -> SessionUpdate:
    return chunk("agent_message_chunk", text, message_id)


class ViewApp(App[None]):
    def __init__(self, transcript: Transcript) -> None:
        super().__init__()
        self.transcript = transcript
        self.terminals: dict[str, TerminalOutput] = {}

    def compose(self) -> ComposeResult:
        yield TranscriptView()

    def on_mount(self) -> None:
        self.query_one(TranscriptView).show(self.transcript, self.terminals.get)


def text_of(view: TranscriptView) -> str:
    return "\n".join(view.plain_lines())


async def settle(pilot: Pilot[Any], view: TranscriptView) -> None:
    await wait_for(pilot, lambda: view.settled)


async def test_markup_and_escapes_are_shown_literally() -> None:
    transcript = Transcript("s")
    hostile = "[bold]x[/bold] [@click=app.quit]quit[/] \x1b[31mred\x1b[0m *fine*"
    transcript.apply(chunk("user_message_chunk", hostile, "u"))
    transcript.apply(agent(hostile + "\n\n```\n" + hostile + "\n```\n"))
    transcript.apply(chunk("agent_thought_chunk", hostile, "t"))
    app = ViewApp(transcript)
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(TranscriptView)
        view.expand_thoughts = True
        await settle(pilot, view)
        text = text_of(view)
        assert text.count("[bold]x[/bold]") == 4  # user, reply, code fence, thought
        assert text.count("[@click=app.quit]quit[/]") == 4
        assert text.count("␛[31mred␛[0m") == 4
        assert "\x1b" not in text
        for line in range(len(view.plain_lines())):
            for segment in view.line_strip(line):
                assert segment.style is None or "@click" not in segment.style.meta


async def test_inline_code_takes_its_colours_from_the_theme() -> None:
    transcript = Transcript("s")
    transcript.apply(agent("Call `greet` now."))
    app = ViewApp(transcript)
    app.theme = "textual-light"
    async with app.run_test(size=(60, 10)) as pilot:
        view = app.query_one(TranscriptView)
        await settle(pilot, view)
        [line] = [i for i, text in enumerate(view.plain_lines()) if "greet" in text]
        [code] = [s for s in view.line_strip(line) if s.text == "greet"]
        expected = view.get_component_rich_style("transcript--code", partial=False)
        assert code.style is not None
        assert code.style.bgcolor == expected.bgcolor
        assert code.style.color == expected.color
        assert code.style.bgcolor is not None
        assert code.style.bgcolor.name != "black"


async def test_thought_collapses_and_expands_on_click_and_hides_by_setting() -> None:
    transcript = Transcript("s")
    thought = "Pondering the question deeply. " * 8 + "\nMore."
    transcript.apply(chunk("agent_thought_chunk", thought, "t"))
    transcript.apply(agent("The answer."))
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        await settle(pilot, view)
        lines = view.plain_lines()
        assert lines[0].startswith("💭 thought — click to expand: Pondering the question")
        assert "More." not in text_of(view)
        await pilot.click(TranscriptView, offset=(3, 0))
        await wait_for(pilot, lambda: "More." in text_of(view))
        assert view.plain_lines()[0] == "💭 thought — click to collapse"
        await pilot.click(TranscriptView, offset=(3, 0))
        await wait_for(pilot, lambda: "More." not in text_of(view))
        view.show_thoughts = False
        await settle(pilot, view)
        assert "thought" not in text_of(view)
        assert view.plain_lines()[0] == "The answer."


async def test_selection_extracts_text_and_the_standard_key_copies_it() -> None:
    transcript = Transcript("s")
    transcript.apply(chunk("user_message_chunk", "first line of the prompt", "u"))
    transcript.apply(agent("Alpha beta gamma.\n\nDelta 🎉 epsilon."))
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        await settle(pilot, view)
        lines = view.plain_lines()
        alpha = lines.index("Alpha beta gamma.")
        delta = lines.index("Delta 🎉 epsilon.")
        selection = Selection(Offset(6, alpha), Offset(7, delta))
        assert view.get_selection(selection) == ("beta gamma.\n\nDelta 🎉", "\n")
        view.focus()
        app.screen.selections = {view: selection}
        await pilot.pause()
        selected = view.render_line(delta - view.scroll_offset.y)
        background = app.screen.get_component_rich_style("screen--selection").bgcolor
        assert any(s.style is not None and s.style.bgcolor == background for s in selected)
        await pilot.press("ctrl+c")
        assert app.clipboard == "beta gamma.\n\nDelta 🎉"
        view.copy_last_reply()
        assert app.clipboard == "Alpha beta gamma.\n\nDelta 🎉 epsilon."


async def test_mouse_drag_selects_transcript_text() -> None:
    transcript = Transcript("s")
    transcript.apply(agent("Alpha beta gamma."))
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        await settle(pilot, view)
        x0 = view.content_region.x
        y0 = view.content_region.y
        await pilot.mouse_down(offset=(x0 + 6, y0))
        await pilot.hover(offset=(x0 + 11, y0))
        await pilot.mouse_up(offset=(x0 + 11, y0))
        await wait_for(pilot, lambda: app.screen.get_selected_text() is not None)
        assert app.screen.get_selected_text() == "beta g"


async def test_follows_the_end_until_the_user_scrolls_up() -> None:
    transcript = Transcript("s")
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        for n in range(40):
            transcript.add_notice(f"notice {n}")
        await wait_for(pilot, lambda: view.settled and view.max_scroll_y > 0)
        assert view.scroll_offset.y == view.max_scroll_y
        assert "notice 39" in view.visible_lines()
        transcript.apply(agent("streaming "))
        for n in range(30):
            transcript.apply(agent(f"word{n} " + ("\n\n" if n % 5 == 0 else "")))
            await pilot.pause()
        await settle(pilot, view)
        assert view.scroll_offset.y == view.max_scroll_y
        assert any("word29" in line for line in view.visible_lines())
        view.scroll_to(y=0, animate=False)
        await pilot.pause()
        for n in range(40, 60):
            transcript.add_notice(f"notice {n}")
        await settle(pilot, view)
        assert view.scroll_offset.y == 0
        assert view.visible_lines()[0] == "notice 0"
        view.scroll_end(animate=False)
        await pilot.pause()
        transcript.add_notice("back at the end")
        await wait_for(pilot, lambda: "back at the end" in view.visible_lines())


async def test_width_change_rewraps() -> None:
    transcript = Transcript("s")
    paragraph = " ".join(f"word{n}" for n in range(120))
    transcript.apply(agent(paragraph))
    app = ViewApp(transcript)
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(TranscriptView)
        await settle(pilot, view)
        wide = [line for line in view.plain_lines() if line]
        await pilot.resize_terminal(50, 40)
        await wait_for(pilot, lambda: view.settled and view.virtual_size.width < 60)
        narrow = [line for line in view.plain_lines() if line]
        assert len(narrow) > len(wide)
        assert max(len(line) for line in narrow) <= 48
        assert " ".join(narrow).split() == paragraph.split()


async def test_live_terminal_output_rerenders_the_tool_call() -> None:
    transcript = Transcript("s")
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        transcript.apply(
            update(
                sessionUpdate="tool_call",
                toolCallId="c1",
                title="Run make",
                kind="execute",
                status="in_progress",
                content=[{"type": "terminal", "terminalId": "term-1"}],
            )
        )
        await wait_for(pilot, lambda: "terminal term-1: no output yet" in text_of(view))
        app.terminals["term-1"] = TerminalOutput("compiling\n", False, None, None, False)
        transcript.terminal_changed("term-1")
        await wait_for(pilot, lambda: "│ compiling" in text_of(view))
        assert "└ running…" in text_of(view)
        app.terminals["term-1"] = TerminalOutput("compiling\nlinking\n", False, 0, None, True)
        transcript.terminal_changed("term-1")
        await wait_for(pilot, lambda: "│ linking" in text_of(view))
        assert "└ exit code 0" in text_of(view)


async def test_five_megabyte_message_renders_progressively() -> None:
    transcript = Transcript("s")
    paragraph = "A line of a very long reply, with *some* markdown in it.\n"
    body = "".join(f"Paragraph {n}: " + paragraph * 3 + "\n" for n in range(30_000))
    text = "FIRST WORDS\n\n" + body[:5_000_000] + "\n\nLAST WORDS"
    app = ViewApp(transcript)
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(TranscriptView)
        transcript.apply(agent(text))
        await wait_for(pilot, lambda: view.settled and view.is_current(0), seconds=60)
        assert "LAST WORDS" in view.visible_lines()
        view.scroll_home(animate=False)
        await pilot.pause()
        await wait_for(pilot, lambda: view.settled and "FIRST WORDS" in view.visible_lines())


async def test_long_code_fence_is_cut_into_pieces_without_losing_lines() -> None:
    transcript = Transcript("s")
    code = "\n".join(f"value_{n} = {n}" for n in range(300))
    transcript.apply(agent(f"Intro.\n\n```python\n{code}\n```\n\nOutro."))
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 30)) as pilot:
        view = app.query_one(TranscriptView)
        await settle(pilot, view)
        lines = [line.strip() for line in view.plain_lines()]
        found = [line for line in lines if line.startswith("value_")]
        assert found == code.splitlines()
        first, last = lines.index("value_0 = 0"), lines.index("value_299 = 299")
        assert "" not in lines[first:last]  # no seams between the pieces
        assert lines[0] == "Intro."
        assert "Outro." in lines


def test_scanner_cuts_the_same_however_the_text_streams_in() -> None:
    para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 4
    code = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(100)) + "\n```\n"
    nested = "- item\n  ```\n" + "\n".join(f"  y{i}" for i in range(100)) + "\n  ```\n"
    text = "# T\n\n" + "\n\n".join([para] * 20) + "\n\n" + code + "after\n\n" + nested
    text += "word " * 5000 + "\n" + "line\n" * 300 + "end"

    def scan(chunks: list[str]) -> tuple[list[Piece], Piece | None]:
        scanner = BlockScanner(markdown=True)
        pieces: list[Piece] = []
        for part in chunks:
            scanner.feed(part)
            while (piece := scanner.next_piece()) is not None:
                pieces.append(piece)
            scanner.compact()
        return pieces, scanner.tail()

    whole = scan([text])
    rng = random.Random(7)
    for _ in range(3):
        cuts = sorted(rng.sample(range(1, len(text)), 400))
        bounds = [0, *cuts, len(text)]
        assert scan([text[a:b] for a, b in itertools.pairwise(bounds)]) == whole
    pieces, tail = whole
    assert max(len(p.text) for p in pieces) <= 6000
    assert [p.kind for p in pieces].count("code") == 3
    assert tail is not None
    assert tail.text.endswith("end")


async def test_demo_agent_terminal_and_thought(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TerminalDialog, "QUIET", 0.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        view = app.chat.current_pane.query_one(TranscriptView)
        await pilot.press(*"think terminal", "enter")
        await wait_for_screen(pilot, TerminalDialog)
        await pilot.press("a")  # allow once
        await wait_for(pilot, lambda: "│ hello from the demo agent" in text_of(view))
        await wait_for(
            pilot, lambda: app.session is not None and app.session.transcript.state == "idle"
        )
        text = text_of(view)
        assert "│ a second line" in text
        assert "└ exit code 0" in text
        assert "💭 thought — click to expand: Let me think about this." in text
        header = view.plain_lines().index(
            next(line for line in view.plain_lines() if line.startswith("💭 thought"))
        )
        view.scroll_to(y=header, animate=False)
        await pilot.pause()
        await pilot.click(TranscriptView, offset=(3, header - view.scroll_offset.y))
        await wait_for(pilot, lambda: "I'll go in order." in text_of(view))
