"""`acp-tui sessions list|delete|prune` against the demo agent.

The command runs in the test's process (``main``, its output captured) with the demo agent in
the test's event loop, unless the test is marked ``real_agent``: then both are real processes,
as they are for the tests about a terminal, a closed pipe or the command line itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.cli import main
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.history.recorder import agent_key_for
from acp_tui.client.process.command import AgentCommand
from acp_tui.commands.listing import parse_duration, relative_time
from acp_tui.commands.sessions import describe_error
from acp_tui.config.paths import Paths
from acp_tui.demo_agent.auth import AUTH_DATA_MESSAGE
from acp_tui.demo_agent.store import SessionRecord, SessionStore
from acp_tui.protocol.errors import RpcError
from acp_tui.store.transcripts import TranscriptCache
from tests import in_process
from tests.unit.cli_run import run_here, run_process
from tests.unit.client.agent.agent_helpers import WAIT
from tests.unit.client.agent.test_client_v2 import demo
from tests.unit.test_protocol_timestamps import local_wall_clock

TIMEOUT = 60

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
"""The agent-driving tests run on ACP v1 and on the v2 draft (agent and command both on v2)."""


def demo_argv(data: Path, *flags: str, protocol: int = 1) -> list[str]:
    """The demo agent; with ``protocol`` 2 it is started with ``--protocol 2``."""
    version = ("--protocol", str(protocol)) if protocol >= 2 else ()
    return [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data), *flags, *version]


def run(
    *args: str, cwd: Path | None = None, agent: Sequence[str] | None = None, protocol: int = 1
) -> subprocess.CompletedProcess[str]:
    """`acp-tui sessions ARGS [--protocol N] [-- AGENT]` with this test's ACP_TUI_HOME and no
    stdin (v1 passes no --protocol, the default): in this process where the test takes the demo
    agent in-process, else as `python -m acp_tui`."""
    argv = ["sessions", *args]
    if protocol >= 2:
        argv += ["--protocol", str(protocol)]
    if agent is not None:
        argv += ["--", *agent]
    result = run_here(argv, cwd) if in_process.wanted() else run_process(argv, cwd)
    assert "Traceback" not in result.stderr, result.stderr
    assert "Traceback" not in result.stdout, result.stdout
    return result


def ids(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert isinstance(listed, list)
    return [info["sessionId"] for info in listed]


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def directory(root: Path, name: str) -> Path:
    path = root / name
    path.mkdir(parents=True, exist_ok=True)
    return path.resolve()


async def create_sessions(
    data: Path, specs: Sequence[tuple[Path, Sequence[Path]]], protocol: int = 1
) -> list[str]:
    """Create sessions through the client API (on ``protocol``): (cwd, extra directories) each."""
    created = []
    async with demo(protocol, data, specs[0][0]) as client:
        with anyio.fail_after(WAIT):
            for cwd, extra in specs:
                created.append((await client.new_session(cwd, extra)).session_id)
    return created


def seed(data: Path, records: Sequence[tuple[str, Path, str]]) -> None:
    """Write sessions (id, cwd, updatedAt) straight into the demo agent's store."""
    store = SessionStore(data)
    store.open()
    try:
        for session_id, cwd, updated in records:
            store.put(SessionRecord(session_id, str(cwd), updated_at=updated, created_at=updated))
    finally:
        store.close()


# -- list --------------------------------------------------------------------------------------


