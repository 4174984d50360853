"""`acp-tui search`: every agent's recorded sessions found from the command line."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.cli import main
from acp_tui.client.history.agent_names import agent_key_of
from acp_tui.config.paths import Paths
from acp_tui.config.settings import Settings
from acp_tui.store.transcripts import TranscriptCache

OTHER = '["some-old-agent", "--acp"]'


@pytest.fixture
def recorded(acp_home: Paths, tmp_path: Path) -> str:
    """Two agents' sessions recorded here: the demo agent's and an unconfigured one's."""
    demo = agent_key_of("demo", Settings(), acp_home, tmp_path)
    cache = TranscriptCache(acp_home.data_dir / "transcripts")
    sessions = [
        (demo, "sess-3f2a9c01", "/work/app", "Fix the \x1b]0;pwned\x07 test", "the lighthouse"),
        (demo, "sess-77aa0001", "/work/lib", "Other things", "a keeper of [b]records[/b]"),
        (OTHER, "old-0001", "/work/app", "Older agent", "the lighthouse keeper"),
    ]
    for key, sid, cwd, title, said in sessions:
        cache.note_session(key, sid, cwd=cwd, title=title)
        cache.record_user(key, sid, [{"type": "text", "text": f"tell me about {said}"}])
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}}
        update["content"]["text"] = f"Here is {said}."  # type: ignore[index]
        cache.record_update(key, sid, update)
        cache.record_turn_end(key, sid, "end_turn")
    cache.close()
    return demo


def search(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["search", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_finds_every_agents_sessions_with_their_agent(
    recorded: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = search(capsys, "lighthouse", "--json")
    assert status == 0
    hits = json.loads(out)
    assert {(hit["agent"], hit["sessionId"]) for hit in hits} == {
        ("demo", "sess-3f2a9c01"),
        ("some-old-agent", "old-0001"),
    }
    hit = hits[0]
    text, spans = hit["snippet"]["text"], hit["snippet"]["spans"]
    assert [text[a:b] for a, b in spans] == ["lighthouse"]
    assert (hit["match"], hit["kind"], hit["line"], hit["turn"]) == ("text", "reply", 1, 1)


def test_filters_by_agent_and_cwd(recorded: str, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = search(capsys, "keeper", "--agent", "demo", "--json")
    assert [hit["sessionId"] for hit in json.loads(out)] == ["sess-77aa0001"]
    _, out, _ = search(capsys, "lighthouse", "--cwd", "/work/app", "--json", "--limit", "1")
    assert len(json.loads(out)) == 1


def test_ids_match_when_the_text_looks_like_one(
    recorded: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = search(capsys, "sess-3f2a", "--json")
    assert [(hit["match"], hit["sessionId"]) for hit in json.loads(out)] == [
        ("id", "sess-3f2a9c01")
    ]


def test_the_table_shows_hostile_text_literally(
    recorded: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = search(capsys, "records")
    assert status == 0
    assert "\x1b" not in out
    assert "\x07" not in out
    assert out.splitlines() == [
        out.splitlines()[0],
        "    reply: Here is a keeper of [b]records[/b].",
    ]
    assert "demo  Other things  (sess-77aa0001)" in out.splitlines()[0]
    _, out, _ = search(capsys, "pwned")
    assert "␛]0;pwned␇" in out


def test_nothing_found_is_status_1_and_bad_arguments_2(
    recorded: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert search(capsys, "nowhere-to-be-found")[0] == 1
    status, _, err = search(capsys, "x", "--agent", "nosuch")
    assert status == 2
    assert "no agent named 'nosuch'" in err
    assert search(capsys, "x", "--limit", "0")[0] == 2
    assert search(capsys)[0] == 2


@pytest.mark.parametrize("query", ['"', "NEAR(", "-:*", "a" * 10_240])
def test_any_text_is_a_query(recorded: str, capsys: pytest.CaptureFixture[str], query: str) -> None:
    assert search(capsys, "--", query)[0] in (0, 1)  # '--': the text may start with '-'


def test_runs_as_a_command(recorded: str, acp_home: Paths) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", "search", "lighthouse", "keeper"],
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "some-old-agent  Older agent  (old-0001)" in result.stdout
    assert (acp_home.data_dir / "library").is_dir()


def test_the_progress_line_shows_a_library_trouble_literally_on_one_line() -> None:
    """The progress line is written beneath the sanitiser (it is redrawn in place): a trouble
    from the data folder (its path may hold any character) is made safe there."""
    from acp_tui.commands.search import _wait_built
    from acp_tui.store.library import LibraryStatus

    class Stopped:
        """A library that stops (a full disk) while the command waits for its build."""

        def __init__(self) -> None:
            self.waits = 0
            self.status = LibraryStatus("stopped", trouble="\x1b[31mdisk\nfull\x07")

        def wait_built(self, timeout: float | None = None) -> bool:
            self.waits += 1
            return self.waits > 3

        def sync(self, timeout: float | None = None) -> bool:
            return True

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    _wait_built(Stopped(), err)  # type: ignore[arg-type]
    lines = err.getvalue().split("\r")
    assert "acp-tui: the history library cannot be used: ␛[31mdisk␊full␇" in lines
    assert all(ch not in err.getvalue() for ch in "\x07\n")
    assert err.getvalue().count("\x1b") == 1  # only the line's own clearing, "\x1b[K"
