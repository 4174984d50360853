"""`acp-tui sessions list|prune --all-agents`: every configured agent's sessions at once.

The demo agents run in the test's event loop (``all_agents.connect`` is the test's); an agent
that fails on demand is a shell wrapper around a real demo agent process, so that its command
line (its key in the library) stays the same whether it fails or not.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from acp_tui.cli import main
from acp_tui.commands import all_agents
from acp_tui.config.paths import Paths
from acp_tui.demo_agent.store import SessionRecord, SessionStore
from acp_tui.store.library import Library
from acp_tui.store.transcripts import TranscriptCache

OLD, OLDER, NEW = "2020-02-01T00:00:00.000Z", "2020-01-01T00:00:00.000Z", "2999-01-01T00:00:00.000Z"


def seed(data: Path, records: Sequence[tuple[str, str, str]]) -> None:
    """Sessions (id, cwd, updatedAt) straight into a demo agent's store."""
    store = SessionStore(data)
    store.open()
    try:
        for session_id, cwd, updated in records:
            store.put(SessionRecord(session_id, cwd, updated_at=updated, created_at=updated))
    finally:
        store.close()


def demo(data: Path, *flags: str) -> str:
    args = json.dumps(["-m", "acp_tui.demo_agent", "--data-dir", str(data), *flags])
    return f"command = {json.dumps(sys.executable)}\nargs = {args}\n"


def failing(data: Path, flag: Path) -> str:
    """A demo agent that exits at once while ``flag`` exists (a real process)."""
    real = shlex.join([sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data)])
    script = f"test -e {shlex.quote(str(flag))} && exit 3; exec {real}"
    return f'command = "/bin/sh"\nargs = {json.dumps(["-c", script])}\n'


