"""Provides SessionTabs: one line of tabs, one per open session, with marks that want you.

A tab shows its number (Alt+1..9 jumps to it), the session's title (or "new session"), the agent
when sessions of several agents are open, and a mark: ``●`` a turn runs, ``?`` it waits for your
permission, ``✓`` its turn ended while you were elsewhere, ``✗`` it failed. The bar is hidden
while only one session is open (the status line already names it).
"""

from __future__ import annotations

from textual import on
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import Tab, Tabs

from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.ui.messages import TabChosen
from acp_tui.ui.plain_text import NAME_LIMIT, sanitize

__all__ = ["SessionTabs", "slot_of_tab", "tab_id", "tab_label"]

TITLE_WIDTH = 24
MARKS = {"permission": "?", "failed": "✗", "finished": "✓"}


def tab_id(slot_id: int) -> str:
    return f"slot-{slot_id}"


def slot_of_tab(tab: str | None) -> int | None:
    """The slot id of a tab id, or None."""
    if tab and tab.startswith("slot-") and tab[5:].isdigit():
        return int(tab[5:])
    return None


def tab_label(slot: SessionSlot, number: int, *, with_agent: bool) -> Content:
    """What a slot's tab says (plain text: titles come from the agent)."""
    title = slot.title or ("new session" if slot.state != "closed" else "closed session")
    title = " ".join(sanitize(title, TITLE_WIDTH * 4).split())  # clipped first: a 20 MB title
    if len(title) > TITLE_WIDTH:
        title = title[: TITLE_WIDTH - 1] + "…"
    if with_agent:
        title = f"{sanitize(slot.agent.display_name, NAME_LIMIT)}: {title}"
    mark = MARKS.get(slot.attention or "", "")
    if not mark and slot.busy:
        mark = "●"
    if not mark and slot.state in ("failed", "agent_down"):
        mark = "✗"
    prefix = f"{number}" if number <= 9 else "·"
    label = Content(f"{prefix} {title}")
    if mark:
        label = (
            label + Content(" ") + Content.styled(mark, "bold $warning" if mark == "?" else "bold")
        )
    return label


class SessionTabs(Tabs):
    """The tabs of the open sessions; the chat screen keeps them in step with the slots."""

    DEFAULT_CSS = """
    SessionTabs {
        height: 1;
        display: none;
        background: $panel;
        &.-several { display: block; }
        Underline { display: none; }
        #tabs-list { min-height: 1; }
        Tab { height: 1; padding: 0 1; }
        Tab.-active { background: $primary 30%; text-style: bold; }
    }
    """

    wanted: int | None = None
    """The slot whose tab should be active (it may not be mounted yet)."""

    def _highlight_active(self, animate: bool = True) -> None:
        """Nothing to move: the active tab shows by its colour, and the underline is hidden.

        Textual's Tabs animates the hidden underline for 0.3 s after each switch, a frame
        of the screen every 1/60 s. (Overrides a private method; Textual is pinned.)
        """

    def set_tab(self, slot_id: int, label: Content) -> None:
        """Add the slot's tab, or update its label (if it changed: a new label lays the
        screen out, and the tab's status is told again on every change of its turn)."""
        try:
            tab = self.query_one(f"#{tab_id(slot_id)}", Tab)
        except NoMatches:
            self.add_tab(Tab(label, id=tab_id(slot_id)))
            self.call_after_refresh(self.settle)
        else:
            shown = tab.label
            if shown.plain != label.plain or shown.spans != label.spans:
                tab.label = label

    def remove_slot(self, slot_id: int) -> None:
        self.remove_tab(tab_id(slot_id))
        self.call_after_refresh(self.settle)

    def show_slot(self, slot_id: int) -> None:
        """Make the slot's tab the active one (once it is there)."""
        self.wanted = slot_id
        self.settle()

    def settle(self) -> None:
        """Show the bar when there are several tabs; activate the wanted one when it is in."""
        self.set_class(self.tab_count > 1, "-several")
        wanted = self.wanted
        if wanted is None or self.active == tab_id(wanted):
            return
        if self.query(f"#{tab_id(wanted)}"):
            with self.prevent(Tabs.TabActivated):
                self.active = tab_id(wanted)

    @on(Tabs.TabActivated)
    def tab_clicked(self, event: Tabs.TabActivated) -> None:
        """A tab was picked (the screen switches, through the Workspace)."""
        event.stop()
        slot_id = slot_of_tab(event.tab.id)
        if slot_id is not None:
            self.post_message(TabChosen(slot_id))
