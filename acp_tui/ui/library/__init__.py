"""Provides the history library's view: every agent's sessions, merged and searched."""
