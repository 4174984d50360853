"""Provides the Workspace: the agents, the live sessions (tabs), and the parts that open,
prompt, list, log in and ask the user, with one stream of events for the UI.
"""
