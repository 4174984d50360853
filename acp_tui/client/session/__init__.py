"""Provides one live session: its transcript, the prompt's blocks, the agent's questions
(permissions, forms) waiting for the user, and its export.
"""
