"""Provides the sessions' history: restoring one (replayed, resumed or from the local
copy), recording the local copy, forking, continuing, and listing the agent's sessions.
"""
