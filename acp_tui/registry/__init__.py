"""Provides the official ACP agent registry: fetch it, read it, and add its agents to the config.

The registry (github.com/agentclientprotocol/registry) is a JSON list of agents, each run through
`npx`, `uvx` or a downloaded per-platform binary. Its entries are untrusted data: they are
validated field by field, shown with their control characters made visible, and nothing in them
runs until the user adds the agent after seeing the exact command that will be written.
"""
