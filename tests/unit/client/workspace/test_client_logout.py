"""`logout` (v1) and `auth/logout` (v2) against the demo agent: sent only where advertised, in
the schema's shape, and the agent asks for a login again afterwards (also after a terminal
login, whose stored credential logging out forgets)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.errors import Unsupported
from acp_tui.protocol.jsonrpc import RpcError
from tests.unit.client.agent.agent_helpers import demo_client, demo_spec, make_project, record_wire
from tests.unit.client.agent.test_client_mcp import assert_valid


@pytest.mark.parametrize("version", [1, 2])
async def test_logout_then_the_agent_asks_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int
) -> None:
    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    (data / "credentials.json").write_text('{"user": "demo"}\n')  # a terminal login's credential
    flags = ["--require-auth"] + (["--protocol", "2"] if version == 2 else [])
    spec = replace(demo_spec(data, project, *flags), protocol_version=version)
    async with connect(spec) as client:
        assert client.capabilities.can_logout
        await client.new_session(project)  # the stored credential logs it in
        await client.logout()
        with pytest.raises(RpcError) as caught:
            await client.new_session(project)
        assert caught.value.is_auth_required
        await client.authenticate("demo-login")
        await client.new_session(project)
    method = "logout" if version == 1 else "auth/logout"
    [params] = wire.sent_params(method)
    assert_valid(f"v{version}", "LogoutRequest" if version == 1 else "LogoutAuthRequest", params)
    assert not (data / "credentials.json").exists()


async def test_logout_is_refused_where_the_agent_does_not_advertise_it(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    async with demo_client(tmp_path / "data", project) as client:
        assert not client.capabilities.can_logout
        with pytest.raises(Unsupported, match="does not support logout"):
            await client.logout()
