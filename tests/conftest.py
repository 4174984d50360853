"""Shared fixtures: every test runs with its own ACP_TUI_HOME, never the user's real files."""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import textual._wait
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation
from textual.pilot import Pilot

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.workspace.agent_runtime import Connect
from acp_tui.commands import all_agents, sessions
from acp_tui.config.paths import HOME_ENV, Paths
from tests import in_process
from tests.in_process import REAL_AGENT, InProcessConnect

REPO = Path(__file__).resolve().parent.parent

# Python's bytecode cache for this run and every process it starts, whatever the machine says
# (PYTHONDONTWRITEBYTECODE): without it each of the workers compiled acp-tui and rewrote the
# test modules' asserts afresh (14 s of CPU each), and each agent or app process a test starts
# compiled what it imports. The caches are `__pycache__` folders, ignored by git.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def _share_parsed_css() -> None:
    """Parse each piece of CSS once per test process, not once per app.

    Textual keeps a parse cache per `Stylesheet`, and every app has its own: each of the
    suite's thousand apps parsed the same CSS again (a tenth of an app test's start). The
    shared cache is keyed as Textual's is, plus the variables (the theme) the parse used; the
    parsed rules are only read, as Textual's own cache already assumes.
    """
    parsed: dict[tuple[object, ...], list[RuleSet]] = {}
    themes: dict[tuple[tuple[str, str], ...], int] = {}
    parse = Stylesheet._parse_rules

    def theme_of(self: Stylesheet) -> int:
        """A small number for the variables ``self`` parses with, worked out once per set of
        variables: `Stylesheet.parse` reads every source again each time a widget brings new
        CSS, and sorting and hashing the hundred-odd variables for each source cost a tenth
        of an app's start."""
        variables = self._variables
        known: tuple[dict[str, str], int] | None = getattr(self, "_shared_theme", None)
        if known is not None and known[0] is variables:
            return known[1]
        number = themes.setdefault(tuple(sorted(variables.items())), len(themes))
        self._shared_theme = (variables, number)  # type: ignore[attr-defined]
        return number

    def shared(
        self: Stylesheet,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, theme_of(self))
        rules = parsed.get(key)
        if rules is None:
            rules = parsed[key] = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    Stylesheet._parse_rules = shared  # type: ignore[method-assign]


_share_parsed_css()


def _shorter_idle_waits() -> None:
    """Let Pilot find the app idle in 5 ms slices, not Textual's 20 ms.

    Each key Pilot presses, and each click, hover and pause, waits until the process has
    spent under a twentieth of a slice's time working, a slice at a time: a key costs at least
    two slices, the one it was handled in and a quiet one. With 20-ms slices that waiting was
    383 s of the 637 s the app and snapshot tests took (9,851 waits, 39 ms each). The rule
    (a slice with under 5% of it working) is Textual's; only the slice is shorter.
    """
    textual._wait.SLEEP_GRANULARITY = 0.005
    textual._wait.SLEEP_IDLE = textual._wait.SLEEP_GRANULARITY / 20


def _press_then_draw() -> None:
    """Make `Pilot.press` end as `Pilot.pause` and every click do: with the screen laid out
    and drawn, and what waited for that run.

    A widget's change asks the screen for an update, which Textual's update timer makes up to
    a sixtieth of a second later, while the process is idle. Twenty-ms idle slices nearly
    always outlasted it; five-ms ones return before it, and a test that pressed `/` found the
    completion list open and not laid out yet (region height 0).
    """
    press = Pilot.press

    async def press_and_draw(self: Pilot[Any], *keys: str) -> None:
        await press(self, *keys)
        try:
            screen = self.app.screen
        except Exception:  # no screen any more: the keys ended the app
            return
        screen._on_timer_update()
        await self._wait_for_screen()

    Pilot.press = press_and_draw  # type: ignore[method-assign]


