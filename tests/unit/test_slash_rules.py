"""How a prompt is read (the agent's command, acp-tui's, a ``!`` command, or text) and how the
two kinds of commands are listed: the rules on their own, without an app."""

from __future__ import annotations

from acp_tui.protocol.updates import AvailableCommand
from acp_tui.ui.option_commands import matching
from acp_tui.ui.slash import CLIENT_COMMANDS, Parsed, invocation, parse_prompt
from acp_tui.ui.slash_actions import help_text
from acp_tui.ui.widgets.completion import CLIENT_MARK, command_choices, command_hint

AGENT = [
    AvailableCommand(name="help", description="The agent's help"),
    AvailableCommand(name="web", description="Search", input={"hint": "query"}),
]
NAMES = {command.name for command in AGENT}


def test_the_client_commands_are_the_ones_the_issue_names() -> None:
    names = {command.name for command in CLIENT_COMMANDS}
    assert names == {
        "new",
        "resume",
        "fork",
        "clear",
        "model",
        "mode",
        "export",
        "theme",
        "reload",
        "quit",
        "help",
        "rename",  # issue 25: a local title
    }


def test_ours_runs_unless_the_agent_has_a_command_of_that_name() -> None:
    assert parse_prompt("/model opus 4", NAMES) == Parsed("client", "model", "opus 4")
    assert parse_prompt("/reload\n", NAMES) == Parsed("client", "reload")
    assert parse_prompt("/help", NAMES) == Parsed("text")  # the agent's wins
    assert parse_prompt("//help", NAMES) == Parsed("client", "help")
    assert parse_prompt("//model  fast ", NAMES) == Parsed("client", "model", "fast")


def test_what_is_not_ours_goes_to_the_agent_as_typed() -> None:
    assert parse_prompt("/web cats", NAMES).kind == "text"
    assert parse_prompt("/later-announced", NAMES).kind == "text"
    assert parse_prompt(" /model", NAMES).kind == "text"  # a leading space: always text
    assert parse_prompt("see /model in the docs", NAMES).kind == "text"
    assert parse_prompt("/", NAMES).kind == "text"
    assert parse_prompt("/usr/bin/env is where", NAMES).kind == "text"
    assert parse_prompt("//nothing", NAMES) == Parsed("unknown", "nothing")


def test_a_bang_is_a_shell_command() -> None:
    assert parse_prompt("!git status", NAMES) == Parsed("shell", argument="git status")
    assert parse_prompt("!  ls -la\n", NAMES) == Parsed("shell", argument="ls -la")
    assert parse_prompt("!", NAMES) == Parsed("shell", argument="")
    assert parse_prompt(" !ls", NAMES).kind == "text"
    assert parse_prompt("wow!", NAMES).kind == "text"


def test_the_list_has_the_agents_first_then_ours_marked() -> None:
    labels = [str(choice.label) for choice in command_choices(AGENT, "")]
    assert labels[0] == "/help — The agent's help"
    assert labels[1] == "/web — Search  ‹query›"
    ours = labels[2:]
    assert len(ours) == len(CLIENT_COMMANDS)
    assert all(label.endswith(f"  {CLIENT_MARK}") for label in ours)
    assert any(label.startswith("//help — ") for label in ours)  # shadowed: offered as //
    assert any(label.startswith("/model — ") for label in ours)


def test_a_prefix_comes_first_and_double_slash_lists_only_ours() -> None:
    assert [choice.insert for choice in command_choices(AGENT, "mo")] == ["/model ", "/mode "]
    # "e" is in many names: those that start with it come first
    assert command_choices(AGENT, "e")[0].insert == "/export "
    only_ours = command_choices(AGENT, "/he")  # after //: only ours, "he" in their names
    assert [choice.insert for choice in only_ours] == ["//help ", "//theme "]
    assert all(choice.insert.startswith("//") for choice in command_choices(AGENT, "/"))


def test_the_hint_is_the_agents_or_ours_as_typed() -> None:
    assert command_hint("/web ", AGENT) == "query"
    assert command_hint("/model ", AGENT) == "model"
    assert command_hint("//theme ", AGENT) == "theme"
    assert command_hint("/help ", AGENT) is None  # the agent's help, which has no input
    assert command_hint("/model", AGENT) is None  # not before the space


def test_help_lists_both_kinds() -> None:
    text = help_text(AGENT)
    assert "The agent's:\n  /help — The agent's help\n  /web ‹query› — Search" in text
    assert "  //help — " in text
    assert "  /reload — " in text
    assert "!COMMAND" in text
    assert "none offered" in help_text([])
    # Past the cap on what one update holds, the rest is counted.
    counted = help_text(AGENT, 199_000)
    assert "  /web ‹query› — Search\n  … 199,000 more commands from the agent (not kept)" in counted
    assert invocation("help", NAMES) == "//help"
    assert invocation("new", NAMES) == "/new"


def test_a_choice_is_named_whole_first_else_by_a_part() -> None:
    choices = (("Demo fast", "demo-fast"), ("Demo smart", "demo-smart"))
    assert matching(choices, "demo-smart") == [("Demo smart", "demo-smart")]
    assert matching(choices, "DEMO FAST") == [("Demo fast", "demo-fast")]
    assert matching(choices, "sma") == [("Demo smart", "demo-smart")]
    assert matching(choices, "demo") == list(choices)
    assert matching(choices, "opus") == []
