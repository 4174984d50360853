"""Images: a pasted path to an image becomes a mention, sent as an ``image`` block to agents
that take images (a link otherwise); images from the agent show as a labelled placeholder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events

from acp_tui.ui.app import AcpApp
from tests.app.helpers import wait_for
from tests.app.test_app_smoke import screen_text
from tests.app.test_prompt_input import PROTOCOLS, idle, ready

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 92


def sent_prompts(app: AcpApp) -> list[list[dict[str, Any]]]:
    sent: list[list[dict[str, Any]]] = []
    assert app.client is not None
    app.client.connection.tracer = lambda direction, message: (
        sent.append(message["params"]["prompt"])
        if direction == "send" and message.get("method") == "session/prompt"
        else None
    )
    return sent


@PROTOCOLS
@pytest.mark.parametrize("takes_images", [True, False], ids=["image", "no-image"])
async def test_a_pasted_image_path_is_sent_as_the_agent_allows(
    make_app: Callable[..., AcpApp], protocol: int, takes_images: bool
) -> None:
    app = make_app(*(["--image"] if takes_images else []), protocol=protocol)
    image = app.launch.cwd / "shots" / "screen shot.png"
    image.parent.mkdir()
    image.write_bytes(PNG)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        sent = sent_prompts(app)
        await pilot.press(*"what is in ")
        app.post_message(events.Paste(str(image).replace(" ", "\\ ")))
        await wait_for(pilot, lambda: '@"shots/screen shot.png"' in prompt.text)
        assert prompt.text == 'what is in @"shots/screen shot.png" '
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(sent) and idle(app))
        [blocks] = sent
        assert blocks[0]["type"] == "text"
        if takes_images:
            assert blocks[1]["type"] == "image"
            assert blocks[1]["mimeType"] == "image/png"
            await wait_for(
                pilot, lambda: "I got an image: image/png, 100 bytes" in screen_text(app)
            )
            # The user's message shows the image as a placeholder, never as raw data.
            assert "[image screen shot.png · image/png · 100 B]" in screen_text(app)
        else:
            assert blocks[1]["type"] == "resource_link"
            assert blocks[1]["name"] == "screen shot.png"


async def test_a_pasted_image_outside_the_roots_is_not_attached(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app("--image")
    outside = tmp_path / "elsewhere.png"
    outside.write_bytes(PNG)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        sent = sent_prompts(app)
        app.post_message(events.Paste(str(outside)))
        await wait_for(pilot, lambda: "elsewhere.png" in prompt.text)
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(sent) and idle(app))
        assert [b["type"] for b in sent[0]] == ["text"]


async def test_other_pastes_are_text(make_app: Callable[..., AcpApp]) -> None:
    app = make_app("--image")
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        app.post_message(events.Paste("just some words.png and more"))
        await wait_for(pilot, lambda: bool(prompt.text))
        assert prompt.text == "just some words.png and more"


@PROTOCOLS
async def test_an_image_from_the_agent_is_a_labelled_placeholder(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"image", "enter")
        await wait_for(pilot, lambda: "[image · image/png · 70 B]" in screen_text(app))
