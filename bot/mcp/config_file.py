"""Reading the MCP servers file named by FM_MCP_CONFIG."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from domain.tools import ToolConfigError, ToolsConfig, parse_config

MAX_CONFIG_BYTES = 1024 * 1024


def load_tools_config(path: Path, environment: Mapping[str, str]) -> ToolsConfig:
    """Read and check the file; an unusable one raises ToolConfigError naming it."""
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise ToolConfigError(f"{path} is larger than 1 MB; is it the MCP servers file?")
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ToolConfigError(f"{path} does not exist (FM_MCP_CONFIG)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolConfigError(f"{path} cannot be read ({type(exc).__name__})") from None
    except json.JSONDecodeError as exc:
        raise ToolConfigError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    try:
        return parse_config(data, environment)
    except ToolConfigError as exc:
        raise ToolConfigError(f"{path}: {exc}") from None
