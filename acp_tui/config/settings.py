"""Provides the user's settings: dataclasses, a forgiving TOML loader, a comment-keeping saver."""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from acp_tui.config.atomic import write_atomic
from acp_tui.config.strict import Invalid, validate

if TYPE_CHECKING:
    import tomllib

DEFAULT_REGISTRY_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
"""The official ACP agent registry (github.com/agentclientprotocol/registry, its README)."""

_LOOPBACK_HOSTS = ("localhost", "::1")


def is_loopback_host(host: str | None) -> bool:
    """Whether `host` names this machine: localhost, 127.0.0.0/8 or ::1."""
    if not host:
        return False
    host = host.lower()
    return host in _LOOPBACK_HOSTS or re.fullmatch(r"127(\.\d{1,3}){3}", host) is not None


def check_registry_url(url: str) -> None:
    """Accept https://, file:// and http:// to this machine only; raise ValueError otherwise.

    The registry says which programs acp-tui will offer to run, so it must not come over plain
    HTTP from elsewhere, where anyone on the way could change it.
    """
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "file" and parts.path:
        return
    if parts.scheme == "http" and is_loopback_host(parts.hostname):
        return
    raise ValueError(f"expected an https:// or file:// URL, or http:// to localhost (got {url!r})")


__all__ = [
    "DEFAULT_REGISTRY_URL",
    "AgentConfig",
    "LoadedSettings",
    "McpServerConfig",
    "Settings",
    "check_http_url",
    "holds_secrets",
    "load_settings",
    "save_settings",
    "settings_to_toml",
    "without_secrets",
]

# The file is validated strictly (see `acp_tui.config.strict`): `show_thoughts = "yes"` is a
# mistake to report, not a string to coerce, and unknown keys are errors so that typos do not
# pass silently. The models are dataclasses, not pydantic models, so that loading the settings
# does not import pydantic before the app's first frame.


@dataclass(frozen=True, kw_only=True)
class AgentConfig:
    """How to start one agent, as a `[agents.NAME]` table in the config file."""

    command: str
    """The program to run, found on PATH or given as a path (`~` is expanded)."""

    args: list[str] = field(default_factory=list)
    """Arguments passed to the program, one list item per argument (no shell splitting)."""

    env: dict[str, str] = field(default_factory=dict)
    """Environment variables set for the agent on top of acp-tui's own environment."""

    protocol: Literal[1, 2] = 1
    """The ACP protocol version to speak: 1 (stable) or 2 (draft, opt-in)."""

    additional_directories: list[str] = field(default_factory=list)
    """Extra directories the agent may use besides the session's working directory.

    Relative paths are taken relative to that working directory."""

    title: str | None = None
    """The name shown in the UI (status line, tabs) instead of the name the agent gives itself;
    without it, the agent's own name, or the table's NAME until the agent has said it."""

    registry_id: str | None = None
    """The id of the ACP registry entry the agent was added from."""

    registry_version: str | None = None
    """The version of that registry entry; upgrading the agent moves it forward."""

    registry_distribution: Literal["npx", "uvx", "binary"] | None = None
    """How that registry entry is run: through `npx`, `uvx` or a downloaded binary."""

    mcp_servers: list[str] = field(default_factory=list)
    """The MCP servers (names of `[mcp_servers.NAME]` tables) given to this agent's sessions,
    besides those marked `all_agents`."""


def check_timeout(seconds: float) -> None:
    """Accept a wait of at least one second (and less than a day); raise ValueError otherwise."""
    if not 1 <= seconds <= 86_400:
        raise ValueError(f"expected a number of seconds from 1 to 86400 (got {seconds:g})")


def check_http_url(url: str) -> None:
    """Accept an http:// or https:// URL with a host; raise ValueError otherwise."""
    from urllib.parse import urlsplit

    from acp_tui.config.secrets import mask_url

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"expected an http:// or https:// URL (got {mask_url(url)!r})")


