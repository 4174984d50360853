"""The README tells the truth: its commands, keys, config keys, theme example and screenshots exist.

The Quick start block is also what `.ci/run` relies on, so its two commands are pinned here.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import json
import re
import shlex
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import SUBCOMMANDS
from acp_tui.config.settings import AgentConfig, McpServerConfig, Settings
from acp_tui.config.strict import validate
from tests.conftest import REPO

README = REPO / "README.md"
TEXT = README.read_text(encoding="utf-8")

QUICK_START = [
    "pip install -e . && acp-tui",
    'pip install -e ".[test]" && pytest',
]


def sections() -> dict[str, str]:
    """The README's `## ` sections by heading, in order (fenced code is not mistaken for one)."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in TEXT.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            current = found.setdefault(line[3:].strip(), [])
            continue
        if current is not None:
            current.append(line)
    return {name: "\n".join(lines) for name, lines in found.items()}


def code_blocks(text: str) -> list[tuple[str, str]]:
    """Every fenced block in ``text`` as (language, content)."""
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def section(name: str) -> str:
    all_sections = sections()
    assert name in all_sections, f"the README has no '## {name}' section"
    return all_sections[name]


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the Markdown tables in ``text``, as stripped cells."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


# -- quick start -------------------------------------------------------------------------------


def test_quick_start_is_the_first_section_after_the_title_and_one_sentence() -> None:
    lines = TEXT.splitlines()
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    assert lines[0].startswith("# ")
    assert lines[headings[0]] == "## Quick start"
    intro = [line for line in lines[1 : headings[0]] if line.strip()]
    assert len(intro) == 1, "only one sentence between the title and the Quick start"
    assert intro[0].rstrip().endswith(".")
    assert intro[0].count(". ") == 0


def test_quick_start_is_exactly_the_two_commands() -> None:
    blocks = code_blocks(section("Quick start"))
    assert len(blocks) == 1
    assert blocks[0][1].splitlines() == QUICK_START


# -- screenshots -------------------------------------------------------------------------------

SCREENSHOT = re.compile(r"!\[[^\]]*\]\((screenshots/[^)\s]+)\)")


def test_every_screenshot_in_the_readme_exists() -> None:
    referenced = SCREENSHOT.findall(TEXT)
    assert referenced
    missing = [path for path in referenced if not (REPO / path).is_file()]
    assert missing == []


def test_the_readme_shows_the_chat_the_dialogs_the_browser_and_every_packaged_theme() -> None:
    from acp_tui.ui.themes import load_themes, packaged_themes_dir

    directory = packaged_themes_dir()
    assert directory is not None
    themes, problems = load_themes([directory])
    assert problems == []
    referenced = set(SCREENSHOT.findall(TEXT))
    expected = {
        f"screenshots/{name}.svg"
        for name in [
            "chat-streaming",
            "chat-diff",
            "chat-permission",
            "browser",
            "roots-dialog",
            "add-agent-dialog",
        ]
    } | {f"screenshots/theme-{theme.name}.svg" for theme in themes}
    assert expected <= referenced


# -- commands ----------------------------------------------------------------------------------


def command_lines() -> list[str]:
    """Every `acp-tui ...` command line in the README's code blocks and inline code."""
    found = []
    for _, block in code_blocks(TEXT):
        found += [line.split("#", 1)[0] for line in block.splitlines()]
    found += re.findall(r"`(acp-tui[^`]*)`", TEXT)
    return [line.strip() for line in found if line.strip().startswith("acp-tui")]


