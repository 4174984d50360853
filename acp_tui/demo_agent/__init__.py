"""Provides the bundled, offline reference ACP v1 agent: ``python -m acp_tui.demo_agent``.

Modules: ``__main__`` (command line), ``stdio`` (byte streams over stdin/stdout), ``server``
(method dispatch and session lifecycle), ``v2`` (the v2 draft's spelling of the same, built on
``server``), ``auth`` (the pretend login), ``store`` (crash-safe persistence), ``paging``
(``session/list`` cursors), ``params`` (hand-written param validation), ``settings`` (modes and
config options), ``turn`` (what a prompt turn sends), ``script`` and ``tools`` (the keyword-driven
reply). It imports ``acp_tui.protocol`` and ``acp_tui.config`` only.
"""