@dataclass(frozen=True, kw_only=True)
class McpServerConfig:
    """One MCP server acp-tui passes to agents, as a `[mcp_servers.NAME]` table."""

    type: Literal["stdio", "http", "sse"] | None = None
    """How the agent reaches the server: `"stdio"` (the agent starts `command`), `"http"` or
    `"sse"` (the agent connects to `url`); without it, `"http"` when there is a `url`, else
    `"stdio"`."""

    command: str | None = None
    """stdio: the server's program, found on PATH or given as a path (`~` is expanded); sent
    to the agent as an absolute path."""

    args: list[str] = field(default_factory=list)
    """stdio: arguments passed to the program, one list item per argument."""

    env: dict[str, str] = field(default_factory=dict)
    """stdio: environment variables for the server (never logged or shown)."""

    url: str | None = field(default=None, metadata={"check": check_http_url})
    """http and sse: the server's `http://` or `https://` URL."""

    headers: dict[str, str] = field(default_factory=dict)
    """http and sse: HTTP headers sent to the server (never logged or shown)."""

    all_agents: bool = False
    """Give this server to every agent's sessions, not only to the agents that name it."""

    @property
    def transport(self) -> Literal["stdio", "http", "sse"]:
        """The transport in effect: ``type``, else http with a url, else stdio."""
        if self.type is not None:
            return self.type
        return "http" if self.url is not None else "stdio"

    def check_table(self) -> list[tuple[tuple[str, ...], str]]:
        """What does not fit the transport: a command without a URL, or the reverse."""
        if self.transport == "stdio":
            if self.command is None:
                return [(("command",), "required key is missing (a stdio server needs a command)")]
            if self.url is not None or self.headers:
                return [(("url",), "a stdio server takes command, args and env, not url/headers")]
            return []
        if self.url is None:
            return [(("url",), f"required key is missing (an {self.transport} server needs a url)")]
        if self.command is not None or self.args or self.env:
            return [
                (("command",), f"an {self.transport} server takes url and headers, not a command")
            ]
        return []


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Everything in `config.toml`."""

    default_agent: str | None = None
    """The agent used when none is named on the command line ("demo" is the bundled one)."""

    theme: str = "textual-dark"
    """The name of the colour theme."""

    show_thoughts: bool = True
    """Whether the agent's thinking is shown in the transcript."""

    markdown: Literal["auto", "always", "never"] = "auto"
    """How the agent's replies are shown: "auto" renders Markdown, and shows a reply with no
    Markdown in it as plain text, its line breaks kept; "always" renders every reply as
    Markdown; "never" shows every reply as plain text."""

    registry_url: str = field(default=DEFAULT_REGISTRY_URL, metadata={"check": check_registry_url})
    """Where acp-tui reads the ACP agent registry, the list of agents it can add for you."""

    terminal: Literal["ask", "allow", "deny"] = "ask"
    """Whether the agent's commands (`terminal/create`) run: "ask" asks for each command line
    not allowed yet in the session, "allow" runs them all, "deny" none."""

    terminal_env_allow: list[str] = field(default_factory=list)
    """Environment variables the agent may set for its commands even though they could run
    hidden code (`LD_PRELOAD`, `PYTHONPATH`...), which are otherwise dropped."""

    request_timeout: float = field(default=120, metadata={"check": check_timeout})
    """How many seconds acp-tui waits for the agent to answer `session/new`, `session/load`,
    `session/resume`, `session/fork`, `session/list` or `authenticate` (v2 `auth/login`) before
    giving up, from 1 to 86400; a session the agent is still replaying keeps it waiting."""

    agents: dict[str, AgentConfig] = field(default_factory=dict)
    """The configured agents, keyed by the name used with `acp-tui -a NAME`."""

    mcp_servers: dict[str, McpServerConfig] = field(default_factory=dict)
    """MCP servers passed to agents when a session starts, keyed by name (see `acp-tui mcp`)."""

    def check_table(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Every MCP server an agent names must have its `[mcp_servers.NAME]` table."""
        problems: list[tuple[tuple[str | int, ...], str]] = []
        for name, agent in self.agents.items():
            for index, server in enumerate(agent.mcp_servers):
                if server not in self.mcp_servers:
                    problems.append(
                        (
                            ("agents", name, "mcp_servers", index),
                            f"no [mcp_servers.{server}] table for {server!r}",
                        )
                    )
        return problems


@dataclass(frozen=True)
class LoadedSettings:
    """The settings in effect, and what was wrong with the file if anything was."""

    settings: Settings
    problems: list[str] = field(default_factory=list)


def load_settings(path: Path) -> LoadedSettings:
    """Read settings from `path`; never raise and never write to the file.

    A missing file gives the defaults. An unreadable file, bad TOML, wrong types or unknown keys
    give the defaults (the whole file is ignored) plus one message per problem, each naming the
    file.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return LoadedSettings(Settings())
    except UnicodeDecodeError as exc:
        return _defaults(f"{path}: not UTF-8 text (byte {exc.start})")
    except OSError as exc:
        return _defaults(f"{path}: cannot read: {exc.strerror or exc}")
    import tomllib  # here: a first run, with no file, starts without the parser

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return _defaults(f"{path}: invalid TOML: {_toml_error(exc)}")
    try:
        return LoadedSettings(validate(Settings, data))
    except Invalid as exc:
        problems = [f"{path}: {_dotted(loc)}: {message}" for loc, message in exc.problems]
        return LoadedSettings(Settings(), problems)


def settings_to_toml(settings: Settings) -> str:
    """The settings as TOML text, in the same shape `load_settings` reads."""
    import tomli_w  # only for writing; reading the settings is on the way to the first frame

    return tomli_w.dumps(_to_data(settings))


HIDDEN = "(hidden)"
"""What `without_secrets` shows instead of an environment or header value."""


def without_secrets(settings: Settings) -> Settings:
    """``settings`` with every environment and header value replaced by `HIDDEN`, and the
    user info and secret query values of MCP servers' URLs masked.

    For showing the settings (`acp-tui config show`): agents' and MCP servers' env and
    headers hold API keys and tokens, and a URL may carry one (``https://user:token@host``,
    ``?token=``). The names stay, so the user sees what is set.
    """
    from acp_tui.config.secrets import mask_url

    def hide(values: dict[str, str]) -> dict[str, str]:
        return dict.fromkeys(values, HIDDEN)

    return replace(
        settings,
        agents={
            name: replace(agent, env=hide(agent.env)) for name, agent in settings.agents.items()
        },
        mcp_servers={
            name: replace(
                server,
                env=hide(server.env),
                headers=hide(server.headers),
                url=mask_url(server.url) if server.url is not None else None,
            )
            for name, server in settings.mcp_servers.items()
        },
    )


def holds_secrets(settings: Settings) -> bool:
    """Whether the settings hold a value that is secret (an env or header value, a URL with
    user info or a secret query value): the file is then kept readable by its owner only."""
    from acp_tui.config.secrets import url_has_secret

    if any(agent.env for agent in settings.agents.values()):
        return True
    return any(
        server.env or server.headers or (server.url is not None and url_has_secret(server.url))
        for server in settings.mcp_servers.values()
    )


PRIVATE_NOTE = (
    "{path} holds secrets (env, header or URL credentials): it is now readable by you only (0600)"
)
"""Said once, when saving makes a readable config file private."""


def save_settings(settings: Settings, path: Path) -> str | None:
    """Write `settings` to `path` atomically, keeping the file's comments and layout.

    When `path` holds TOML already, only what changed is rewritten: comments, key order and
    formatting of everything else stay as the user wrote them. The text goes to a temp file in
    the same directory, is flushed to disk, then replaces `path` in one step. If anything fails
    the old file is left as it was, the temp file is removed and the error is raised.

    The file keeps its permissions, unless it holds secrets and others could read it: it is
    then made private (0600), and the note saying so is returned (None otherwise).
    """
    text = _updated_text(path, _to_data(settings))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        readable = path.stat().st_mode & 0o077 != 0
    except OSError:
        readable = False  # a new file is private anyway
    private = readable and holds_secrets(settings)
    write_atomic(path, text.encode("utf-8"), keep_mode=not private)
    return PRIVATE_NOTE.format(path=path) if private else None


def _updated_text(path: Path, data: dict[str, Any]) -> str:
    """`data` as TOML: the text of `path` edited to hold it, or (no usable file) fresh text."""
    # Imported here: writing is rare, and reading the settings is on the way to the first frame.
    import tomli_w
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, TOMLKitError):
        return tomli_w.dumps(data)
    _merge(document, data, ())
    return tomlkit.dumps(document)


