"""Provides the headless subcommands of `acp-tui` (no Textual): ``acp-tui sessions ...``."""
