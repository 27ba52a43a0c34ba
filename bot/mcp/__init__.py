"""The bot's MCP client: the team's own tools (Prometheus, Grafana, Kubernetes…), read-only.

`McpHub` starts every server of the `FM_MCP_CONFIG` file once and keeps it (a crashed stdio
server is started again on its next call), offers the catalogue of allowed tools, and runs calls
behind the rules of `domain.tools`, returning a `ToolResult` with its audit record. `connection`
holds one server's process or HTTP session; `replies` turns a reply into text.
"""

from bot.mcp.config_file import load_tools_config
from bot.mcp.hub import McpHub, ServerStatus

__all__ = ["McpHub", "ServerStatus", "load_tools_config"]
