"""Provides the demo agent's session modes and config options (mode, model, effort, verbose).

The smart model has a reasoning picker too, as real agents add one for a model that reasons
(opencode does): choosing the model changes the set of pickers, which clients must follow.
"""

from __future__ import annotations

from typing import Any

from acp_tui.demo_agent.store import SessionRecord
from acp_tui.protocol.jsonrpc import RpcError

MODES: list[dict[str, str]] = [
    {"id": "ask", "name": "Ask", "description": "Ask before changing anything"},
    {"id": "code", "name": "Code", "description": "Edit files without asking"},
]
MODELS: list[dict[str, str]] = [
    {"value": "demo-fast", "name": "Demo fast", "description": "Quick, terse answers"},
    {"value": "demo-smart", "name": "Demo smart", "description": "Slower, thoughtful answers"},
]
EFFORTS: list[dict[str, str]] = [
    {"value": "low", "name": "Low effort"},
    {"value": "high", "name": "High effort"},
]
SMART_MODEL = "demo-smart"
REASONING: list[dict[str, str]] = [
    {"value": "brief", "name": "Brief reasoning"},
    {"value": "detailed", "name": "Detailed reasoning"},
]
REASONING_IDS = frozenset(r["value"] for r in REASONING)
SMART_MODEL = "demo-smart"
DEFAULT_EFFORT = "low"
DEFAULT_MODE = "ask"
DEFAULT_MODEL = "demo-fast"
MODE_IDS = frozenset(m["id"] for m in MODES)
MODEL_IDS = frozenset(m["value"] for m in MODELS)
EFFORT_IDS = frozenset(e["value"] for e in EFFORTS)


def modes_state(record: SessionRecord) -> dict[str, Any]:
    return {"currentModeId": record.mode, "availableModes": [dict(m) for m in MODES]}


def config_options(record: SessionRecord, *, boolean: bool) -> list[dict[str, Any]]:
    """The full list of config options; ``verbose`` only for clients that take booleans."""
    options: list[dict[str, Any]] = [
        {
            "id": "mode",
            "name": "Session Mode",
            "category": "mode",
            "type": "select",
            "currentValue": record.mode,
            "options": [{"value": m["id"], "name": m["name"]} for m in MODES],
        },
        {
            "id": "model",
            "name": "Model",
            "category": "model",
            "type": "select",
            "currentValue": str(record.config.get("model", DEFAULT_MODEL)),
            "options": [dict(m) for m in MODELS],
        },
    ]
    options.append(  # listed last, shown beside the model (its category says so)
        {
            "id": "effort",
            "name": "Effort",
            "description": "How hard the model thinks",
            "category": "model_config",
            "type": "select",
            "currentValue": str(record.config.get("effort", DEFAULT_EFFORT)),
            "options": [dict(e) for e in EFFORTS],
        }
    )
    if record.config.get("model") == SMART_MODEL:  # a model that reasons: one more picker
        options.append(
            {
                "id": "reasoning",
                "name": "Reasoning",
                "category": "model_config",
                "type": "select",
                "currentValue": str(record.config.get("reasoning", "brief")),
                "options": [dict(r) for r in REASONING],
            }
        )
    if boolean:
        options.insert(
            2,
            {
                "id": "verbose",
                "name": "Verbose",
                "description": "Share the agent's reasoning as thoughts",
                "type": "boolean",
                "currentValue": bool(record.config.get("verbose", False)),
            },
        )
    return options


def session_state(record: SessionRecord, *, boolean: bool) -> dict[str, Any]:
    """The ``modes`` and ``configOptions`` that new/load/resume/fork answer with."""
    return {"modes": modes_state(record), "configOptions": config_options(record, boolean=boolean)}


def set_mode(record: SessionRecord, mode_id: Any) -> None:
    if mode_id not in MODE_IDS:
        raise RpcError.invalid_params(
            f"unknown modeId {mode_id!r}; expected one of {sorted(MODE_IDS)}"
        )
    record.mode = mode_id


def set_config_option(
    record: SessionRecord, config_id: Any, value: Any, kind: Any, *, boolean: bool
) -> None:
    """Apply one ``session/set_config_option``; -32602 for an unknown id or a bad value."""
    if config_id == "mode":
        if kind not in (None, "select") or not isinstance(value, str):
            raise RpcError.invalid_params(f"mode takes a string value, got {value!r}")
        set_mode(record, value)
    elif config_id == "model":
        if kind not in (None, "select") or value not in MODEL_IDS:
            raise RpcError.invalid_params(
                f"unknown model {value!r}; expected one of {sorted(MODEL_IDS)}"
            )
        record.config["model"] = value
    elif config_id == "effort":
        if kind not in (None, "select") or value not in EFFORT_IDS:
            raise RpcError.invalid_params(
                f"unknown effort {value!r}; expected one of {sorted(EFFORT_IDS)}"
            )
        record.config["effort"] = value
    elif config_id == "reasoning" and record.config.get("model") == SMART_MODEL:
        if kind not in (None, "select") or value not in REASONING_IDS:
            raise RpcError.invalid_params(
                f"unknown reasoning {value!r}; expected one of {sorted(REASONING_IDS)}"
            )
        record.config["reasoning"] = value
    elif config_id == "verbose" and boolean:
        if kind != "boolean" or not isinstance(value, bool):
            raise RpcError.invalid_params(
                f'verbose takes {{"type": "boolean", "value": true|false}}, got {value!r}'
            )
        record.config["verbose"] = value
    else:
        raise RpcError.invalid_params(f"unknown configId {config_id!r}")
