"""Provides the demo agent's command line: its parser, and the options a parsed one gives.

Shared by ``python -m acp_tui.demo_agent`` and by the agent run inside a test's event loop
(``acp_tui.demo_agent.in_process``), so that both take the same flags.
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from acp_tui.config.paths import get_paths
from acp_tui.demo_agent.hostile import HOSTILE_TEXTS
from acp_tui.demo_agent.options import (
    ALL_CAPABILITIES,
    AUTH_STYLES,
    FAULT_HELP,
    FAULTS,
    MCP_TRANSPORTS,
    AgentOptions,
)
from acp_tui.demo_agent.script import KEYWORDS_HELP


def _capabilities(value: str) -> frozenset[str]:
    names = frozenset(n.strip() for n in value.split(",") if n.strip())
    unknown = sorted(names - set(ALL_CAPABILITIES))
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown capabilities {', '.join(unknown)}; choose from {', '.join(ALL_CAPABILITIES)}"
        )
    return names


def _transports(value: str) -> frozenset[str]:
    names = frozenset(n.strip() for n in value.split(",") if n.strip())
    unknown = sorted(names - set(MCP_TRANSPORTS))
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown MCP transports {', '.join(unknown)}; choose from {', '.join(MCP_TRANSPORTS)}"
        )
    return names


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _non_negative(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return number


def faults_help() -> str:
    """The ``--fault`` names and what each does, laid out like the keywords."""
    lines = ["faults (--fault FAULT):"]
    for name, what in FAULT_HELP.items():
        wrapped = textwrap.wrap(what, 72)
        lines.append(f"  {name:<22}{wrapped[0]}")
        lines.extend(f"  {'':<22}{more}" for more in wrapped[1:])
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m acp_tui.demo_agent",
        description="The acp-tui demo agent: an offline, deterministic ACP v1 agent speaking\n"
        "JSON-RPC over stdin/stdout (logs go to stderr). It keeps its sessions on disk.",
        epilog=f"{KEYWORDS_HELP}\n\n{faults_help()}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="where sessions are stored (default: the demo-agent directory of acp-tui's data dir)",
    )
    parser.add_argument(
        "--page-size", type=_positive, default=50, help="sessions per session/list page"
    )
    parser.add_argument(
        "--capabilities",
        type=_capabilities,
        default=frozenset(ALL_CAPABILITIES),
        help="comma-separated session capabilities to advertise and serve, from "
        f"{','.join(ALL_CAPABILITIES)} (default: all; '' for none)",
    )
    parser.add_argument(
        "--require-auth",
        action="store_true",
        help="advertise the demo-login auth method; session methods fail with -32000 until "
        "authenticate succeeds",
    )
    parser.add_argument(
        "--auth-elicit",
        action="store_true",
        help="with --require-auth: ask the user for an account name (an elicitation tied to "
        "the authenticate request, before any session) before logging in",
    )
    parser.add_argument(
        "--login",
        action="store_true",
        help="run the interactive terminal login (what a client's terminal auth method runs) "
        "and exit: answer 'yes' to store a demo credential in the data dir",
    )
    parser.add_argument(
        "--login-seconds",
        type=_non_negative,
        default=0,
        metavar="N",
        help="with --login: first print a line a second for N seconds, as a login that waits "
        "for a browser does",
    )
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        default=1,
        help="the highest ACP version to speak: with 2, a client offering 2 gets the v2 draft "
        "dialect (clients offering 1 still get v1); default: 1",
    )
    parser.add_argument(
        "--auth-on",
        type=lambda text: frozenset(m.strip() for m in text.split(",") if m.strip()),
        metavar="METHODS",
        help="with --require-auth: only these methods (comma-separated, e.g. session/prompt) "
        "answer -32000 until logged in (default: every session method)",
    )
    parser.add_argument(
        "--auth-style",
        choices=AUTH_STYLES,
        default="standard",
        help="with --require-auth: offer the login methods in authMethods (standard), the "
        "terminal one only in _meta['terminal-auth'] (meta), or only in the -32000 error's "
        "data (error-data)",
    )
    parser.add_argument(
        "--auth-env",
        metavar="NAME",
        help="with --require-auth: also offer an env_var login (demo-api-key) that succeeds "
        "when the agent was started with the environment variable NAME set",
    )
    parser.add_argument(
        "--fault",
        choices=FAULTS,
        action="append",
        default=[],
        metavar="FAULT",
        help="misbehave on purpose (faults below; repeat it for several)",
    )
    parser.add_argument(
        "--hostile",
        choices=sorted(HOSTILE_TEXTS),
        help="replace every string a client shows (titles, names, descriptions, messages, "
        "errors...) with a hostile one: markup with actions, terminal escapes, bidi controls... "
        "(for testing that a client shows them literally)",
    )
    parser.add_argument(
        "--mcp",
        type=_transports,
        default=frozenset(),
        metavar="TRANSPORTS",
        help="comma-separated MCP transports to accept besides stdio, from "
        f"{','.join(MCP_TRANSPORTS)} (v2: http only); servers of other transports are refused",
    )
    parser.add_argument(
        "--image",
        action="store_true",
        help="advertise promptCapabilities.image and take image blocks in prompts",
    )
    parser.add_argument(
        "--delay-ms", type=_non_negative, default=0, help="sleep this long between chunks"
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="log what it does to stderr (default: problems only)",
    )
    return parser


def agent_options(args: argparse.Namespace, data_dir: Path) -> AgentOptions:
    """What the parsed command line asks of the agent (``data_dir`` resolved)."""
    return AgentOptions(
        data_dir=data_dir,
        page_size=args.page_size,
        capabilities=args.capabilities,
        require_auth=args.require_auth,
        auth_elicit=args.auth_elicit,
        auth_on=args.auth_on,
        auth_style=args.auth_style,
        auth_env=args.auth_env,
        faults=frozenset(args.fault),
        delay_ms=args.delay_ms,
        protocol=args.protocol,
        hostile=HOSTILE_TEXTS[args.hostile] if args.hostile else None,
        mcp_transports=args.mcp,
        image=args.image,
    )


def data_dir_of(args: argparse.Namespace) -> Path:
    """Where the agent keeps its sessions: ``--data-dir``, else acp-tui's demo-agent dir."""
    return Path(args.data_dir or get_paths().demo_agent_dir).expanduser().absolute()