def _merge(table: MutableMapping[str, Any], data: Mapping[str, Any], path: tuple[str, ...]) -> None:
    """Make the tomlkit `table` at `path` hold `data`, touching only what changed.

    Unchanged items keep their formatting and comments, a changed value keeps its line's
    comment, and a default that the file leaves out stays out.
    """
    import tomlkit

    defaults = _defaults_at(path)
    for key in [key for key in table if key not in data]:
        del table[key]
    for key, value in data.items():
        if key not in table:
            if key in defaults and defaults[key] == value:
                continue
            if isinstance(value, dict):  # a new table: its own defaults stay out too
                table[key] = tomlkit.table()
                _merge(table[key], value, (*path, key))
            else:
                table[key] = value
            continue
        old = table[key]
        if isinstance(value, dict) and isinstance(old, MutableMapping):
            _merge(old, value, (*path, key))
        elif _plain(old) != value:
            new = tomlkit.item(value)
            trivia = getattr(old, "trivia", None)
            if trivia is not None and trivia.comment:
                new.trivia.comment_ws, new.trivia.comment = trivia.comment_ws, trivia.comment
            table[key] = new


def _defaults_at(path: tuple[str, ...]) -> dict[str, Any]:
    """The default values of the table at `path`: the top level, one `[agents.NAME]` or one
    `[mcp_servers.NAME]`."""
    if path == ():
        return asdict(Settings())
    if len(path) == 2 and path[0] == "agents":
        return asdict(AgentConfig(command=""))
    if len(path) == 2 and path[0] == "mcp_servers":
        return asdict(McpServerConfig())
    return {}


def _plain(item: object) -> object:
    """A tomlkit item's plain Python value."""
    unwrap = getattr(item, "unwrap", None)
    return unwrap() if callable(unwrap) else item


def _defaults(problem: str) -> LoadedSettings:
    return LoadedSettings(Settings(), [problem])


def _to_data(settings: Settings) -> dict[str, Any]:
    # TOML has no null: a key that is None is simply absent.
    return asdict(settings, dict_factory=lambda items: {k: v for k, v in items if v is not None})


_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def _toml_error(exc: tomllib.TOMLDecodeError) -> str:
    """The parser's message ending in "line L, column C" (3.14 adds attributes; 3.11 has text)."""
    message = str(exc)
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if line is None:
        match = _POSITION.search(message)
        if match is None:
            return message
        line, column = int(match.group(1)), int(match.group(2))
    reason = getattr(exc, "msg", None) or _POSITION.sub("", message)
    return f"line {line}, column {column}: {reason}"


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _dotted(loc: tuple[int | str, ...]) -> str:
    """A problem's location as a TOML key path: `agents."my.agent".args[0]`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        key = part if _BARE_KEY.fullmatch(part) else '"' + part.replace('"', '\\"') + '"'
        out += f".{key}" if out else key
    return out or "(top level)"