@functools.cache
def help_text(*words: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", *words, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert result.returncode == 0, f"acp-tui {' '.join(words)} --help: {result.stderr}"
    return result.stdout


def parse_command(line: str) -> tuple[tuple[str, ...], list[str]]:
    """The subcommand words of an `acp-tui ...` line and the options given to acp-tui itself."""
    line = line.replace("| -- COMMAND ARGS...", "")  # the usage line's alternative
    words = shlex.split(line.replace("[", " ").replace("]", " "))[1:]
    if "--" in words:
        words = words[: words.index("--")]  # the rest is the agent's command
    command: tuple[str, ...] = ()
    if words and re.fullmatch(r"[a-z]+", words[0]):
        assert words[0] in SUBCOMMANDS, f"{line!r}: there is no subcommand {words[0]!r}"
        command = (words[0],)
        if len(words) > 1 and re.fullmatch(r"[a-z]+", words[1]):
            command += (words[1],)
    options = [w.split("=", 1)[0] for w in words if re.fullmatch(r"--?[a-zA-Z][\w-]*(=.*)?", w)]
    return command, options


def test_the_readme_mentions_commands() -> None:
    lines = command_lines()
    assert any(line.startswith("acp-tui sessions prune") for line in lines)
    assert any(line.startswith("acp-tui agents add") for line in lines)
    assert any(line.startswith("acp-tui config path") for line in lines)
    assert any(line.startswith("acp-tui mcp add") for line in lines)


@pytest.mark.parametrize("line", sorted(set(command_lines())))
def test_every_acp_tui_command_and_option_in_the_readme_exists(line: str) -> None:
    command, options = parse_command(line)
    text = help_text(*command)
    for option in options:
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text), (
            f"{line!r}: 'acp-tui {' '.join(command)}' has no option {option}"
        )


def test_an_invented_subcommand_is_caught() -> None:
    with pytest.raises(AssertionError, match="no subcommand"):
        parse_command("acp-tui sesions list")


# -- key bindings ------------------------------------------------------------------------------


def binding_owners() -> dict[str, list[type]]:
    from acp_tui.ui.agent_picker import AgentPicker
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.browser.panel import SessionBrowser
    from acp_tui.ui.browser.rows import SessionRows
    from acp_tui.ui.chat import ChatScreen
    from acp_tui.ui.dialogs.add_agent import AddAgentDialog
    from acp_tui.ui.dialogs.confirm import ConfirmDialog
    from acp_tui.ui.dialogs.elicitation_form import ElicitationFormDialog
    from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlDialog
    from acp_tui.ui.dialogs.permission import PermissionDialog
    from acp_tui.ui.dialogs.roots import RootsDialog
    from acp_tui.ui.dialogs.terminal import TerminalDialog
    from acp_tui.ui.library.screen import LibraryScreen
    from acp_tui.ui.transcript.view import TranscriptView
    from acp_tui.ui.widgets.chat_pane import ChatPane
    from acp_tui.ui.widgets.context_bar import ContextBar
    from acp_tui.ui.widgets.find_bar import FindBar
    from acp_tui.ui.widgets.prompt_input import PromptInput
    from acp_tui.ui.widgets.queue_view import QueueView
    from acp_tui.ui.widgets.root_list import RootList
    from acp_tui.ui.widgets.root_tree import PathInput, RootTree
    from acp_tui.ui.wire_inspector import WireInspector

    return {
        "Anywhere": [AcpApp],
        "Chat": [ChatScreen, ChatPane],
        "Prompt": [PromptInput, ChatPane],
        "Queued messages": [QueueView],
        "Attached output": [ContextBar],
        "Transcript": [TranscriptView],
        "Find bar": [FindBar],
        "Session browser": [SessionBrowser, SessionRows],
        "Permission dialog": [PermissionDialog],
        "Form dialog": [ElicitationFormDialog],
        "URL dialog": [ElicitationUrlDialog],
        "Roots dialog": [RootsDialog],
        "Command dialog": [TerminalDialog],
        "Roots dialog, folder field": [PathInput],
        "Roots dialog, tree": [RootTree],
        "Roots dialog, list": [RootList],
        "Roots dialog, unsupported": [RootsDialog],
        "Add-agent dialog": [AddAgentDialog],
        "Confirmation": [ConfirmDialog],
        "Agent picker": [AgentPicker],
        "Wire inspector": [WireInspector],
        "Every agent": [LibraryScreen],
    }


def own_keys(classes: list[type]) -> set[str]:
    """The keys bound by acp-tui's own BINDINGS on these classes (Textual's base classes aside)."""
    keys: set[str] = set()
    for cls in classes:
        for klass in cls.__mro__:
            if not klass.__module__.startswith("acp_tui."):
                continue
            for binding in vars(klass).get("BINDINGS", []):
                key = binding.key if hasattr(binding, "key") else binding[0]
                keys.update(part.strip() for part in key.split(","))
    return keys


KEY_NAMES = {"esc": "escape", "/": "slash", "↑": "up", "↓": "down"}


