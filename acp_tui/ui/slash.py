"""Provides acp-tui's own slash commands and how a prompt is read: the agent's command, ours, a
``!`` shell command, or text for the agent.

The agent's commands (its ``available_commands_update``) are only text prompts on the wire:
``/web query`` is sent as typed. acp-tui has commands of its own (`CLIENT_COMMANDS`), completed
beside the agent's and marked as acp-tui's. When both have a command of the same name, the
agent's wins (it is what the agent advertised for this session), and ``//name`` still reaches
acp-tui's. A ``/name`` neither knows is sent to the agent, which may know it anyway (agents
announce their commands late, or not at all). ``!command`` runs a shell command
(`acp_tui.client.workspace.shell`); a prompt that starts with a space is always text.

No Textual here: the rules are tested on their own; `acp_tui.ui.slash_actions` runs them.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CLIENT_COMMANDS",
    "ClientCommand",
    "Parsed",
    "client_command",
    "commands_not_kept",
    "parse_prompt",
]


@dataclass(frozen=True, slots=True)
class ClientCommand:
    """One of acp-tui's commands: its name, what it does, and the hint of its argument."""

    name: str
    description: str
    hint: str | None = None


CLIENT_COMMANDS: tuple[ClientCommand, ...] = (
    ClientCommand("new", "New session in a new tab: its agent, then its roots (Ctrl+N)"),
    ClientCommand("clear", "Start afresh: a new session in a new tab, this one kept"),
    ClientCommand("resume", "Resume or replay a session, from the session browser (Ctrl+B)"),
    ClientCommand("fork", "Fork this session into a new tab"),
    ClientCommand("rename", "Title this session here (alone: the agent's title again)", "title"),
    ClientCommand("model", "Choose the model", "model"),
    ClientCommand("mode", "Choose the session mode", "mode"),
    ClientCommand("export", "Save the conversation as Markdown (Ctrl+S)"),
    ClientCommand("theme", "Choose the colour theme", "theme"),
    ClientCommand("reload", "Read the config file again and say what changed"),
    ClientCommand("help", "The commands: the agent's and acp-tui's"),
    ClientCommand("quit", "Quit acp-tui (Ctrl+Q)"),
)
"""acp-tui's own commands, in the order they are listed."""

SHELL_HELP = "!COMMAND runs COMMAND in the session's folder; its output goes with your next message"

_NAMED = re.compile(r"(/{1,2})([^\s/]\S*)(?:\s+(.*))?", re.DOTALL)


def client_command(name: str) -> ClientCommand | None:
    return next((command for command in CLIENT_COMMANDS if command.name == name), None)


@dataclass(frozen=True, slots=True)
class Parsed:
    """What a prompt is: ``text`` for the agent (its commands included), one of acp-tui's
    commands (``client``, with its ``argument``), a ``shell`` command, or ``unknown``: a
    ``//name`` acp-tui does not have."""

    kind: Literal["text", "client", "shell", "unknown"]
    name: str = ""
    argument: str = ""


TEXT = Parsed("text")


def parse_prompt(text: str, agent_commands: Collection[str]) -> Parsed:
    """Read ``text`` as sent, given the names of the agent's commands."""
    if text.startswith("!"):
        return Parsed("shell", argument=text[1:].strip())
    match = _NAMED.fullmatch(text.rstrip())
    if match is None:
        return TEXT
    slashes, name, argument = match.group(1), match.group(2), (match.group(3) or "").strip()
    ours = client_command(name) is not None
    if slashes == "//":
        return Parsed("client", name, argument) if ours else Parsed("unknown", name, argument)
    if name in agent_commands or not ours:
        return TEXT
    return Parsed("client", name, argument)


def invocation(name: str, agent_commands: Collection[str]) -> str:
    """How acp-tui's command ``name`` is typed: ``/name``, or ``//name`` when the agent has a
    command of that name."""
    return f"//{name}" if name in agent_commands else f"/{name}"


def commands_not_kept(count: int) -> str:
    """What ends a list of the agent's commands when it sent ``count`` more than are kept
    (`acp_tui.protocol.held`)."""
    what = "1 more command" if count == 1 else f"{count:,} more commands"
    return f"… {what} from the agent (not kept)"