@PROTOCOLS
@pytest.mark.real_agent  # reads the agent's stderr, which the command keeps in its log
async def test_list_reads_every_page(tmp_path: Path, acp_home: Paths, protocol: int) -> None:
    data, project = tmp_path / "demo", directory(tmp_path, "project")
    created = await create_sessions(data, [(project, [])] * 5, protocol)
    agent = demo_argv(data, "--page-size", "2", "--verbose", protocol=protocol)

    as_json = run("list", "--json", cwd=project, agent=agent, protocol=protocol)
    assert sorted(ids(as_json)) == sorted(created)
    assert all(info["cwd"] == str(project) for info in json.loads(as_json.stdout))
    # The agent's log (kept by the command) says which version was really spoken.
    [log] = [t for p in acp_home.log_dir.glob("*.log") if "--verbose" in (t := p.read_text())]
    assert ("speaking ACP v2" in log) == (protocol == 2)

    table = run("list", cwd=project, agent=agent, protocol=protocol)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["UPDATED", "TITLE", "ID", "CWD", "EXTRA", "ROOTS"]
    assert len(lines) == 1 + len(created)
    assert all(session_id in table.stdout for session_id in created)
    assert "(untitled)" in table.stdout
    assert "just now" in table.stdout


@PROTOCOLS
async def test_list_filters_by_directory(tmp_path: Path, protocol: int) -> None:
    data = tmp_path / "demo"
    one, two = directory(tmp_path, "one"), directory(tmp_path, "two")
    in_one, in_two, also_two = await create_sessions(
        data, [(one, []), (two, []), (two, [])], protocol
    )
    agent = demo_argv(data, "--page-size", "2", protocol=protocol)
    v = protocol

    assert ids(run("list", "--json", cwd=one, agent=agent, protocol=v)) == [in_one]
    in_dir_two = run("list", "--json", "--cwd", str(two), cwd=one, agent=agent, protocol=v)
    assert sorted(ids(in_dir_two)) == sorted([in_two, also_two])
    everything = ids(run("list", "--json", "--all", cwd=one, agent=agent, protocol=v))
    assert sorted(everything) == sorted([in_one, in_two, also_two])

    empty = directory(tmp_path, "empty")
    nothing = run("list", cwd=empty, agent=agent, protocol=v)
    assert nothing.returncode == 0, nothing.stderr
    assert nothing.stdout.strip() == f"No sessions in {empty}."


async def test_list_add_dir_is_an_exact_ordered_match(tmp_path: Path) -> None:
    data, project = tmp_path / "demo", directory(tmp_path, "project")
    x, y = directory(tmp_path, "x"), directory(tmp_path, "y")
    xy, yx, only_x, none = await create_sessions(
        data, [(project, [x, y]), (project, [y, x]), (project, [x]), (project, [])]
    )
    agent = demo_argv(data)
    exact = run(
        "list", "--json", "--add-dir", str(x), "--add-dir", str(y), cwd=project, agent=agent
    )
    assert ids(exact) == [xy]
    assert json.loads(exact.stdout)[0]["additionalDirectories"] == [str(x), str(y)]
    assert ids(run("list", "--json", "--add-dir", str(x), cwd=project, agent=agent)) == [only_x]
    everything = ids(run("list", "--json", cwd=project, agent=agent))
    assert sorted(everything) == sorted([xy, yx, only_x, none])
    table = run("list", "--add-dir", str(y), "--add-dir", str(x), cwd=project, agent=agent)
    assert yx in table.stdout
    assert f"{y}, {x}" in table.stdout


def test_v2_offered_to_a_v1_agent_goes_on_in_v1_and_says_so(tmp_path: Path) -> None:
    result = run("list", "--json", "--all", agent=demo_argv(tmp_path / "demo"), protocol=2)
    assert ids(result) == []
    assert one_line(result) == "acp-tui: warning: acp-tui demo agent speaks ACP v1, not v2"


def test_list_without_the_capability_points_to_the_app(tmp_path: Path) -> None:
    # v1 only: session/list is part of v2's baseline, so a v2 agent with sessions always lists.
    result = run("list", agent=demo_argv(tmp_path / "demo", "--capabilities", "delete"))
    assert result.returncode == 1
    line = one_line(result)
    assert line.startswith("acp-tui: ")
    assert "does not support session/list" in line
    assert "app's session browser" in line


