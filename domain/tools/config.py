"""MCP servers as people already write them: the `mcpServers` JSON, checked and resolved.

The shape is the one other assistants read (`command`/`args`/`env`/`cwd` for a local server,
`url`/`headers` for a remote one over streamable HTTP) with their per-server safety keys:
`includeTools` (the allowlist: a server without one offers nothing), `excludeTools`, `trust` and
`timeout` (milliseconds). `${VAR}` in `env` and `headers` is taken from the environment the caller
passes; the resolved values are secrets and never printed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator

from domain.errors import DomainError

DEFAULT_TIMEOUT_MS = 30_000
MAX_TIMEOUT_MS = 300_000
SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_HTTP_TYPES = {"http", "streamable-http", "streamablehttp", "streamable_http"}


class ToolConfigError(DomainError):
    """The MCP configuration cannot be used at all; the message says why."""


class ServerConfig(BaseModel):
    """One entry of `mcpServers`, with `${VAR}` references resolved."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, SecretStr] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    include_tools: tuple[str, ...] = Field(default=(), alias="includeTools")
    exclude_tools: tuple[str, ...] = Field(default=(), alias="excludeTools")
    trust: bool = False
    """Calls need no person's consent; read-only rules still apply."""
    timeout_ms: int = Field(default=DEFAULT_TIMEOUT_MS, alias="timeout", gt=0, le=MAX_TIMEOUT_MS)
    disabled: bool = False

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a local server) or url (a remote one)")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """How the bot talks to the server: a child process's stdio, or streamable HTTP."""
        return "stdio" if self.command is not None else "http"

    @property
    def timeout_s(self) -> float:
        """The timeout of one call, in seconds."""
        return self.timeout_ms / 1000


class ToolsConfig(BaseModel):
    """Every usable server, and a sentence for each entry that could not be used."""

    model_config = ConfigDict(frozen=True)

    servers: tuple[ServerConfig, ...] = ()
    problems: tuple[str, ...] = ()


def parse_config(data: object, environment: Mapping[str, str]) -> ToolsConfig:
    """Read a decoded `mcpServers` document; one bad entry is reported, the others still load."""
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers"), dict):
        raise ToolConfigError('expected a JSON object with an "mcpServers" object in it')
    servers: list[ServerConfig] = []
    problems: list[str] = []
    for name, entry in data["mcpServers"].items():
        try:
            server = _server(str(name), entry, environment)
        except (ValueError, ValidationError) as exc:
            problems.append(f"server {name!r}: {_reason(exc)}")
            continue
        if not server.disabled:
            servers.append(server)
    return ToolsConfig(servers=tuple(servers), problems=tuple(problems))


def _server(name: str, entry: object, environment: Mapping[str, str]) -> ServerConfig:
    if not SERVER_NAME.fullmatch(name):
        raise ValueError(
            "a name is 1-32 letters, digits, '-' or '_', starting with a letter or digit"
        )
    if not isinstance(entry, dict):
        raise ValueError("expected an object")
    raw: dict[str, Any] = dict(entry)
    if "httpUrl" in raw and "url" not in raw:
        raw["url"] = raw.pop("httpUrl")
    kind = str(raw.get("type", "")).lower()
    if kind == "sse":
        raise ValueError("the SSE transport is not supported; use the streamable HTTP endpoint")
    if kind and kind != "stdio" and kind not in _HTTP_TYPES:
        raise ValueError(f"unknown type {kind!r} (stdio or http)")
    for key in ("env", "headers"):
        if key in raw:
            raw[key] = _expanded(key, raw[key], environment)
    return ServerConfig.model_validate({**raw, "name": name})


def _expanded(key: str, values: object, environment: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
        raise ValueError(f"{key} must be an object of strings")
    return {
        str(name): _expand(f"{key}.{name}", value, environment) for name, value in values.items()
    }


def expand(text: str, environment: Mapping[str, str]) -> str:
    """Replace each `${VAR}` by its value; a variable that is not set is an error naming it."""
    return _expand("value", text, environment)


def _expand(where: str, text: str, environment: Mapping[str, str]) -> str:
    missing = [m for m in _REFERENCE.findall(text) if m not in environment]
    if missing:
        raise ValueError(f"{where} refers to ${{{missing[0]}}}, which is not set")
    return _REFERENCE.sub(lambda m: environment[m.group(1)], text)


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        return f"{where}: {message}" if where else message
    return str(exc)
