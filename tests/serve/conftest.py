"""The `acp-tui serve` tests without a browser: the `serve` fixture runs the real command."""

from tests.serve_helpers import serve as serve  # a fixture
