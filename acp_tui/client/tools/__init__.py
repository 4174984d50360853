"""Provides what an agent may touch: the session's roots, its files (``fs/*``), its
terminals (``terminal/*``, and whether they may run), and the files a prompt mentions.
"""
