"""What the transcript shows of a reply: Find looks in the rendered text, not the Markdown
source; a reply with no Markdown keeps its line breaks (the ``markdown`` setting)."""

from __future__ import annotations

from acp_tui.client.session.transcript import Transcript
from acp_tui.ui.transcript.shown_text import looks_like_markdown, markdown_shown
from acp_tui.ui.transcript.view import TranscriptView
from tests.app.test_transcript_view import ViewApp, agent, settle

REPLY = (
    "Some words in **bold**,\n*italic* and `code`, a [link](https://example.org)\n"
    "and snake_case_names.\n\n- an *item*\n- another\n\n```python\nx = **not** bold\n```\n"
)


def test_markdown_shown_is_the_text_without_its_syntax() -> None:
    shown = markdown_shown(REPLY)
    assert "Some words in bold, italic and code, a link (https://example.org)" in shown
    assert "and snake_case_names." in shown  # soft line breaks read as spaces
    assert "an item\nanother" in shown
    assert "x = **not** bold" in shown  # code as it is, without its fence lines
    assert "```" not in shown
    assert markdown_shown("# Title\n\n1. first\n\nhard  \nbreak") == "Title\n1 first\nhard\nbreak"


def test_replies_with_no_markdown_are_told_apart() -> None:
    assert looks_like_markdown(REPLY)
    assert looks_like_markdown("a list:\n- one\n- two")
    plain = "first line\nsecond line, with snake_case and 2 * 3 = 6\n\nlast line"
    assert not looks_like_markdown(plain)


async def test_find_matches_the_rendered_text_across_soft_line_breaks() -> None:
    transcript = Transcript("s")
    transcript.apply(agent(REPLY, "a"))
    app = ViewApp(transcript)
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(TranscriptView)
        await settle(pilot, view)
        assert any("bold, italic" in line for line in view.plain_lines())
        assert view.find("bold, italic") == (1, 0)  # "**bold**,\n*italic*" in the source
        assert view.find("link (https") == (1, 0)
        assert view.find("not** bold") == (1, 0)  # only in the code, as shown
        await settle(pilot, view)
        line = view.match_line()
        assert line is not None
        assert "x = **not** bold" in view.line_strip(line).text
        assert view.find("```") == (0, None)
        assert view.find("bold, italic") == (1, 0)
        await settle(pilot, view)
        line = view.match_line()
        assert line is not None
        current = view.painter.mark_style("transcript--match-current")
        strip = view.render_line(line - view.scroll_offset.y)
        marked = [s.text for s in strip if s.style and s.style.color == current.color]
        assert "".join(marked) == "bold, italic"


async def test_a_plain_reply_keeps_its_line_breaks_until_markdown_arrives() -> None:
    transcript = Transcript("s")
    transcript.apply(agent("first line\nsecond line\n", "a"))
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        await settle(pilot, view)
        assert view.plain_lines()[:2] == ["first line", "second line"]
        assert view.find("line second") == (0, None)
        transcript.apply(agent("and now **bold**\n", "a"))  # Markdown after all
        await settle(pilot, view)
        assert view.plain_lines()[0] == "first line second line and now bold"
        assert view.find("line second") == (1, 0)


async def test_the_markdown_setting_renders_every_reply_or_none() -> None:
    for mode, expected in (
        ("always", ["first line second line"]),
        ("never", ["first line", "**second** line"]),
    ):
        transcript = Transcript("s")
        text = "first line\n**second** line" if mode == "never" else "first line\nsecond line"
        transcript.apply(agent(text, "a"))
        app = ViewApp(transcript)
        async with app.run_test(size=(80, 20)) as pilot:
            view = app.query_one(TranscriptView)
            view.lines.markdown = mode
            view.show(transcript)
            await settle(pilot, view)
            assert view.plain_lines()[: len(expected)] == expected