FAKE_AGENT = textwrap.dedent(
    """
    import json, sys
    pages = {None: "c1", "c1": "c2", "c2": "c1"}  # a cursor cycle: c1, c2, c1...
    for line in sys.stdin:
        msg = json.loads(line)
        if "id" not in msg:
            continue
        if msg["method"] == "initialize":
            result = {"protocolVersion": 1,
                      "agentCapabilities": {"sessionCapabilities": {"list": {}}}}
        elif msg["method"] == "session/list":
            cursor = msg["params"].get("cursor")
            result = {"sessions": [
                # every page repeats "dup", and the cwd filter is ignored
                {"sessionId": "dup", "cwd": sys.argv[1], "updatedAt": "2020-01-01T00:00:00"},
                {"sessionId": "p-" + str(cursor), "cwd": sys.argv[1], "title": "\\x1b[31mred"},
                {"sessionId": "other-" + str(cursor), "cwd": "/somewhere/else"},
            ], "nextCursor": pages[cursor]}
        else:
            result = None
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
    """
)


def test_list_survives_a_misbehaving_agent(tmp_path: Path) -> None:
    project = directory(tmp_path, "project")
    script = tmp_path / "fake_agent.py"
    script.write_text(FAKE_AGENT, encoding="utf-8")
    agent = [sys.executable, str(script), str(project)]

    result = run("list", "--json", cwd=project, agent=agent)
    assert ids(result) == ["dup", "p-None", "p-c1", "p-c2"]
    assert "repeated a session/list cursor" in result.stderr

    table = run("list", cwd=project, agent=agent)
    assert table.returncode == 0, table.stderr
    assert "\x1b" not in table.stdout
    assert "␛[31mred" in table.stdout  # made visible, as everywhere (see sanitize)
    assert "2020-01-01" in table.stdout


# -- delete ------------------------------------------------------------------------------------


@PROTOCOLS
async def test_delete_with_yes(tmp_path: Path, protocol: int) -> None:
    data, project = tmp_path / "demo", directory(tmp_path, "project")
    gone, kept = await create_sessions(data, [(project, []), (project, [])], protocol)
    agent = demo_argv(data, protocol=protocol)
    cache = TranscriptCache()
    key = agent_key_for(LaunchSpec(command=AgentCommand(agent), cwd=project))
    for session_id in (gone, kept):
        cache.note_session(key, session_id, cwd=project, created=True)
        cache.record_update(key, session_id, {"sessionUpdate": "plan", "entries": []})

    v = protocol
    result = run("delete", gone, "never-existed", "--yes", cwd=project, agent=agent, protocol=v)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"deleted {gone}", "deleted never-existed"]
    assert ids(run("list", "--json", cwd=project, agent=agent, protocol=v)) == [kept]
    assert [s.session_id for s in cache.sessions(key)] == [kept]
    assert not cache.has(key, gone)
    assert cache.has(key, kept)


async def test_delete_without_yes_and_without_a_terminal_refuses(tmp_path: Path) -> None:
    data, project = tmp_path / "demo", directory(tmp_path, "project")
    (session_id,) = await create_sessions(data, [(project, [])])
    result = run("delete", session_id, cwd=project, agent=demo_argv(data))
    assert result.returncode == 2
    assert "--yes" in one_line(result)
    assert ids(run("list", "--json", cwd=project, agent=demo_argv(data))) == [session_id]


@PROTOCOLS
def test_delete_without_the_capability(tmp_path: Path, protocol: int) -> None:
    agent = demo_argv(tmp_path / "demo", "--capabilities", "list", protocol=protocol)
    result = run("delete", "some-id", "--yes", agent=agent, protocol=protocol)
    assert result.returncode == 1
    assert one_line(result) == "acp-tui: acp-tui demo agent does not support session/delete"


# -- prune -------------------------------------------------------------------------------------


