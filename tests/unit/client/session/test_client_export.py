"""Markdown export: every entry kind, hostile content, metadata and the default file name."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from acp_tui.client.session.export import (
    close_open_fences,
    default_export_path,
    fence_for,
    slugify,
    transcript_to_markdown,
    write_export,
)
from acp_tui.client.session.transcript import Transcript
from acp_tui.client.tools.terminals import TerminalOutput
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.updates import SessionNotification

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def apply(transcript: Transcript, **wire: Any) -> None:
    transcript.apply(SessionNotification.from_wire({"sessionId": "s", "update": wire}).update)


def text_chunk(kind: str, text: str) -> dict[str, Any]:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


def export(transcript: Transcript, **kwargs: Any) -> str:
    return transcript_to_markdown(transcript, exported_at=WHEN, **kwargs)


def tokens(markdown: str) -> list[Any]:
    """The block tokens a CommonMark parser sees (markdown-it ships with Rich)."""
    return list(MarkdownIt("commonmark").parse(markdown))


def fences(markdown: str) -> list[tuple[str, str]]:
    return [(t.info, t.content) for t in tokens(markdown) if t.type == "fence"]


@pytest.fixture
def transcript() -> Transcript:
    return Transcript("sess-1")


def test_empty_transcript_has_heading_metadata_and_says_so(transcript: Transcript) -> None:
    md = export(transcript, agent="Demo agent", cwd="/home/me/project")
    assert md.startswith("# ACP session\n\n")
    assert "- **Agent:** Demo agent" in md
    assert "- **Working directory:** `/home/me/project`" in md
    assert "- **Session:** `sess-1`" in md
    assert "- **Exported at:** 2026-01-02T03:04:05+00:00" in md
    assert "*(no messages)*" in md
    assert md.endswith("\n")


def test_title_comes_from_argument_then_transcript(transcript: Transcript) -> None:
    transcript.title = "From the agent"
    assert export(transcript).startswith("# From the agent\n")
    assert export(transcript, title="Chosen").startswith("# Chosen\n")


def test_user_agent_and_thought_messages(transcript: Transcript) -> None:
    transcript.add_user_message([TextContent(text="first line\n\nsecond line")])
    apply(transcript, **text_chunk("agent_thought_chunk", "let me think"))
    apply(transcript, **text_chunk("agent_message_chunk", "Here is **bold** and\n\n- a list"))
    md = export(transcript)
    assert "**You:**\n\n> first line\n>\n> second line" in md
    assert "<details>\n<summary>Thought</summary>\n\nlet me think\n\n</details>" in md
    assert "**Agent:**\n\nHere is **bold** and\n\n- a list" in md
    assert md.index("**You:**") < md.index("<details>") < md.index("**Agent:**")


def test_tool_call_with_locations_diff_text_terminal_and_unknown(transcript: Transcript) -> None:
    apply(
        transcript,
        sessionUpdate="tool_call",
        toolCallId="t1",
        title="Edit greet.py",
        kind="edit",
        status="in_progress",
        locations=[{"path": "/p/greet.py", "line": 3}, {"path": "/p/other.py"}],
        content=[
            {"type": "diff", "path": "/p/greet.py", "oldText": "a\nb\n", "newText": "a\nc\n"},
            {"type": "diff", "path": "/p/new.py", "newText": "x = 1\n"},
            {"type": "content", "content": {"type": "text", "text": "some output"}},
            {"type": "content", "content": {"type": "image", "mimeType": "image/png", "data": ""}},
            {"type": "terminal", "terminalId": "term-7"},
            {"type": "hologram", "beam": 1},
        ],
    )
    md = export(transcript)
    assert "### Tool: Edit greet.py (edit, in progress)" in md
    assert "- `/p/greet.py:3`\n- `/p/other.py`" in md
    found = fences(md)
    assert ("diff", "--- /p/greet.py\n+++ /p/greet.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n") in found
    assert "New file: `/p/new.py`" in md
    assert ("diff", "--- /dev/null\n+++ /p/new.py\n@@ -0,0 +1 @@\n+x = 1\n") in found
    assert ("text", "some output\n") in found
    assert ("text", "[image · image/png · 0 B]\n") in found
    assert "*Terminal `term-7`: its output is no longer available.*" in md
    assert "*Tool output of type `hologram` not exported.*" in md


def test_terminal_output_is_exported_with_how_it_ended(transcript: Transcript) -> None:
    apply(
        transcript,
        sessionUpdate="tool_call",
        toolCallId="t1",
        title="Run the tests",
        kind="execute",
        status="completed",
        content=[{"type": "terminal", "terminalId": "term-1"}],
    )
    outputs = {"term-1": TerminalOutput("3 passed\n", False, 0, None, exited=True)}
    md = transcript_to_markdown(transcript, terminals=outputs.get)
    assert ("text", "3 passed\n") in fences(md)
    assert "*Exited with exit code 0.*" in md


def test_plan_is_a_task_list(transcript: Transcript) -> None:
    apply(
        transcript,
        sessionUpdate="plan",
        entries=[
            {"content": "Read the code", "priority": "high", "status": "completed"},
            {"content": "Write tests", "priority": "medium", "status": "in_progress"},
            {"content": "Ship", "priority": "low", "status": "pending"},
        ],
    )
    md = export(transcript)
    assert "### Plan\n\n" in md
    assert "- [x] Read the code *(high priority)*" in md
    assert "- [ ] Write tests *(in progress)*" in md
    assert "- [ ] Ship\n" in md


def test_notices_are_italic_and_escaped(transcript: Transcript) -> None:
    transcript.add_notice("Cancelled.")
    transcript.add_notice("bad *thing*\nhappened", "error")
    md = export(transcript)
    assert "*Cancelled.*" in md
    assert r"*Error: bad \*thing\* happened*" in md


def test_hints_about_the_app_are_left_out(transcript: Transcript) -> None:
    transcript.add_notice("The agent exited with code 3.", "error")
    transcript.add_notice("Press Ctrl+R to restart the agent.", "warning", hint=True)
    md = export(transcript)
    assert "exited with code 3" in md
    assert "Ctrl+R" not in md


@pytest.mark.parametrize("ticks", [3, 4, 7])
def test_fences_in_tool_text_never_break_the_block(transcript: Transcript, ticks: int) -> None:
    nasty = f"before\n{'`' * ticks}\n# not a heading\n{'`' * ticks}python\nafter"
    apply(
        transcript,
        sessionUpdate="tool_call",
        toolCallId="t1",
        title="x",
        content=[
            {"type": "content", "content": {"type": "text", "text": nasty}},
            {"type": "diff", "path": "f.md", "oldText": nasty, "newText": nasty + "\n```"},
        ],
    )
    transcript.add_notice("the end")
    md = export(transcript)
    found = fences(md)
    assert ("text", nasty + "\n") in found
    assert any(info == "diff" and "+```" in body for info, body in found)
    # Nothing of the content leaked out of its block: the notice still parses as a paragraph.
    assert not [t for t in tokens(md) if t.type == "heading_open" and t.tag == "h1"][1:]
    assert md.rstrip().endswith("*the end*")
    assert fence_for("a ```` b") == "`````"


def test_open_fence_in_agent_message_is_closed(transcript: Transcript) -> None:
    apply(transcript, **text_chunk("agent_message_chunk", "code:\n````py\nprint(1)\n```"))
    transcript.add_notice("after")
    md = export(transcript)
    assert ("py", "print(1)\n```\n") in fences(md)
    paragraphs = [t.content for t in tokens(md) if t.type == "inline"]
    assert "*after*" in paragraphs
    balanced = "```\nx\n```\n"
    assert close_open_fences(balanced) == balanced


def test_html_and_control_characters_are_neutralised(transcript: Transcript) -> None:
    apply(transcript, **text_chunk("agent_thought_chunk", "</details><b>x</b>\x1b[31m"))
    md = export(transcript, title="<script>alert(1)</script>", agent="a\x07b")
    assert "\x1b" not in md
    assert "\x07" not in md
    assert md.count("</details>") == 1
    assert md.startswith(r"# \<script\>alert(1)\</script\>")


def test_usage_is_in_the_metadata(transcript: Transcript) -> None:
    apply(
        transcript,
        sessionUpdate="usage_update",
        used=53000,
        size=200000,
        cost={"amount": 0.045, "currency": "USD"},
    )
    assert "- **Usage:** 53,000 of 200,000 context tokens, cost 0.045 USD" in export(transcript)


def test_backticks_in_cwd_and_locations_stay_in_code_spans(transcript: Transcript) -> None:
    md = export(transcript, cwd="/tmp/a`b")
    assert "``/tmp/a`b``" in md


# -- file names ---------------------------------------------------------------------------------


def test_slugify() -> None:
    assert slugify("Fix the *flaky* Test!") == "fix-the-flaky-test"
    assert slugify("Café déjà vu") == "cafe-deja-vu"
    assert slugify("日本語") == ""
    assert len(slugify("x" * 500)) == 60


def test_default_path_uses_title_then_session_id(tmp_path: Path) -> None:
    assert default_export_path(tmp_path, "My Session", "s-1") == (
        tmp_path / "acp-transcript-my-session.md"
    )
    assert (
        default_export_path(tmp_path, None, "demo-ABC") == tmp_path / "acp-transcript-demo-abc.md"
    )
    assert default_export_path(tmp_path, "日本語", "日本") == tmp_path / "acp-transcript-session.md"


def test_default_path_never_overwrites(tmp_path: Path) -> None:
    first = default_export_path(tmp_path, "t", "s")
    first.write_text("taken")
    second = default_export_path(tmp_path, "t", "s")
    assert second == tmp_path / "acp-transcript-t-2.md"
    second.write_text("taken")
    assert default_export_path(tmp_path, "t", "s") == tmp_path / "acp-transcript-t-3.md"


def test_export_of_a_long_mixed_transcript_is_valid_markdown(transcript: Transcript) -> None:
    for n in range(20):
        transcript.add_user_message([TextContent(text=f"question {n}")])
        apply(transcript, **text_chunk("agent_message_chunk", f"answer {n}\n```\nopen"))
        transcript.end_turn("end_turn")
    md = export(transcript)
    assert len(re.findall(r"^\*\*You:\*\*$", md, flags=re.M)) == 20
    assert len(fences(md)) == 20


def test_write_export_replaces_atomically_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    target.write_text("old")
    write_export(target, "# new\n")
    assert target.read_text() == "# new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.md"]


def test_write_export_failure_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    target.write_text("old")
    with pytest.raises(FileNotFoundError):
        write_export(tmp_path / "missing" / "out.md", "x")
    with pytest.raises(UnicodeEncodeError):
        write_export(target, "bad \udc80 surrogate")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.md"]