@pytest.fixture
def agents(
    acp_home: Paths, tmp_path: Path, agent_connect: object, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """alpha (2 sessions), beta (1, can list but not delete), gamma (1, fails while the flag
    file exists) and a missing command; the flag file's path."""
    monkeypatch.setattr(all_agents, "connect", agent_connect)
    monkeypatch.chdir(tmp_path)
    flag = tmp_path / "gamma-fails"
    (tmp_path / "q").mkdir()
    seed(tmp_path / "a", [("a-old", "/p", OLD), ("a-new", "/p", NEW)])
    seed(tmp_path / "b", [("b-older", "/p", OLDER)])
    seed(tmp_path / "g", [("g-old", str(tmp_path / "q"), "2020-01-15T00:00:00.000Z")])
    acp_home.config_file.parent.mkdir(parents=True, exist_ok=True)
    acp_home.config_file.write_text(
        f"[agents.alpha]\n{demo(tmp_path / 'a')}"
        f"[agents.beta]\n{demo(tmp_path / 'b', '--capabilities', 'list')}"
        f"[agents.gamma]\n{failing(tmp_path / 'g', flag)}"
        '[agents.missing]\ncommand = "/nonexistent/acp-agent-xyz"\n'
    )
    return flag


def run(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    status = main(["sessions", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return subprocess.CompletedProcess(args, status, out, err)


def test_list_merges_every_agent_newest_first_with_its_agent(
    agents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = run(capsys, "list", "--all-agents", "--all", "--json")
    rows = json.loads(listed.stdout)
    assert [(row["agent"], row["sessionId"]) for row in rows] == [
        ("alpha", "a-new"),
        ("alpha", "a-old"),
        ("gamma", "g-old"),
        ("beta", "b-older"),
    ]
    assert all(row["listedAt"] for row in rows)
    status = {line.split(": ")[1]: line for line in listed.stderr.splitlines() if ": " in line}
    assert status["alpha"].endswith("alpha: 2 new")
    assert status["beta"].endswith("beta: 1 new")
    assert "missing: failed:" in status["missing"]
    assert listed.returncode == 1  # one agent could not be listed

    table = run(capsys, "list", "--all-agents", "--cwd", "q", "--offline").stdout.splitlines()
    header = ["UPDATED", "AGENT", "LISTED", "TITLE", "ID", "CWD", "EXTRA", "ROOTS"]
    assert table[0].split() == header
    assert [line.split()[:4] for line in table[1:]] == [["2020-01-15", "gamma", "just", "now"]]


def test_a_failed_agent_shows_what_it_last_listed(
    agents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "list", "--all-agents", "--all", "--json")
    agents.touch()  # gamma fails from now on
    again = run(capsys, "list", "--all-agents", "--all", "--json")
    assert "gamma: failed:" in again.stderr
    rows = {row["sessionId"]: row for row in json.loads(again.stdout)}
    assert rows["g-old"]["agent"] == "gamma"
    assert rows["g-old"]["listedAt"] is not None
    assert "alpha: up to date" in again.stderr


def test_usage(agents: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mixed = run(capsys, "list", "--all-agents", "-a", "alpha")
    assert mixed.returncode == 2
    assert "--all-agents" in mixed.stderr
    assert run(capsys, "list", "--offline").returncode == 2


def test_prune_says_first_who_cannot_delete_then_what_each_would(
    agents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dry = run(capsys, "prune", "--all-agents", "--all", "--older-than", "30d", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.splitlines()
    assert lines[0].startswith("beta cannot delete: ")
    assert "does not support session/delete" in lines[0]
    assert lines[1].startswith("missing cannot delete: ")
    rest = "\n".join(lines[2:])
    assert "alpha: 1 session not updated for 30d:" in rest
    assert "gamma: 1 session not updated for 30d:" in rest
    assert "a-old" in rest
    assert "a-new" not in rest
    assert "b-older" not in rest
    assert rest.endswith("Dry run: nothing deleted.")


def test_prune_deletes_and_the_local_copies_go_unless_kept(
    agents: Path, acp_home: Paths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "list", "--all-agents", "--all", "--json")
    keys = {
        row["sessionId"]: row["agentKey"]
        for row in json.loads(run(capsys, "list", "--all-agents", "--all", "--json").stdout)
    }
    cache = TranscriptCache(acp_home.data_dir / "transcripts")
    for sid in ("a-old", "g-old"):
        cache.note_session(keys[sid], sid, cwd="/p", title=f"local {sid}")
        cache.record_user(keys[sid], sid, [{"type": "text", "text": f"remember {sid}"}])
    cache.close()

    pruned = run(capsys, "prune", "--all-agents", "--all", "--older-than", "30d", "--yes")
    assert pruned.returncode == 0, pruned.stderr
    deleted = sorted(line for line in pruned.stdout.splitlines() if line.startswith("deleted"))
    assert deleted == ["deleted alpha a-old", "deleted gamma g-old"]
    assert not cache.transcript_path(keys["a-old"], "a-old").exists()
    library = Library.under(acp_home.data_dir)
    library.start()
    try:
        library.sync(30)
        assert library.row(keys["a-old"], "a-old") is None
        assert library.row(keys["b-older"], "b-older") is not None
    finally:
        library.close()
    listed = json.loads(run(capsys, "list", "--all-agents", "--all", "--json").stdout)
    assert {row["sessionId"] for row in listed} == {"a-new", "b-older"}


def test_prune_keep_local(
    agents: Path, acp_home: Paths, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = {
        row["sessionId"]: row["agentKey"]
        for row in json.loads(run(capsys, "list", "--all-agents", "--all", "--json").stdout)
    }
    cache = TranscriptCache(acp_home.data_dir / "transcripts")
    cache.note_session(keys["a-old"], "a-old", cwd="/p", title="kept here")
    cache.record_user(keys["a-old"], "a-old", [{"type": "text", "text": "remember the keel"}])
    cache.close()
    pruned = run(
        capsys, "prune", "--all-agents", "--all", "--older-than", "30d", "--yes", "--keep-local"
    )
    assert pruned.returncode == 0, pruned.stderr
    assert "deleted alpha a-old" in pruned.stdout
    assert cache.transcript_path(keys["a-old"], "a-old").exists()
    found = main(["search", "keel", "--json"])
    out = capsys.readouterr().out
    assert found == 0
    assert [hit["sessionId"] for hit in json.loads(out)] == ["a-old"]
