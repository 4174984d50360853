"""Provides what runs processes: the agent's process, the guard over every tree acp-tui
starts (reaper, watchdog) and the signals that end acp-tui.
"""
