"""Provides the prompt queue: what waits to be sent in each tab and why (`waiting`), and the
part of the Workspace that sends it, one turn at a time (`sending`).
"""
