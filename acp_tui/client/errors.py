"""Provides the typed errors of the client core, each with a message a user can act on."""

from __future__ import annotations

from collections.abc import Sequence


class AgentError(Exception):
    """Base of every error about talking to an agent."""


class AgentNotFound(AgentError):
    """The agent's command does not exist or cannot be executed."""

    def __init__(self, command: str, reason: str) -> None:
        super().__init__(f"cannot start agent: {command!r}: {reason}")
        self.command = command
        self.reason = reason


class AgentStartFailed(AgentError):
    """The agent process could not be started for another reason (bad cwd, permissions...)."""


class AgentExited(AgentError):
    """The agent process ended while we were talking to it."""

    def __init__(
        self, exit_code: int | None, stderr_tail: Sequence[str] = (), context: str = ""
    ) -> None:
        self.exit_code = exit_code
        self.stderr_tail = list(stderr_tail)
        self.context = context
        self.deliberate = False
        """acp-tui ended the connection itself (a stop or a restart): not the agent's doing."""
        how = "agent exited" if exit_code is None else f"agent exited with code {exit_code}"
        if exit_code is not None and exit_code < 0:
            how = f"agent was killed by signal {-exit_code}"
        message = f"{how} {context}".strip()
        if self.stderr_tail:
            message += "\n" + "\n".join(self.stderr_tail)
        super().__init__(message)


class InitializeTimeout(AgentError):
    """The agent started but never answered `initialize` within the bounded wait."""

    def __init__(self, seconds: float, stderr_tail: Sequence[str] = ()) -> None:
        self.seconds = seconds
        self.stderr_tail = list(stderr_tail)
        message = f"the agent did not answer initialize within {seconds:g} s"
        if self.stderr_tail:
            message += "\n" + "\n".join(self.stderr_tail)
        super().__init__(message)


class RequestTimedOut(AgentError):
    """The agent did not answer a call within ``request_timeout``; the call was cancelled."""

    def __init__(self, method: str, seconds: float) -> None:
        self.method = method
        self.seconds = seconds
        super().__init__(f"the agent did not answer {method} within {seconds:g} s")


class RequestCancelled(AgentError):
    """The user gave up waiting for a call (Esc); the call was cancelled."""

    def __init__(self, method: str) -> None:
        self.method = method
        super().__init__(f"you stopped waiting for {method}")


class ProtocolMismatch(AgentError):
    """The agent answered with a protocol version this client does not speak."""

    def __init__(self, offered: int, answered: object, supported: Sequence[int]) -> None:
        super().__init__(
            f"the agent speaks ACP protocol version {answered!r}; acp-tui offered {offered} "
            f"and speaks {' and '.join(map(str, supported))}"
        )
        self.offered = offered
        self.answered = answered


class Unsupported(AgentError):
    """The agent does not advertise what an action needs (the message names it)."""


class LoginRestart(AgentError):
    """The user chose a terminal login: the agent restarts after it, and the call is retried."""


def what_to_try(error: BaseException | None, log_dir: str = "") -> str:
    """The fix to try when an agent stopped or could not start, in one sentence, ending with
    how to try again (said in the transcript, where it stays)."""
    again = "Ctrl+R tries again."
    logs = f" (its log is in {log_dir})" if log_dir else ""
    if isinstance(error, AgentNotFound):
        return (
            f"Install {error.command!r} or fix the agent's command: `acp-tui agents list` shows "
            f"the configured ones, `acp-tui config path` the config file. {again}"
        )
    if isinstance(error, AgentStartFailed):
        return f"Check that the agent's command and folder exist and are yours to run. {again}"
    if isinstance(error, InitializeTimeout):
        return (
            "The agent started but does not speak ACP on stdio: it may need a flag for that "
            "(such as `--acp` or `acp`), or be waiting for a login in a terminal: run the command "
            f"yourself to see{logs}. {again}"
        )
    if isinstance(error, RequestTimedOut):
        return (
            f"The agent may be stuck: Ctrl+R restarts it (`request_timeout` in the config sets "
            f"how long acp-tui waits, {error.seconds:g} s now){logs}."
        )
    if isinstance(error, ProtocolMismatch):
        return f"acp-tui speaks ACP v1 and the v2 draft: update the agent or acp-tui. {again}"
    if isinstance(error, AgentExited) and "before answering initialize" in error.context:
        return (
            "The agent stopped before it spoke ACP: run its command yourself to see why (a "
            f"missing flag such as `--acp`, a login, an API key). {again}"
        )
    return "Press Ctrl+R to restart the agent."
