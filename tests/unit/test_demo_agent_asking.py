"""The demo agent's elicitation keywords: how they parse, and what it does for a client that
does not advertise elicitation."""

from __future__ import annotations

from pathlib import Path

from acp_tui.demo_agent import asking
from acp_tui.demo_agent.options import ClientCaps
from acp_tui.demo_agent.script import ASK_BAD, ASK_FLOOD, ASK_URL, KEYWORDS_HELP, parse
from tests.unit.test_demo_agent import FULL_CAPS, agent, text_of


def test_the_ask_keywords_are_one_keyword_each() -> None:
    assert parse("please ask").words == {"ask"}
    url = parse("ask-url")
    assert url.words == {ASK_URL}  # neither "ask" nor "url" on its own
    assert (url.url_complete_after, url.url) == (asking.URL_COMPLETE_AFTER, None)
    never = parse("ask-url never file:///etc/passwd and plan")
    assert never.words == {ASK_URL, "plan"}
    assert (never.url_complete_after, never.url) == (None, "file:///etc/passwd")
    assert parse("ask-url 2.5").url_complete_after == 2.5
    flood = parse("ask-flood 1000 cancel 7")
    assert flood.words == {ASK_FLOOD}
    assert (flood.ask_flood_count, flood.ask_flood_cancel) == (1000, 7)
    assert parse("ask-flood 5000").ask_flood_count == asking.MAX_ASK_FLOOD
    assert parse("ask-bad ask").words == {ASK_BAD, "ask"}
    for word in ("ask ", "ask-url", "ask-flood N", "ask-bad"):
        assert word in KEYWORDS_HELP


def test_the_client_capabilities_say_which_modes() -> None:
    assert ClientCaps.from_wire({"elicitation": {"form": {}}}).elicitation_form
    assert not ClientCaps.from_wire({"elicitation": {"form": {}}}).elicitation_url
    assert not ClientCaps.from_wire({"elicitation": {}}).elicitation_form
    assert not ClientCaps.from_wire({"elicitation": {"form": None, "url": True}}).elicitation_url


async def test_a_client_without_elicitation_is_never_asked(tmp_path: Path) -> None:
    async with agent(tmp_path / "demo-data", caps=FULL_CAPS) as client:
        sid = await client.new("/work/project")
        assert await client.prompt(sid, "ask") == "end_turn"
        assert await client.prompt(sid, "ask-url") == "end_turn"
        said = text_of(client.of(sid))
        assert "did not advertise `elicitation.form`" in said
        assert "did not advertise URLs" in said
        assert not [m for m, _ in client.requests if m == "elicitation/create"]
