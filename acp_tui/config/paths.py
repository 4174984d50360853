"""Provides where acp-tui keeps its files: platformdirs, or everything under $ACP_TUI_HOME."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "acp-tui"
HOME_ENV = "ACP_TUI_HOME"


@dataclass(frozen=True, slots=True)
class Paths:
    """The directories acp-tui reads and writes. Nothing is created until it is needed."""

    config_dir: Path
    data_dir: Path
    state_dir: Path
    cache_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def log_dir(self) -> Path:
        return self.state_dir / "logs"

    def project_file(self, folder: str, project: Path, suffix: str) -> Path:
        """The file of ``project`` in ``<data_dir>/<folder>``, named by a hash of its absolute
        path (any path, whatever its characters, gives a short safe name)."""
        import hashlib  # here: importing it costs the first frame a few milliseconds

        key = str(project.expanduser().absolute())
        digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:24]
        return self.data_dir / folder / f"{digest}{suffix}"

    @property
    def demo_agent_dir(self) -> Path:
        """Where the bundled demo agent keeps its sessions by default."""
        return self.data_dir / "demo-agent"

    @classmethod
    def under(cls, root: Path) -> Paths:
        root = root.expanduser().absolute()
        return cls(root / "config", root / "data", root / "state", root / "cache")


def get_paths() -> Paths:
    """The paths for this process: `$ACP_TUI_HOME` when set (tests use it), else platformdirs."""
    home = os.environ.get(HOME_ENV)
    if home:
        return Paths.under(Path(home))
    return Paths(
        Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_state_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
    )