def textual_key(shown: str) -> str:
    """`Ctrl+Up` -> `ctrl+up`, `Esc` -> `escape`, `/` -> `slash`; a lone letter keeps its case."""
    *modifiers, key = shown.split("+")
    lone_letter = len(key) == 1 and not modifiers
    key = KEY_NAMES.get(key.lower(), key if lone_letter else key.lower())
    return "+".join([*(m.lower() for m in modifiers), key])


def test_every_key_binding_in_the_readme_exists_in_the_code() -> None:
    owners = binding_owners()
    rows = table_rows(section("Key bindings"))
    assert len(rows) > 20
    for where, keys, _ in rows[1:]:  # the first row is the header
        assert where in owners, f"unknown place in the key table: {where!r}"
        bound = own_keys(owners[where])
        for shown in re.findall(r"`([^`]+)`", keys):
            assert textual_key(shown) in bound, f"{where}: {shown} is not bound in the code"


def test_the_key_check_would_catch_a_key_that_is_not_bound() -> None:
    assert textual_key("Ctrl+Q") in own_keys(binding_owners()["Anywhere"])
    assert textual_key("Ctrl+Z") not in own_keys(binding_owners()["Anywhere"])
    assert textual_key("/") in own_keys(binding_owners()["Session browser"])


# -- configuration -----------------------------------------------------------------------------


def config_rows() -> dict[str, list[str]]:
    rows = table_rows(section("Configuration"))
    return {row[0].strip("`"): row for row in rows[1:]}


def shown_default(value: Any) -> set[str]:
    if value is None:
        return {"none"}
    if value == {}:
        return {"`{}`", "empty"}
    return {f"`{json.dumps(value)}`"}


REQUIRED = object()


def documented_fields(cls: type) -> dict[str, tuple[str | None, Any]]:
    """A dataclass's fields: the docstring under each (None if none) and its default value."""
    [node] = ast.parse(textwrap.dedent(inspect.getsource(cls))).body
    assert isinstance(node, ast.ClassDef)
    docs: dict[str, str] = {}
    for stmt, after in zip(node.body, node.body[1:], strict=False):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[stmt.target.id] = after.value.value
    fields: dict[str, tuple[str | None, Any]] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = REQUIRED
        fields[f.name] = (docs.get(f.name), default)
    return fields


def test_the_config_reference_lists_every_field_with_its_type_default_and_docstring() -> None:
    rows = config_rows()
    fields = documented_fields(Settings)
    fields |= {f"agents.NAME.{k}": info for k, info in documented_fields(AgentConfig).items()}
    fields |= {
        f"mcp_servers.NAME.{k}": info for k, info in documented_fields(McpServerConfig).items()
    }
    assert set(rows) == set(fields)
    for key, (doc, value) in fields.items():
        _, type_, default, meaning = rows[key]
        assert type_
        assert doc is not None, key
        assert " ".join(doc.split()) in meaning, key
        if value is REQUIRED:
            assert default == "required", key
        elif value is None and default.startswith("the "):
            continue  # a default computed from elsewhere, e.g. the table's NAME
        else:
            assert default in shown_default(value), key


def test_every_config_example_in_the_readme_is_valid() -> None:
    examples = [
        block for lang, block in code_blocks(TEXT) if lang == "toml" and "[agents." in block
    ]
    assert len(examples) >= 6
    for block in examples:
        validate(Settings, tomllib.loads(block))


# -- themes ------------------------------------------------------------------------------------


def test_the_user_theme_example_validates_with_the_theme_loader(tmp_path: Path) -> None:
    from acp_tui.ui.themes import load_theme_file

    examples = [block for lang, block in code_blocks(section("Themes")) if lang == "toml"]
    assert len(examples) == 1
    path = tmp_path / "my-theme.toml"
    path.write_text(examples[0], encoding="utf-8")
    theme = load_theme_file(path)
    assert theme.name == tomllib.loads(examples[0])["name"]


def test_the_packaged_themes_named_in_the_readme_are_the_packaged_ones() -> None:
    from acp_tui.ui.themes import load_themes, packaged_themes_dir

    directory = packaged_themes_dir()
    assert directory is not None
    themes, _ = load_themes([directory])
    named = set(re.findall(r"`(acp-[a-z]+)`", section("Themes")))
    assert named == {theme.name for theme in themes}
