"""Provides spawn_terminal: how a ``terminal/create`` command is started, and its env filter.

The working directory is opened inside the roots without following links
(``RootSet.open_directory``) and the child starts in that very directory: its ``cwd`` is
``/proc/<acp-tui pid>/fd/<descriptor>``, a link the kernel resolves to the open directory itself,
not by walking its path again. So a directory swapped for a symbolic link between the check and
the start cannot send the command elsewhere. (Python's ``subprocess`` cannot take a directory
descriptor as ``cwd``; this needs no ``preexec_fn`` and no extra process, and the descriptor is
not inherited by the command: the parent closes it once the child runs.) Without ``/proc``
(macOS) the checked real path is used, with the time-of-check window that leaves.

The agent's ``env`` is filtered: variables that make the dynamic loader, a shell, an interpreter
or git run code that the command line does not show (``LD_PRELOAD``, ``LD_LIBRARY_PATH``,
``DYLD_*``, ``BASH_ENV``, ``PYTHONPATH``, ``NODE_OPTIONS``, ``GIT_CONFIG_*``...) are dropped
unless the policy allows them by name. The user's own environment is passed on unchanged.
"""

from __future__ import annotations

import errno
import logging
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

import anyio
import anyio.to_thread
from anyio.abc import Process

from acp_tui.client.process import reaper
from acp_tui.client.tools.roots import RootSet, show_path
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError

log = logging.getLogger(__name__)

UNSAFE_ENV_PREFIXES = ("LD_", "DYLD_", "GIT_CONFIG_")
"""The dynamic loaders' variables (glibc, musl, macOS) and git's config-by-environment."""
UNSAFE_ENV_NAMES = frozenset(
    {
        # glibc ignores these in set-user-id programs for the same reason
        "GCONV_PATH", "GETCONF_DIR", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE",
        "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TZDIR",
        # shells run these, or run code from them
        "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
        # interpreters load code from these before the program's own
        "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PERL5LIB", "PERL5OPT", "PERLLIB",
        "RUBYLIB", "RUBYOPT", "NODE_OPTIONS", "NODE_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        # git runs these programs
        "GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND", "GIT_EDITOR", "GIT_PAGER", "GIT_SEQUENCE_EDITOR", "SSH_ASKPASS",
        # acp-tui's own: the process tree marker is set by acp-tui, never by the agent
        reaper.MARKER,
    }
)  # fmt: skip


def is_unsafe_env(name: str) -> bool:
    """Whether a variable from the agent could run code the command line does not show."""
    return name in UNSAFE_ENV_NAMES or name.startswith(UNSAFE_ENV_PREFIXES)


@dataclass(frozen=True, slots=True)
class EnvPolicy:
    """Which of the agent's environment variables reach a terminal's command.

    ``allow`` names unsafe variables that may pass anyway (e.g. from a future setting); the
    acp-tui marker can never be allowed.
    """

    allow: frozenset[str] = field(default_factory=frozenset)

    def filter(self, env: Mapping[str, str]) -> tuple[dict[str, str], tuple[str, ...]]:
        """``(kept, dropped names)``: the variables that may pass, and the names refused."""
        kept: dict[str, str] = {}
        dropped: list[str] = []
        for name, value in env.items():
            allowed = name in self.allow and name != reaper.MARKER
            if is_unsafe_env(name) and not allowed:
                dropped.append(name)
            else:
                kept[name] = value
        return kept, tuple(dropped)


@dataclass(frozen=True, slots=True)
class Spawned:
    process: Process
    root: reaper.Root
    dropped_env: tuple[str, ...]


@cache
def _proc_fd_dir() -> str | None:
    """``/proc/<pid>/fd`` when the kernel offers it (a forked child has its own pid: cached per
    process by the pid in the name)."""
    path = f"/proc/{os.getpid()}/fd"
    return path if os.path.isdir(path) else None


def _cwd_of(fd: int, real: str) -> str:
    fd_dir = _proc_fd_dir()
    if fd_dir is None or not fd_dir.startswith(f"/proc/{os.getpid()}/"):
        return real
    return f"{fd_dir}/{fd}"


async def spawn_terminal(
    roots: RootSet,
    command: str,
    args: Sequence[str],
    env: Mapping[str, str],
    cwd: str,
    policy: EnvPolicy,
) -> Spawned:
    """Start ``[command, *args]`` in ``cwd`` (inside the roots) as its own session and group.

    Raises RpcError (or PathRefused / PathNotFound for the directory) when it cannot start.
    """
    kept, dropped = policy.filter(env)
    if dropped:
        log.warning("terminal %s: not passed from the agent's env: %s", command, dropped)
    token = reaper.new_token()
    child_env = reaper.marked_env({**os.environ, **kept}, token)
    fd, real = await anyio.to_thread.run_sync(roots.open_directory, cwd)
    workdir = _cwd_of(fd, str(real))
    try:
        since = reaper.spawn_time()
        process = await anyio.open_process(
            [command, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=workdir,
            env=child_env,
            start_new_session=True,
        )
    except OSError as exc:
        raise _start_error(command, workdir, str(real), exc) from None
    except ValueError as exc:
        raise RpcError.invalid_params(
            f"cannot run {show_path(command)}: {exc}", {"command": command}
        ) from None
    finally:
        os.close(fd)
    root = reaper.guard(process.pid, token, since, "terminal")
    return Spawned(process, root, dropped)


def _start_error(command: str, workdir: str, real: str, exc: OSError) -> RpcError:
    if exc.filename == workdir:
        if isinstance(exc, FileNotFoundError):
            return RpcError(
                ErrorCode.RESOURCE_NOT_FOUND,
                f"Working directory not found: {show_path(real)}",
                {"uri": real},
            )
        return RpcError.invalid_params(
            f"cannot enter the working directory {show_path(real)}: {exc.strerror}",
            {"uri": real},
        )
    if isinstance(exc, FileNotFoundError):
        return RpcError(
            ErrorCode.RESOURCE_NOT_FOUND,
            f"Command not found: {show_path(command)}",
            {"command": command},
        )
    if isinstance(exc, PermissionError) or exc.errno == errno.ENOEXEC:
        return RpcError.invalid_params(
            f"command {show_path(command)} is not executable", {"command": command}
        )
    return RpcError.invalid_params(f"cannot run {show_path(command)}: {exc}", {"command": command})
