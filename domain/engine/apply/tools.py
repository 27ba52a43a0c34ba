"""The tool runs a reply asks for, kept with the case: pending a person's Run, or trusted.

A request must name a tool of this turn's catalogue with arguments that are one JSON object;
anything else is one sentence for the people and the model, and nothing is kept. A trusted
server's run is approved at once, except after `MAX_ROUNDS` rounds of runs without a person
writing: then it waits for a click like any other. The same run is never asked twice while open.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from domain.engine.context import TurnContext
from domain.engine.schemas import MAX_TOOL_REQUESTS, EvidenceRequestToAdd
from domain.tools.requests import ToolRequest, resolve
from domain.tools.runs import TRUST, ToolRun, consent

MAX_ROUNDS = 3
"""Rounds of trusted runs (each followed by a turn) before a person must click Run again."""
MAX_REASON_CHARS = 300


def request_tools(
    ctx: TurnContext,
    requests: Sequence[ToolRequest],
    attached: Sequence[EvidenceRequestToAdd] = (),
) -> list[ToolRun]:
    """Keep the runs the reply asks for (alone, or attached to its evidence requests)."""
    wanted: list[tuple[ToolRequest, str | None]] = [(r, None) for r in requests]
    for item in attached:
        if item.tool is not None:
            wanted.append((item.tool, _request_id(ctx, item.label)))
    added: list[ToolRun] = []
    for request, request_id in wanted[:MAX_TOOL_REQUESTS]:
        run = _run(ctx, request, request_id)
        if run is not None:
            added.append(run)
    return added


def _run(ctx: TurnContext, request: ToolRequest, request_id: str | None) -> ToolRun | None:
    if not ctx.turn.tools:
        ctx.ignore(f"tool run {request.name} asked for with no tools configured")
        return None
    resolved = resolve(request, ctx.turn.tools)
    if isinstance(resolved, str):
        ctx.log.notes.append(f"Not run: {resolved}")
        return None
    spec = resolved.spec
    arguments = json.dumps(resolved.arguments, ensure_ascii=False, sort_keys=True)
    for open_run in (r for r in ctx.case.tool_runs if r.is_open):
        if (open_run.server, open_run.tool, open_run.arguments) == (
            spec.server,
            spec.tool,
            arguments,
        ):
            ctx.ignore(f"tool run {request.name} repeats an open run")
            return None
    run = ToolRun(
        number=len(ctx.case.tool_runs) + 1,
        server=spec.server,
        tool=spec.tool,
        arguments=arguments,
        reason=ctx.log.safety.text(request.reason)[:MAX_REASON_CHARS],
        request_id=request_id,
        turn=ctx.case.current_turn,
    )
    if spec.trusted and ctx.turn.tool_round < MAX_ROUNDS:
        consent(run, by=TRUST)
    ctx.case.tool_runs.append(run)
    return run


def _request_id(ctx: TurnContext, label: str) -> str | None:
    """The open evidence request of that label (just added, or asked earlier)."""
    wanted = label.casefold()
    for request in reversed(ctx.case.evidence_requests):
        if request.is_open and request.label.casefold() == wanted[:100]:
            return request.request_id
    return None
