"""A tool call, watched: a span (server, tool, outcome) and `fm_tool_calls_total` by outcome."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, cast

from bot.observability.metrics import observe_tool_call
from bot.observability.tracing import annotate, span

Call = TypeVar("Call", bound=Callable[..., Awaitable[Any]])


def observed_tool_call(call: Call) -> Call:
    """Wraps ``call(self, *, server, tool, arguments)``, whose result has an ``outcome``."""

    @functools.wraps(call)
    async def observed(
        self: object, *, server: str, tool: str, arguments: Mapping[str, object]
    ) -> Any:
        with span("tool.call", **{"fm.tool.server": server, "fm.tool.name": tool}):
            result = await call(self, server=server, tool=tool, arguments=arguments)
            outcome = str(getattr(result, "outcome", "unknown"))
            annotate(**{"fm.outcome": outcome})
        observe_tool_call(server, outcome)
        return result

    return cast(Call, observed)
