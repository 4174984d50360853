"""Provides the transcript view: a windowed, line-based view of a session's transcript,
its keys, find, layout and rendering.
"""
