"""Provides the ACP v1 wire protocol: JSON-RPC plumbing and pydantic models of every message.

Models live in ``content`` (content blocks), ``tools`` (tool calls), ``session_config`` (modes and
config options), ``updates`` (`session/update`), ``capabilities`` (`initialize`), ``methods`` (every
agent method plus the ``AGENT_METHODS``/``CLIENT_METHODS`` tables) and ``client_methods`` (methods
the agent calls on the client). Parse with ``Model.from_wire(data)``, send with ``model.to_wire()``.
"""
