"""Read-only evidence from the team's own tools (Model Context Protocol servers), as pure rules.

The configuration (`config`: the `mcpServers` JSON other assistants read, `${VAR}` references),
which tools may run (`policy`: the allowlist, and annotations that can only take a tool away),
what the model asks for (`requests`: a catalogue name and JSON arguments), whether arguments
may be sent (`arguments` with `schema`: the tool's input schema, and the command
safety rules for arguments named like a command), what a reply becomes (`results`: capped, then
redacted like an upload), the record of every call (`audit`), and the port the engine calls
(`ports`). The I/O lives in `bot.mcp`.
"""

from domain.tools.arguments import argument_problems, command_problems, is_command_name
from domain.tools.audit import ToolCallRecord, ToolOutcome, arguments_text, record
from domain.tools.config import (
    DEFAULT_TIMEOUT_MS,
    ServerConfig,
    ToolConfigError,
    ToolsConfig,
    expand,
    parse_config,
)
from domain.tools.policy import (
    Availability,
    ToolInfo,
    ToolSpec,
    allowed_specs,
    availability,
    destructive_annotation,
    qualified_name,
    start_problems,
)
from domain.tools.ports import ToolsPort
from domain.tools.requests import ResolvedRequest, ToolRequest, resolve
from domain.tools.results import DEFAULT_MAX_BYTES, Evidence, ToolResult, as_evidence
from domain.tools.schema import schema_problems

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT_MS",
    "Availability",
    "Evidence",
    "ResolvedRequest",
    "ServerConfig",
    "ToolCallRecord",
    "ToolConfigError",
    "ToolInfo",
    "ToolOutcome",
    "ToolRequest",
    "ToolResult",
    "ToolSpec",
    "ToolsConfig",
    "ToolsPort",
    "allowed_specs",
    "argument_problems",
    "arguments_text",
    "as_evidence",
    "availability",
    "command_problems",
    "destructive_annotation",
    "expand",
    "is_command_name",
    "parse_config",
    "qualified_name",
    "record",
    "resolve",
    "schema_problems",
    "start_problems",
]
