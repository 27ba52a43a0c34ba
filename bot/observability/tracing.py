"""OpenTelemetry traces, only when OTEL_EXPORTER_OTLP_ENDPOINT is set: off, a span costs nothing.

A turn is one span; retrieval, each model call, each tool call and each Slack Web API call are
its children (the context follows the turn's task and the tasks it gathers). The exporter is
OTLP over HTTP and reads the standard OTEL_* variables itself (headers, protocol, service
name). Span attributes carry ids, model names and counts, never what people wrote.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Tracer

SERVICE = "faultmaven-slack"
Attribute = str | int | float | bool | None
Call = TypeVar("Call", bound=Callable[..., Awaitable[Any]])
Port = TypeVar("Port")
SEARCH_PREFIX = "search_"

_OFF: AbstractContextManager[None] = contextlib.nullcontext()
_state: dict[str, Any] = {"tracer": None, "provider": None}


def configure_tracing(
    *, endpoint: str | None, exporter: SpanExporter | None = None, batch: bool = True
) -> bool:
    """Start tracing when an OTLP endpoint (or, in tests, an exporter) is given; whether it did.

    OpenTelemetry is imported only then, so a bot without an endpoint never loads it.
    """
    if endpoint is None and exporter is None:
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    shutdown_tracing()
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
    processor = BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
    provider.add_span_processor(processor)
    _state["provider"] = provider
    _state["tracer"] = provider.get_tracer("faultmaven")
    return True


def shutdown_tracing() -> None:
    """Send what is left and stop tracing (nothing happens when it was off)."""
    provider: TracerProvider | None = _state["provider"]
    _state["tracer"] = _state["provider"] = None
    if provider is not None:
        provider.shutdown()


def span(name: str, **attributes: Attribute) -> AbstractContextManager[Any]:
    """A child of the current span (or a new trace) named ``name``; a shared no-op when off."""
    tracer: Tracer | None = _state["tracer"]
    if tracer is None:
        return _OFF
    return _started(tracer, name, attributes)


@contextlib.contextmanager
def _started(tracer: Tracer, name: str, attributes: dict[str, Attribute]) -> Iterator[Any]:
    given = {key: value for key, value in attributes.items() if value is not None}
    with tracer.start_as_current_span(name, attributes=given) as current:
        yield current


def annotate(**attributes: Attribute) -> None:
    """Add attributes to the current span (nothing when tracing is off or no span is open)."""
    if _state["tracer"] is None:
        return
    from opentelemetry import trace

    current = trace.get_current_span()
    for key, value in attributes.items():
        if value is not None:
            current.set_attribute(key, value)


def traced_model_call(once: Call) -> Call:
    """A span around one model request ``once(self, model, messages, options)``: the model, the
    structured-output mode its options ask for, and the tokens of the completion it returns."""

    @functools.wraps(once)
    async def traced(self: object, model: str, messages: object, options: dict[str, Any]) -> Any:
        if _state["tracer"] is None:
            return await once(self, model, messages, options)
        with span("llm.call", **{"gen_ai.request.model": model, "fm.mode": _mode(options)}):
            completion = await once(self, model, messages, options)
            annotate(
                **{
                    "gen_ai.usage.input_tokens": getattr(completion, "prompt_tokens", None),
                    "gen_ai.usage.output_tokens": getattr(completion, "completion_tokens", None),
                    "gen_ai.response.finish_reasons": getattr(completion, "finish_reason", None),
                }
            )
            return completion

    return cast(Call, traced)


def _mode(options: dict[str, Any]) -> str:
    """How the call asks for structured output: a strict schema, JSON mode, a tool, or none."""
    if "tools" in options:
        return "tool_call"
    answer = options.get("response_format")
    if isinstance(answer, dict):
        return str(answer.get("type", "json"))
    return "prompted"


def traced_searches(port: Port) -> Port:
    """``port`` with a "retrieval" span around each ``search_*`` call (itself, tracing off)."""
    if _state["tracer"] is None:
        return port
    return cast(Port, _SearchSpans(port))


class _SearchSpans:
    """Delegates everything to the port it wraps; its searches run in spans."""

    def __init__(self, port: object) -> None:
        self._port = port

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._port, name)
        if not name.startswith(SEARCH_PREFIX):
            return found

        async def searched(*args: Any, **kwargs: Any) -> Any:
            with span("retrieval", **{"fm.retrieval.source": name.removeprefix(SEARCH_PREFIX)}):
                result = await found(*args, **kwargs)
                hits = getattr(result, "excerpts", None)
                annotate(**{"fm.retrieval.hits": len(hits) if hits is not None else None})
                return result

        return searched