@PROTOCOLS
def test_prune(tmp_path: Path, protocol: int) -> None:
    data, project = tmp_path / "demo", directory(tmp_path, "project")
    elsewhere = directory(tmp_path, "elsewhere")
    seed(
        data,
        [
            ("ancient", project, "2020-01-01T00:00:00.000Z"),
            ("naive-old", project, "2021-01-01T00:00:00"),
            ("no-time", project, ""),
            ("recent", project, "2999-01-01T00:00:00.000Z"),
            ("old-elsewhere", elsewhere, "2020-01-01T00:00:00.000Z"),
        ],
    )
    agent = demo_argv(data, "--page-size", "2", protocol=protocol)
    v = protocol

    dry = run("prune", "--older-than", "30d", "--dry-run", cwd=project, agent=agent, protocol=v)
    assert dry.returncode == 0, dry.stderr
    assert "Skipped 1 session without a usable updatedAt." in dry.stdout
    assert "2 sessions not updated for 30d:" in dry.stdout
    assert "ancient" in dry.stdout
    assert "naive-old" in dry.stdout
    assert "recent" not in dry.stdout
    assert "old-elsewhere" not in dry.stdout
    assert "Dry run: nothing deleted." in dry.stdout
    everything = ["ancient", "naive-old", "no-time", "old-elsewhere", "recent"]
    assert sorted(ids(run("list", "--json", "--all", agent=agent, protocol=v))) == everything

    unconfirmed = run("prune", "--older-than", "30d", cwd=project, agent=agent, protocol=v)
    assert unconfirmed.returncode == 2
    assert "--yes" in one_line(unconfirmed)

    pruned = run(
        "prune", "--older-than", "2w", "--yes", "--all", cwd=project, agent=agent, protocol=v
    )
    assert pruned.returncode == 0, pruned.stderr
    assert sorted(line for line in pruned.stdout.splitlines() if line.startswith("deleted")) == [
        "deleted ancient",
        "deleted naive-old",
        "deleted old-elsewhere",
    ]
    assert sorted(ids(run("list", "--json", "--all", agent=agent, protocol=v))) == [
        "no-time",
        "recent",
    ]

    nothing = run("prune", "--older-than", "90m", "--yes", cwd=project, agent=agent, protocol=v)
    assert nothing.returncode == 0, nothing.stderr
    assert "No sessions older than 90m." in nothing.stdout


@PROTOCOLS
def test_prune_without_delete_can_still_dry_run(tmp_path: Path, protocol: int) -> None:
    data, project = tmp_path / "demo", directory(tmp_path, "project")
    seed(data, [("ancient", project, "2020-01-01T00:00:00.000Z")])
    agent = demo_argv(data, "--capabilities", "list", protocol=protocol)
    v = protocol
    dry = run("prune", "--older-than", "1d", "--dry-run", cwd=project, agent=agent, protocol=v)
    assert dry.returncode == 0, dry.stderr
    assert "ancient" in dry.stdout
    # It says first that nothing could be deleted, not after listing what would be.
    first = dry.stdout.splitlines()[0]
    assert first.startswith("Note: ")
    assert "does not support session/delete" in first
    refused = run("prune", "--older-than", "1d", "--yes", cwd=project, agent=agent, protocol=v)
    assert refused.returncode == 1
    assert "does not support session/delete" in one_line(refused)


@pytest.mark.parametrize("local_zone", ["UTC", "Asia/Tokyo", "America/Los_Angeles"], indirect=True)
def test_prune_reads_a_time_without_a_zone_as_local_time(tmp_path: Path, local_zone: str) -> None:
    """fast-agent writes local time without a zone: 5 hours ago is 5 hours ago in every zone.

    The command (and the agent) run in ``local_zone``; a Z and an offset mean what they say.
    """
    data, project = tmp_path / "demo", directory(tmp_path, "project")
    moment = datetime.now(UTC) - timedelta(hours=5)
    seed(
        data,
        [
            ("naive", project, local_wall_clock(local_zone, timedelta(hours=5))),
            ("zulu", project, moment.isoformat(timespec="seconds").replace("+00:00", "Z")),
            (
                "offset",
                project,
                moment.astimezone(timezone(timedelta(hours=5, minutes=30))).isoformat(
                    timespec="seconds"
                ),
            ),
        ],
    )
    agent = demo_argv(data)
    old = run("prune", "--older-than", "4h", "--dry-run", cwd=project, agent=agent)
    assert old.returncode == 0, old.stderr
    assert "3 sessions not updated for 4h:" in old.stdout
    assert [line.split()[:2] for line in old.stdout.splitlines() if "ago" in line] == [
        ["5h", "ago"]
    ] * 3
    young = run("prune", "--older-than", "6h", "--dry-run", cwd=project, agent=agent)
    assert young.returncode == 0, young.stderr
    assert "No sessions older than 6h." in young.stdout


