"""Prompt blocks: text first, files linked or embedded as the agent allows; mentions; the walk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tui.client.session.prompt_blocks import build_prompt_blocks
from acp_tui.client.tools.mentions import (
    filter_paths,
    find_mentions,
    list_files,
    mention_for,
    resolve_mentions,
)
from acp_tui.client.tools.roots import RootSet
from acp_tui.protocol.content import (
    EmbeddedResource,
    ResourceLink,
    TextContent,
    TextResourceContents,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Hello\n", encoding="utf-8")
    (root / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    return root


def test_text_only(tmp_path: Path) -> None:
    blocks = build_prompt_blocks("hello", [], embedded_context=True)
    assert blocks == [TextContent(text="hello")]
    assert [b.to_wire() for b in blocks] == [{"type": "text", "text": "hello"}]


def test_files_are_links_when_the_agent_does_not_accept_embedded_context(project: Path) -> None:
    readme = project / "README.md"
    blocks = build_prompt_blocks("look", [readme], embedded_context=False)
    assert blocks[0] == TextContent(text="look")
    link = blocks[1]
    assert isinstance(link, ResourceLink)
    assert link.uri == readme.as_uri()
    assert link.uri.startswith("file:///")
    assert link.name == "README.md"
    assert link.mime_type == "text/markdown"
    assert link.size == len("# Hello\n")
    assert link.to_wire() == {
        "type": "resource_link",
        "uri": readme.as_uri(),
        "name": "README.md",
        "mimeType": "text/markdown",
        "size": 8,
    }
    assert not any(isinstance(b, EmbeddedResource) for b in blocks)


def test_text_files_are_embedded_when_the_agent_accepts_it(project: Path) -> None:
    main = project / "src" / "main.py"
    blocks = build_prompt_blocks("look", [main], embedded_context=True)
    embedded = blocks[1]
    assert isinstance(embedded, EmbeddedResource)
    assert isinstance(embedded.resource, TextResourceContents)
    assert embedded.resource.uri == main.as_uri()
    assert embedded.resource.text == "print('hi')\n"
    assert embedded.resource.mime_type == "text/x-python"
    assert embedded.to_wire()["type"] == "resource"


def test_binary_and_undecodable_files_fall_back_to_links(project: Path) -> None:
    latin = project / "latin1.txt"
    latin.write_bytes("café".encode("latin-1"))
    blocks = build_prompt_blocks("x", [project / "logo.png", latin], embedded_context=True)
    assert [type(b) for b in blocks] == [TextContent, ResourceLink, ResourceLink]
    png = blocks[1]
    assert isinstance(png, ResourceLink)
    assert png.mime_type == "image/png"


def test_too_large_files_fall_back_to_links(project: Path) -> None:
    big = project / "big.txt"
    big.write_text("x" * 101)
    small = project / "small.txt"
    small.write_text("x" * 100)
    blocks = build_prompt_blocks("x", [big, small], embedded_context=True, read_limit=100)
    assert isinstance(blocks[1], ResourceLink)
    assert blocks[1].size == 101
    assert isinstance(blocks[2], EmbeddedResource)


def test_uris_are_absolute_even_for_relative_paths(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    blocks = build_prompt_blocks("", [Path("README.md")], embedded_context=False)
    assert len(blocks) == 1  # no empty text block when only files are sent
    link = blocks[0]
    assert isinstance(link, ResourceLink)
    assert link.uri == (project / "README.md").as_uri()


def test_a_vanished_file_is_still_linked(project: Path) -> None:
    blocks = build_prompt_blocks("x", [project / "gone.txt"], embedded_context=True)
    link = blocks[1]
    assert isinstance(link, ResourceLink)
    assert link.size is None


def test_find_mentions() -> None:
    text = 'read @README.md and @src/main.py, @"a file.txt" but not me@example.com (@x)'
    assert find_mentions(text) == ["README.md", "src/main.py,", "a file.txt", "x)"]
    assert find_mentions("@start\n@next-line") == ["start", "next-line"]
    assert find_mentions("no mentions @") == []
    assert mention_for("a b.txt") == '"a b.txt"'
    assert find_mentions("@" + mention_for("a b.txt")) == ["a b.txt"]


def test_resolve_mentions_keeps_existing_files_under_the_roots(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("no")
    (project / "link").symlink_to(outside)
    roots = RootSet(str(project))
    text = (
        f"see @README.md, @src/main.py. @{project}/README.md @missing.txt @src "
        f"@{outside} @../secret.txt @link"
    )
    found = resolve_mentions(text, roots, project)
    real = project.resolve()
    assert found == [real / "README.md", real / "src" / "main.py"]


def test_list_files_skips_hidden_dependency_and_venv_dirs(project: Path, tmp_path: Path) -> None:
    for skipped in (".git", "node_modules", "__pycache__", ".venv", "myenv"):
        (project / skipped).mkdir()
        (project / skipped / "inner.txt").write_text("x")
    (project / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("x")
    os.symlink(other, project / "linked-dir")  # not followed
    files = list_files([project, other], project)
    # Shallowest first: both roots' top levels come before anything nested.
    assert files == ["README.md", "logo.png", str(other / "notes.txt"), "src/main.py"]


def test_list_files_stops_at_the_limit(project: Path) -> None:
    for i in range(30):
        (project / f"f{i:02}.txt").write_text("x")
    assert len(list_files([project], project, limit=10)) == 10


def test_filter_paths_puts_file_name_matches_first() -> None:
    paths = ["readme/guide.txt", "docs/README.md", "other.txt"]
    assert filter_paths(paths, "read") == ["docs/README.md", "readme/guide.txt"]
    assert filter_paths(paths, "") == paths


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 20
GIF = b"GIF89a" + b"\x00" * 20
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"\x00" * 20


@pytest.mark.parametrize(
    ("name", "data", "mime_type"),
    [
        ("a.png", PNG, "image/png"),
        ("b.JPG", JPEG, "image/jpeg"),
        ("c.jpeg", JPEG, "image/jpeg"),
        ("d.gif", GIF, "image/gif"),
        ("e.webp", WEBP, "image/webp"),
    ],
)
def test_images_are_image_blocks_when_the_agent_takes_images(
    tmp_path: Path, name: str, data: bytes, mime_type: str
) -> None:
    import base64

    from acp_tui.protocol.content import ImageContent

    path = tmp_path / name
    path.write_bytes(data)
    _, block = build_prompt_blocks("look", [path], embedded_context=True, image=True)
    assert isinstance(block, ImageContent)
    assert block.mime_type == mime_type
    assert base64.b64decode(block.data) == data
    assert block.uri == path.as_uri()
    _, linked = build_prompt_blocks("look", [path], embedded_context=True, image=False)
    assert isinstance(linked, ResourceLink)


def test_an_image_in_name_only_or_too_big_is_linked(tmp_path: Path) -> None:
    from acp_tui.client.session.prompt_blocks import image_block

    fake = tmp_path / "fake.png"
    fake.write_bytes(b"not an image at all")
    assert image_block(fake) is None
    big = tmp_path / "big.png"
    big.write_bytes(PNG + b"\x00" * 100)
    assert image_block(big, limit=50) is None
    assert image_block(big, limit=1000) is not None
    text = tmp_path / "notes.txt"
    text.write_bytes(PNG)  # image bytes, but not named as an image
    assert image_block(text) is None
    _, block = build_prompt_blocks("x", [fake], embedded_context=False, image=True)
    assert isinstance(block, ResourceLink)


def test_a_pasted_path_to_an_image_is_recognised(tmp_path: Path) -> None:
    from acp_tui.client.tools.mentions import pasted_image_path

    spaced = tmp_path / "my photo.png"
    spaced.write_bytes(PNG)
    plain = tmp_path / "shot.webp"
    plain.write_bytes(WEBP)
    assert pasted_image_path(f"  {plain}\n", tmp_path) == plain
    assert pasted_image_path(f"'{spaced}'", tmp_path) == spaced
    assert pasted_image_path(str(spaced).replace(" ", "\\ "), tmp_path) == spaced
    assert pasted_image_path(spaced.as_uri(), tmp_path) == spaced
    assert pasted_image_path("shot.webp", tmp_path) == plain
    assert pasted_image_path(f"see {plain}", tmp_path) is None
    assert pasted_image_path(f"{plain}\n{plain}", tmp_path) is None
    assert pasted_image_path(str(tmp_path / "gone.png"), tmp_path) is None
    (tmp_path / "notes.txt").write_text("x")
    assert pasted_image_path(str(tmp_path / "notes.txt"), tmp_path) is None
