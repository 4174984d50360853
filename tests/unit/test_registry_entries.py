"""Reading the registry: every distribution kind, and broken entries skipped with a reason."""

from __future__ import annotations

import json

import pytest

from acp_tui.registry.entries import (
    PackageDistribution,
    RegistryFormatError,
    current_platform,
    parse_registry,
)
from tests.registry_helpers import FIXTURE, fixture_archives, registry_json

BASE = "http://127.0.0.1:9"


def fixture() -> bytes:
    return registry_json(BASE, fixture_archives())


def test_the_fixture_lists_every_kind_and_skips_the_broken_entries() -> None:
    registry = parse_registry(fixture())
    assert [entry.id for entry in registry.agents] == [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "windows-only",
        "traversal",
        "bad-checksum",
        "half-way",
        "escapes",
    ]
    assert registry.skipped == (
        "entry 10 (no-description): missing description",
        "entry 11: id 'Bad_ID' is not lowercase letters, digits and '-'",
        "entry 12 (only-docker): no distribution acp-tui can run (it offers docker)",
        "entry 13 (no-package): distribution.npx: missing package",
        "entry 14: not a JSON object",
    )


def test_each_distribution_is_read() -> None:
    registry = parse_registry(fixture())
    alpha, beta, gamma, delta = (registry.find(i) for i in ("alpha", "beta", "gamma", "delta"))
    assert alpha is not None
    assert beta is not None
    assert gamma is not None
    assert delta is not None
    assert alpha.npx == PackageDistribution(
        "npx", "@example/alpha-acp@1.2.3", ("--acp",), {"ALPHA_LOG": "info"}
    )
    assert alpha.kinds == ("npx",)
    assert alpha.authors == ("Alpha Team",)
    assert beta.uvx == PackageDistribution("uvx", "beta-agent==0.4.0", ("acp",))
    target = gamma.binary["linux-x86_64"]
    assert (target.archive, target.cmd, target.args) == (
        f"{BASE}/gamma-1.0.0.tar.gz",
        "./bin/gamma",
        ("acp",),
    )
    assert target.env == {"GAMMA_MODE": "acp"}
    assert target.sha256 is not None
    assert len(target.sha256) == 64
    assert gamma.binary["darwin-aarch64"].sha256 is None
    assert delta.kinds == ("npx", "binary")
    assert delta.unknown_kinds == ("docker",)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<html>not json</html>", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"version": "1.0.0"}', "no list of agents"),
        (b'{"agents": {"a": 1}}', "no list of agents"),
        (b"[" * 100_000, "not JSON"),
    ],
)
def test_a_registry_that_cannot_be_read_is_one_clear_error(data: bytes, message: str) -> None:
    with pytest.raises(RegistryFormatError, match=message):
        parse_registry(data)


def entry(**changes: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "x",
        "name": "X",
        "version": "1.0.0",
        "description": "d",
        "distribution": {"npx": {"package": "x"}},
    }
    base.update(changes)
    return base


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"version": "latest"}, "version 'latest' is not a version number"),
        ({"version": "1.0.0/../../x"}, "is not a version number"),
        ({"name": 5}, "name: expected a non-empty string"),
        ({"name": "  "}, "name: expected a non-empty string"),
        ({"distribution": {}}, "distribution: expected an object"),
        ({"distribution": {"npx": {"package": "--call=sh"}}}, "is not a package name"),
        ({"distribution": {"npx": {"package": "a b"}}}, "is not a package name"),
        ({"distribution": {"npx": {"package": "x", "args": "--acp"}}}, "args: expected a list"),
        ({"distribution": {"uvx": {"package": "x", "env": {"A B": "1"}}}}, "not an environment"),
        ({"distribution": {"uvx": {"package": "x", "env": {"A": 1}}}}, "env.A: expected a string"),
        ({"distribution": {"binary": []}}, "expected an object of platforms"),
        ({"distribution": {"binary": {"linux-x86_64": {"cmd": "./x"}}}}, "missing archive"),
        (
            {
                "distribution": {
                    "binary": {"linux-x86_64": {"archive": "a", "cmd": "x", "sha256": "z"}}
                }
            },
            "sha256: not 64 hexadecimal digits",
        ),
        ({"description": "x" * 5000}, "longer than"),
    ],
)
def test_an_entry_with_a_bad_field_is_skipped_with_its_reason(
    changes: dict[str, object], reason: str
) -> None:
    document = {"agents": [entry(**changes), entry(id="ok")]}
    registry = parse_registry(json.dumps(document).encode())
    assert [e.id for e in registry.agents] == ["ok"]
    [skipped] = registry.skipped
    assert reason in skipped


def test_a_duplicate_id_is_skipped_and_unknown_platforms_ignored() -> None:
    binary = {"plan9-mips": {"archive": "a", "cmd": "b"}}
    document = {
        "agents": [entry(), entry(name="Again")],
        "extensions": [],
    }
    registry = parse_registry(json.dumps(document).encode())
    assert [e.name for e in registry.agents] == ["X"]
    assert registry.skipped == ("entry 2 (x): the id 'x' is listed twice",)
    only_unknown = {"agents": [entry(distribution={"npx": {"package": "x"}, "binary": binary})]}
    [parsed] = parse_registry(json.dumps(only_unknown).encode()).agents
    assert parsed.binary == {}
    assert parsed.kinds == ("npx",)


def test_search_matches_id_name_and_description_case_insensitively() -> None:
    registry = parse_registry(fixture())
    assert [e.id for e in registry.search("BINARY")] == ["delta", "gamma", "windows-only"]
    assert [e.id for e in registry.search("uvx")] == ["beta"]
    assert [e.id for e in registry.search("alpha")] == ["alpha"]
    everything = registry.search()
    assert len(everything) == len(registry.agents)
    assert [e.name for e in everything] == sorted((e.name for e in everything), key=str.casefold)


def test_current_platform_is_one_of_the_registry_keys_or_none() -> None:
    assert current_platform() in {
        None,
        "darwin-aarch64",
        "darwin-x86_64",
        "linux-aarch64",
        "linux-x86_64",
        "windows-aarch64",
        "windows-x86_64",
    }


def test_the_fixture_file_is_real_json_with_a_version() -> None:
    assert json.loads(FIXTURE.read_text())["version"] == "1.0.0"