# -- usage and agent errors --------------------------------------------------------------------


def run_in_process(
    capsys: pytest.CaptureFixture[str], *args: str
) -> subprocess.CompletedProcess[str]:
    """`acp-tui sessions ARGS` through `cli.main` in this process (for fast usage checks)."""
    status = main(["sessions", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return subprocess.CompletedProcess(args, status, out, err)


@pytest.mark.parametrize("duration", ["30", "d", "0d", "1.5h", "-3d", "30 d", "1y", "9999999w"])
def test_a_bad_duration_exits_2(capsys: pytest.CaptureFixture[str], duration: str) -> None:
    result = run_in_process(
        capsys, "prune", f"--older-than={duration}", "--dry-run", "--", "/no/such/agent"
    )
    assert result.returncode == 2
    assert "duration" in one_line(result)


USAGE_ERRORS = [
    (["list", "-a", "demo", "--", "my-agent"], "not both"),
    (["list", "--"], "after '--'"),
    (["list", "--cwd", "/no/such/dir"], "/no/such/dir: no such directory"),
    (["list", "--add-dir", "/no/such/dir"], "no such directory"),
    (["list", "--all", "--cwd", "."], "not allowed with argument"),
    (["list", "-a", "no-such-agent"], "'no-such-agent'"),
    (["list", "--protocol", "3"], "invalid choice: 3"),
    (["prune", "--older-than", "1d", "--protocol", "v2"], "invalid int value"),
    (["delete"], "required: ID"),
    (["prune", "--dry-run"], "--older-than"),
    (["rename"], "invalid choice"),
    ([], "required: ACTION"),
]


@pytest.mark.parametrize(("args", "needle"), USAGE_ERRORS)
def test_usage_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], needle: str
) -> None:
    result = run_in_process(capsys, *args)
    assert result.returncode == 2, result.stderr
    assert needle in one_line(result)
    assert result.stdout == ""


def test_usage_errors_as_a_subprocess() -> None:
    result = run("prune", "--older-than", "soon", "--dry-run")
    assert result.returncode == 2
    assert one_line(result).startswith("acp-tui sessions: error: invalid duration 'soon'")


def test_a_missing_agent_command_exits_1_with_one_line(tmp_path: Path) -> None:
    result = run("list", agent=[str(tmp_path / "no-such-agent"), "--acp"])
    assert result.returncode == 1
    line = one_line(result)
    assert line.startswith("acp-tui: cannot start agent")
    assert "no-such-agent" in line


def test_an_agent_that_dies_at_once_exits_1_saying_what_it_wrote() -> None:
    """The agent's stderr is not shown otherwise: its last lines say why it died."""
    code = "import sys; print('boom\\nmore', file=sys.stderr); sys.exit(3)"
    result = run("list", agent=[sys.executable, "-c", code])
    assert result.returncode == 1
    first, *rest = result.stderr.splitlines()
    assert "exited with code 3" in first
    assert rest == ["  boom", "  more"]


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
def test_an_agent_that_exits_during_the_login_says_so_and_why(
    tmp_path: Path, protocol: int
) -> None:
    agent = demo_argv(
        tmp_path / "demo", "--protocol", str(protocol), "--require-auth", "--fault", "login-exits"
    )
    result = run("list", "--auth", "demo-login", agent=agent, protocol=protocol)
    assert result.returncode == 1
    login = "authenticate" if protocol == 1 else "auth/login"
    assert result.stderr.splitlines() == [
        f"acp-tui: agent exited with code 3 during {login}",
        "  acp-tui demo agent: the login crashed (fault login-exits)",
    ]


