"""Provides `acp-tui serve`'s web server: the chat in a browser, one app process per page.

No Textual here: the server speaks HTTP and websockets (aiohttp) to the browser and Textual's
web-driver packets to each app it starts (``python -m acp_tui`` with
``TEXTUAL_DRIVER=textual.drivers.web_driver:WebDriver``). The page's terminal front end is
textual-serve's (``textual_serve/static``); the server, its token, origin and session checks
and the clean-up of every process it starts are ours.
"""
