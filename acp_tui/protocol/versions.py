"""Provides the ACP protocol versions this client speaks (a tiny module: the CLI needs it)."""

SUPPORTED_PROTOCOLS = (1, 2)
"""The ACP protocol versions this client speaks (2 is the draft, opt-in)."""