ENV_KEY = "ACP_TUI_TEST_CLI_KEY"


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
def test_auth_with_an_env_var_login_uses_the_environment(
    tmp_path: Path, protocol: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--auth`` names an ``env_var`` login (codex's ``openai-api-key``): the agent reads the
    variable from acp-tui's environment, and is asked to log in with the method."""
    monkeypatch.setenv(ENV_KEY, "sk-cli-secret")
    agent = demo_argv(tmp_path / "demo", "--require-auth", "--auth-env", ENV_KEY, protocol=protocol)
    result = run("list", "--json", "--auth", "demo-api-key", agent=agent, protocol=protocol)
    assert result.returncode == 0, result.stderr
    assert ids(result) == []
    assert "sk-cli-secret" not in result.stdout + result.stderr


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
def test_auth_with_an_env_var_login_without_its_value_names_the_type_and_the_variable(
    tmp_path: Path, protocol: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_KEY, raising=False)
    agent = demo_argv(tmp_path / "demo", "--require-auth", "--auth-env", ENV_KEY, protocol=protocol)
    result = run("list", "--auth", "demo-api-key", agent=agent, protocol=protocol)
    assert result.returncode == 1
    line = one_line(result)
    assert "'demo-api-key' is a login of type 'env_var'" in line
    assert f"reads {ENV_KEY}, which is not set" in line
    # Without --auth, the methods are listed with their type and variables.
    offered = one_line(run("list", agent=agent, protocol=protocol))
    assert f"demo-api-key (Use {ENV_KEY}, type env_var: reads {ENV_KEY})" in offered


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
def test_a_login_error_says_what_its_data_says(tmp_path: Path, protocol: int) -> None:
    agent = demo_argv(
        tmp_path / "demo",
        "--protocol",
        str(protocol),
        "--require-auth",
        "--auth-style",
        "error-data",
    )
    result = run("list", agent=agent, protocol=protocol)
    assert result.returncode == 1
    assert f"— {AUTH_DATA_MESSAGE}); pass --auth METHOD_ID" in one_line(result)


def test_an_agent_error_says_what_its_data_says(tmp_path: Path) -> None:
    agent = demo_argv(tmp_path / "demo", "--fault", "error-data")
    result = run("list", agent=agent)
    assert result.returncode == 1
    assert one_line(result) == (
        "acp-tui: the agent answered with an error: "
        "Internal error (code -32603) — CODEX_API_KEY is not set"
    )


def test_an_agent_error_with_details_shows_them_bounded_and_sanitised(tmp_path: Path) -> None:
    agent = demo_argv(tmp_path / "demo", "--fault", "error-details")
    result = run("list", agent=agent)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "acp-tui: the agent answered with an error: "
        "Internal error (code -32603) — stream disconnected before completion",
        "  error sending request for url (https://api.invalid/v1/responses)",
        "  caused by: connection reset by peer",
    ]
    deleted = run("delete", "some-id", "--yes", agent=agent)
    assert deleted.returncode == 1
    assert deleted.stderr.splitlines() == [
        "acp-tui: could not delete some-id: Internal error (code -32603) — stream disconnected "
        "before completion␊error sending request for url (https://api.invalid/v1/responses)"
        "␊caused by: connection reset by peer"
    ]


def test_an_agent_error_data_is_sanitised() -> None:
    data = {"message": "\x1b]52;c;aGFja2Vk\x07copied?", "details": "one\x1b[2J\ntwo\u202egpj"}
    text = describe_error(RpcError(-32603, "Internal error", data))
    assert text.splitlines() == [
        "the agent answered with an error: Internal error (code -32603) — ␛]52;c;aGFja2Vk␇copied?",
        "  one␛[2J",
        "  two⟨U+202E⟩gpj",
    ]


def test_help() -> None:
    for args in (["--help"], ["list", "--help"], ["delete", "--help"], ["prune", "--help"]):
        result = run(*args)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("usage: acp-tui sessions")
        assert "-- COMMAND ARGS..." in result.stdout
        assert "--protocol {1,2}" in result.stdout


def test_sessions_is_a_headless_subcommand() -> None:
    code = textwrap.dedent(
        """
        import contextlib, io, sys
        from acp_tui.cli import main
        for argv in (["sessions", "--help"], ["sessions", "list", "--", "/no/such/agent"]):
            with contextlib.redirect_stdout(io.StringIO()), \\
                    contextlib.redirect_stderr(io.StringIO()):
                main(argv)
        print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=os.environ.copy(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


# -- helpers that need no agent ----------------------------------------------------------------


def test_parse_duration() -> None:
    assert parse_duration("90m").total_seconds() == 90 * 60
    assert parse_duration("12h").total_seconds() == 12 * 3600
    assert parse_duration("30d").days == 30
    assert parse_duration("2w").days == 14


@pytest.mark.usefixtures("local_zone")  # UTC: a time without a zone is local time
def test_relative_time() -> None:
    from datetime import UTC, datetime

    now = datetime(2025, 6, 15, 12, 0, tzinfo=UTC)
    cases: dict[str | None, str] = {
        None: "-",
        "garbage": "?",
        "2025-06-15T11:59:30Z": "just now",
        "2025-06-15T11:00:00": "1h ago",
        "2025-06-15T11:55:00+00:00": "5m ago",
        "2025-06-12T12:00:00.000Z": "3d ago",
        "2025-01-01T00:00:00Z": "2025-01-01",
        "2030-01-01T00:00:00Z": "2030-01-01",
    }
    seen: dict[str | None, Any] = {value: relative_time(value, now) for value in cases}
    assert seen == cases


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize(("answer", "deleted"), [("y\n", True), ("n\n", False), ("", False)])
def test_delete_asks_on_a_terminal(tmp_path: Path, answer: str, deleted: bool) -> None:
    data, project = tmp_path / "demo", directory(tmp_path, "project")
    (session_id,) = anyio.run(create_sessions, data, [(project, [])])
    command = ["sessions", "delete", session_id, "--", *demo_argv(data)]
    controller, terminal = os.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "acp_tui", *command],
            env=os.environ.copy(),
            cwd=project,
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.write(controller, answer.encode() if answer else b"\x04")  # ^D: end of input
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        os.close(controller)
        os.close(terminal)
    assert "Traceback" not in err
    assert f"Delete 1 session of acp-tui demo agent ({session_id})? [y/N]" in err
    if deleted:
        assert process.returncode == 0, err
        assert out == f"deleted {session_id}\n"
        assert ids(run("list", "--json", cwd=project, agent=demo_argv(data))) == []
    else:
        assert process.returncode == 1
        assert "Nothing deleted." in err
        assert ids(run("list", "--json", cwd=project, agent=demo_argv(data))) == [session_id]


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_a_reader_that_stops_early_gets_no_broken_pipe_message(
    tmp_path: Path, acp_home: Paths, as_json: bool
) -> None:
    """`acp-tui sessions list --json | head -1`: the output is more than a pipe holds."""
    data = tmp_path / "demo"
    stamp = "2026-01-01T00:00:00Z"
    seed(data, [(f"s-{n:05d}-{'x' * 40}", tmp_path, stamp) for n in range(3000)])
    argv = [sys.executable, "-m", "acp_tui", "sessions", "list", "--all"]
    argv += ["--json"] if as_json else []
    argv += ["--", *demo_argv(data)]
    child = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    assert child.stdout is not None
    assert child.stderr is not None
    first = child.stdout.readline()
    child.stdout.close()  # like `head -1`
    stderr = child.stderr.read().decode()
    status = child.wait(timeout=TIMEOUT)
    assert first
    assert "Broken pipe" not in stderr
    assert "Traceback" not in stderr
    assert status in (0, 141)
