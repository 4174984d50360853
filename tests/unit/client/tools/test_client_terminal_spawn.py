"""A terminal's working directory is opened without following links, and its env is filtered."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import anyio
import pytest

from acp_tui.client.process import watchdog
from acp_tui.client.tools.roots import PathNotFound, PathRefused, RootSet
from acp_tui.client.tools.terminal_spawn import EnvPolicy, is_unsafe_env
from acp_tui.client.tools.terminals import TerminalManager
from acp_tui.protocol.jsonrpc import RpcError

PY = sys.executable
PRINT_ENV = "import os, sys; [print(n, os.environ.get(n)) for n in sys.argv[1:]]"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path.resolve() / "root"
    (path / "d").mkdir(parents=True)
    return path


async def run(terms: TerminalManager, command: str, args: list[str], **kw: object) -> str:
    tid = await terms.create(command, args, kw.get("env", {}), kw.get("cwd"), None)  # type: ignore[arg-type]
    with anyio.fail_after(20):
        await terms.wait_for_exit(tid)
    output = terms.output(tid).output
    await terms.release(tid)
    return output


@pytest.mark.parametrize(
    "name",
    ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_ENV",
     "PYTHONPATH", "NODE_OPTIONS", "GIT_CONFIG_COUNT", "GIT_SSH_COMMAND", "ACP_TUI_TREE"],
)  # fmt: skip
def test_loader_shell_and_interpreter_hooks_are_unsafe(name: str) -> None:
    assert is_unsafe_env(name)


@pytest.mark.parametrize("name", ["PATH", "HOME", "CI", "RUST_LOG", "LANG", "ld_preload"])
def test_ordinary_variables_are_safe(name: str) -> None:
    assert not is_unsafe_env(name)


def test_the_policy_drops_unsafe_variables_unless_allowed() -> None:
    env = {"LD_PRELOAD": "/x.so", "LD_LIBRARY_PATH": "/lib", "CI": "1", "ACP_TUI_TREE": "forged"}
    assert EnvPolicy().filter(env) == (
        {"CI": "1"},
        ("LD_PRELOAD", "LD_LIBRARY_PATH", "ACP_TUI_TREE"),
    )
    allowing = EnvPolicy(frozenset({"LD_LIBRARY_PATH", "ACP_TUI_TREE"}))
    assert allowing.filter(env) == (
        {"LD_LIBRARY_PATH": "/lib", "CI": "1"},
        ("LD_PRELOAD", "ACP_TUI_TREE"),  # the tree marker can never be allowed
    )


async def test_the_command_gets_only_the_safe_variables_of_the_agent(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LD_LIBRARY_PATH", "/users/own")  # the user's own env passes unchanged
    monkeypatch.delenv("PYTHONPATH", raising=False)
    agent_env = {
        "LD_PRELOAD": "/nonexistent/evil.so",
        "PYTHONPATH": "/agent/path",
        "ACP_TUI_TREE": "forged",
        "SAFE": "yes",
    }
    names = ["LD_PRELOAD", "PYTHONPATH", "LD_LIBRARY_PATH", "SAFE"]
    async with TerminalManager(RootSet(str(root))) as terms:
        tid = await terms.create(PY, ["-c", PRINT_ENV, *names, "ACP_TUI_TREE"], agent_env)
        with anyio.fail_after(20):
            await terms.wait_for_exit(tid)
        lines = terms.output(tid).output.splitlines()
        assert terms.dropped_env(tid) == ("LD_PRELOAD", "PYTHONPATH", "ACP_TUI_TREE")
        await terms.release(tid)
        assert lines[:4] == [
            "LD_PRELOAD None",
            "PYTHONPATH None",
            "LD_LIBRARY_PATH /users/own",
            "SAFE yes",
        ]
        assert "forged" not in lines[4]
    policy = EnvPolicy(frozenset({"PYTHONPATH"}))
    async with TerminalManager(RootSet(str(root)), env_policy=policy) as terms:
        output = await run(terms, PY, ["-c", PRINT_ENV, "PYTHONPATH"], env=agent_env)
        assert output == "PYTHONPATH /agent/path\n"


async def test_the_directory_descriptor_is_not_inherited(root: Path) -> None:
    code = (
        "import os\n"
        "for fd in os.listdir('/proc/self/fd'):\n"
        "    try: print(os.readlink(f'/proc/self/fd/{fd}'))\n"
        "    except OSError: pass\n"
        "print('cwd', os.getcwd())"
    )
    async with TerminalManager(RootSet(str(root))) as terms:
        output = await run(terms, PY, ["-c", code], cwd=str(root / "d"))
    *links, cwd = output.splitlines()
    assert cwd == f"cwd {root / 'd'}"
    assert str(root / "d") not in links


def test_a_link_swapped_in_after_the_check_is_refused(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = RootSet(str(root))
    checked = root / "d"
    (root / "d").rmdir()
    (root / "d").symlink_to(tmp_path)  # after the check: what the check saw was a directory
    monkeypatch.setattr(RootSet, "check_directory", lambda self, path: checked)
    with pytest.raises(PathRefused, match="symbolic link"):
        roots.open_directory(str(checked))
    (root / "d").unlink()
    with pytest.raises(PathNotFound):
        roots.open_directory(str(checked))


def test_a_directory_moved_out_while_opening_is_refused(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = RootSet(str(root))
    outside = tmp_path / "outside"
    real_open = os.open

    def open_then_move(path: str, flags: int, *args: object, **kw: object) -> int:
        fd = real_open(path, flags, *args, **kw)  # type: ignore[arg-type]
        if path == "d" and not outside.exists():
            os.rename(root / "d", outside)  # moved out of the roots once opened
        return fd

    monkeypatch.setattr(os, "open", open_then_move)
    with pytest.raises(PathRefused, match="moved outside"):
        roots.open_directory(str(root / "d"))


class Flipper:
    """Swaps ``root/d`` between a directory inside the roots and a link to outside, nonstop."""

    def __init__(self, root: Path, outside: Path) -> None:
        self.root, self.outside = root, outside
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        d, parked = self.root / "d", self.root / "d.real"
        while not self.stop.is_set():  # each state held a little (the old code: ~120 escapes)
            os.rename(d, parked)
            os.symlink(self.outside, d)
            self.stop.wait(0.0002)
            os.unlink(d)
            os.rename(parked, d)
            self.stop.wait(0.0002)

    def __enter__(self) -> Flipper:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path.resolve() / "outside"
    path.mkdir()
    return path


@pytest.mark.skipif(not watchdog.have_proc(), reason="needs Linux /proc")
async def test_raced_terminals_never_start_outside_the_roots(root: Path, outside: Path) -> None:
    """The issue's race: 600 terminals printing ``pwd -P`` while the cwd is swapped."""
    outcomes = {"inside": 0, "refused": 0, "escaped": 0}
    escapes: list[str] = []
    async with TerminalManager(RootSet(str(root))) as terms:

        async def one() -> None:
            try:
                tid = await terms.create("pwd", ["-P"], {}, str(root / "d"), None)
            except RpcError:  # refused or not found: the swap was seen
                outcomes["refused"] += 1
                return
            with anyio.fail_after(30):
                await terms.wait_for_exit(tid)
            where = terms.output(tid).output.strip()
            await terms.release(tid)
            if Path(where) == root or root in Path(where).parents:
                outcomes["inside"] += 1
            else:
                outcomes["escaped"] += 1
                escapes.append(where)

        with Flipper(root, outside):
            for _batch in range(30):
                async with anyio.create_task_group() as tg:
                    for _ in range(20):
                        tg.start_soon(one)
    print(outcomes)
    assert escapes == []
    assert outcomes["inside"] > 0
    assert outcomes["refused"] > 0  # the race did happen