_shorter_idle_waits()
_press_then_draw()
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def acp_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Paths:
    """Point ACP_TUI_HOME at a temp dir so no test touches the real config or home."""
    home = tmp_path / "acp-home"
    monkeypatch.setenv(HOME_ENV, str(home))
    return Paths.under(home)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Two workers per core for ``-n auto``: most tests wait (on an agent, a terminal, a timer)
    longer than they compute, and one worker per core left the cores half idle (the whole suite
    on 2 cores: 797 s with 2 workers, 577 s with 4, no failure either way).

    Three per core gains little and is not safe on a loaded machine. Quiet, runs of 4 and 6
    workers one after the other, in both orders (a9b4067, 67e8aec), took 415 and 408 s, then
    393 s (6) and 416 s (4): 2-5%, not the 17% of single runs at b3d64fd (440 and 366 s),
    which the machine's speed had made. Loaded (the suite beside another full suite), two
    suites of 6 passed at a9b4067 (591, 557 s); at bf5c880 (881, 925 s) both failed the test
    that streams ten thousand updates while keys are typed, on its 90-s deadline, and one also
    a terminal test that waits 30 s for the first-run offer. Two suites of 8 (764, 734 s)
    failed three tests on their deadlines. Two suites of 4 had passed six times."""
    return 2 * (os.cpu_count() or 1)


SLOW_FIRST = ("tests/pty/", "tests/browser/", "tests/serve/", "tests/interop/")
"""Folders whose tests take seconds each (a terminal, a browser, a server, a real agent)."""


ONE_AT_A_TIME = "tests/snapshots/"
"""Each snapshot module draws its screens in one fixed folder (the screens show its path), and
locks it for the length of a test: two tests of one module never run at once."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the long tests first: the workers then end together on short ones, instead of one
    worker finishing a 60-second test while the others wait idle. The order within each group
    is kept, and every worker computes the same order (xdist checks it).

    The snapshot tests are spread among the app tests (`spread_out`): one after another, the
    workers queued on each module's folder lock, and the cores idled for half a minute."""

    def rank(item: pytest.Item) -> int:
        path = item.nodeid
        if path.startswith(SLOW_FIRST):
            return 0
        if item.get_closest_marker(REAL_AGENT) is not None:
            return 1
        if path.startswith(("tests/app/", ONE_AT_A_TIME)):
            return 2
        return 3

    items.sort(key=rank)
    middle = [i for i, item in enumerate(items) if rank(item) == 2]
    if middle:
        items[middle[0] : middle[-1] + 1] = spread_out(items[middle[0] : middle[-1] + 1])


def spread_out(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with each snapshot module's tests spaced evenly among the others (the modules
    staggered), so that two tests waiting on one folder lock seldom run at once."""
    others = [item for item in items if not item.nodeid.startswith(ONE_AT_A_TIME)]
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        if item.nodeid.startswith(ONE_AT_A_TIME):
            modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    placed = [(k / max(1, len(others)), item.nodeid, item) for k, item in enumerate(others)]
    for m, tests in enumerate(modules.values()):
        stagger = (m + 1) / (len(modules) + 1)
        placed += [((j + stagger) / len(tests), item.nodeid, item) for j, item in enumerate(tests)]
    placed.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in placed]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--real-agents",
        action="store_true",
        help="run the demo agent as a real process in every test (as tests marked real_agent do)",
    )


@pytest.fixture(autouse=True)
def agent_connect(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Connect:
    """How this test's Workspaces, apps and clients reach the demo agent: in the test's own
    event loop (see ``tests/in_process.py``), or as a real process for a test marked
    ``real_agent`` (and for every test with ``--real-agents``)."""
    real = request.config.getoption("--real-agents") or request.node.get_closest_marker(REAL_AGENT)
    chosen: Connect = connect if real else InProcessConnect()
    monkeypatch.setattr(in_process, "current", chosen)
    for command in (all_agents, sessions):  # the headless commands' Workspaces
        monkeypatch.setattr(command, "connect", chosen)
    return chosen


@pytest.fixture
def demo_agent_argv(tmp_path: Path) -> list[str]:
    """The command line of the bundled demo agent with its own data dir."""
    return [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(tmp_path / "demo-data")]


@pytest.fixture
def local_zone(request: pytest.FixtureRequest) -> Iterator[str]:
    """This process's local time zone set to the IANA name ``request.param`` (default UTC),
    and inherited by the subprocesses the test starts; restored afterwards."""
    if not hasattr(time, "tzset"):
        pytest.skip("setting the local time zone needs time.tzset (Unix)")
    zone = str(getattr(request, "param", "UTC"))
    before = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield zone
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()


_LOOPBACK = ("127.0.0.1", "::1", "localhost")


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse, in this process, any name lookup but loopback: tests never touch the network.

    The registry's default URL is the real one; a test that reached for it would otherwise try
    the network and pass or fail depending on the machine.
    """
    real = socket.getaddrinfo

    def loopback_only(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and name not in _LOOPBACK:
            raise socket.gaierror(socket.EAI_NONAME, f"tests may not look up {name!r}")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", loopback_only)
