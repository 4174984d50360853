"""The flood cases of the ``hostile`` benchmark: 10,000 messages of one kind from one prompt.

Imported by ``bench_hostile`` in each case's own process, with the app running. Figures of a
flood, besides the wall time, stall and memory every case has:

* ``cpu_s``: the app process's CPU time (every thread) from the prompt to the settled view;
* ``key_ms``: the slowest of the keys typed while the flood came in, from the key (as the
  terminal driver delivers it) to the first frame that shows it (``key_median_ms``, ``keys``:
  the median and how many). While the agent's updates come, a key is typed in the prompt every
  quarter second; during a question flood, a few keys are typed in the first dialog, which drops
  them and says so (its note is what shows them);
* ``dialogs``: how many question dialogs were shown; ``refused_ms``: for a question flood, from
  the key that refuses every question of the agent to the first frame with no dialog left (a
  version without that key answers each dialog as it comes: ``cancelled``, which on a
  permission cancels the turn).

Goals (issue 27): at most 2 s of CPU per flood, a key on screen within 200 ms.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from bench_sessions import Frames, send_key, wait
from textual.widgets import TextArea

QUESTION_FLOODS = ("permission-flood", "ask-flood", "terminal-flood")
UPDATE_FLOODS = (
    "notice-flood",
    "tool-flood",
    "plan-flood",
    "commands-flood",
    "info-flood",
    "config-flood",
    "mode-flood",
    "usage-flood",
    "unknown-flood",
    "chunk-flood",
)
FLOOD_CASES = (*UPDATE_FLOODS, *QUESTION_FLOODS)
KEY_EVERY = 0.25
"""Seconds between two keys typed during an update flood."""
DIALOG_KEYS = 3
WITHIN = 600.0


def asking_classes() -> tuple[type[Any], ...]:
    from acp_tui.ui.dialogs.elicitation_form import ElicitationFormDialog
    from acp_tui.ui.dialogs.permission import PermissionDialog
    from acp_tui.ui.dialogs.terminal import TerminalDialog

    return (PermissionDialog, ElicitationFormDialog, TerminalDialog)


def set_quiet(seconds: float) -> None:
    for kind in asking_classes():
        kind.QUIET = seconds


def question_shown(app: Any) -> Any:
    """The question dialog on top, or None."""
    screen = app.screen
    return screen if isinstance(screen, asking_classes()) else None


async def flood(app: Any, ws: Any, slot: Any, case: str, ended: Any) -> dict[str, Any]:
    """Prompt ``case`` and measure until ``ended()``; the figures above."""
    frames = Frames(app)
    keys: list[float] = []
    figures: dict[str, Any] = {}
    prompt = app.chat.current_pane.query_one(TextArea)
    set_quiet(0.8 if case in QUESTION_FLOODS else 0.0)
    cpu = time.process_time()
    ws.prompts.submit(slot, case)
    if case in QUESTION_FLOODS:
        figures.update(await questions(app, frames, keys))
    else:
        while not ended():
            await asyncio.sleep(KEY_EVERY)
            if not slot.busy:
                break
            typed = prompt.text.count("x")
            frames.arm(lambda typed=typed: prompt.text.count("x") > typed)
            started = time.perf_counter()
            send_key(app, "x")
            keys.append(await frames.shown_time(WITHIN) - started)
    await wait(ended, within=WITHIN)
    figures["cpu_s"] = round(time.process_time() - cpu, 3)
    if keys:
        figures["key_ms"] = round(max(keys) * 1000, 1)
        figures["key_median_ms"] = round(statistics.median(keys) * 1000, 1)
    figures["keys"] = len(keys)
    return figures


async def questions(app: Any, frames: Frames, keys: list[float]) -> dict[str, Any]:
    """Type a few keys in the first dialog (dropped: its note shows them), then refuse every
    question (or, without that key, answer each as it comes)."""
    await wait(lambda: question_shown(app) is not None, within=WITHIN)
    first = question_shown(app)
    for _ in range(DIALOG_KEYS):
        dropped = first.dropped
        frames.arm(lambda dropped=dropped: first.dropped > dropped)
        started = time.perf_counter()
        send_key(app, "x")
        keys.append(await frames.shown_time(WITHIN) - started)
        await asyncio.sleep(0.1)
    set_quiet(0.0)
    await wait(lambda: first.accepting, within=WITHIN)
    figures: dict[str, Any] = {"dialogs": 1}
    key = getattr(first, "REFUSE_ALL_KEY", None)
    if key is not None:
        frames.arm(lambda: question_shown(app) is None)
        started = time.perf_counter()
        send_key(app, key)
        figures["refused_ms"] = round((await frames.shown_time(WITHIN) - started) * 1000, 1)
        return figures
    shown = first
    while shown is not None:
        await wait(lambda shown=shown: shown.accepting, within=WITHIN)
        answer_cancelled(shown)
        await wait(lambda shown=shown: question_shown(app) is not shown, within=WITHIN)
        await asyncio.sleep(0)
        shown = question_shown(app)
        if shown is None:  # the next one may take a moment to be pushed
            await asyncio.sleep(0.05)
            shown = question_shown(app)
        if shown is not None:
            figures["dialogs"] += 1
    return figures


def answer_cancelled(dialog: Any) -> None:
    from acp_tui.client.session.elicitation import CANCELLED
    from acp_tui.ui.dialogs.permission import PermissionDialog
    from acp_tui.ui.dialogs.terminal import TerminalDialog

    if isinstance(dialog, PermissionDialog):
        dialog.answer(None)
    elif isinstance(dialog, TerminalDialog):
        dialog.answer("deny")
    else:
        dialog.answer(CANCELLED)
