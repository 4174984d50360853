"""The update models a reply needs are built off the event loop, before the first update."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


@pytest.mark.parametrize("version", [1, 2])
def test_warm_up_builds_the_update_validator_and_serializer(version: int) -> None:
    # A fresh process: in this one another test may have built the models already.
    script = textwrap.dedent(
        f"""
        from pydantic._internal._mock_val_ser import MockValSer
        from acp_tui.client.agent.agent_client import client_capabilities, warm_up_updates
        from acp_tui.client.agent.dialects import dialect_for
        from acp_tui.protocol import updates
        from acp_tui.protocol.v2 import updates as v2_updates

        note = (updates if {version} == 1 else v2_updates).SessionNotification
        assert isinstance(note.__pydantic_validator__, MockValSer)
        kinds = updates.update_classes()
        assert updates.ToolCallStart in kinds
        assert isinstance(updates.ToolCallStart.__pydantic_serializer__, MockValSer)
        warm_up_updates(dialect_for({version}, client_capabilities()))
        assert not isinstance(note.__pydantic_validator__, MockValSer)
        # What the dialects turn updates into, as the recorder encodes them.
        for kind in kinds:
            assert not isinstance(kind.__pydantic_serializer__, MockValSer), kind
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
