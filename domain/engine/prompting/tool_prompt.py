"""What the model reads about the team's tools: the catalogue, runs waiting, runs that finished.

The catalogue (name, description, input schema) is trimmed to a budget so a server with many
tools cannot fill the prompt; what did not fit is counted. Finished runs are told in one line
each in the newest input; their output is quoted with the evidence (`briefing`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from domain.case import Case
from domain.engine.inputs import ToolRunResult
from domain.tools.policy import ToolSpec
from domain.tools.runs import ToolRunStatus

CATALOGUE_CHARS = 8_000
DESCRIPTION_CHARS = 400
SCHEMA_CHARS = 1_200


def catalogue_text(tools: Sequence[ToolSpec], case: Case, *, budget: int = CATALOGUE_CHARS) -> str:
    """The tools, one entry each, within ``budget`` characters; then the runs still waiting."""
    entries: list[str] = []
    left = budget
    for spec in tools:
        entry = _entry(spec)
        if len(entry) + 1 > left:
            break
        entries.append(entry)
        left -= len(entry) + 1
    if len(entries) < len(tools):
        entries.append(f"({len(tools) - len(entries)} more tools left out for space.)")
    waiting = [
        f"- waiting: {r.server}__{r.tool} {r.arguments} ({r.status.value})"
        for r in case.tool_runs
        if r.status in (ToolRunStatus.PENDING, ToolRunStatus.APPROVED)
    ]
    if waiting:
        entries += ["Runs already asked for:", *waiting]
    return "\n".join(entries)


def results_lines(results: Sequence[ToolRunResult]) -> list[str]:
    """One line per run that finished since the last turn, for the newest input."""
    return [
        f"Tool run {r.citation}: {r.label} {r.arguments} — {r.outcome.value}. {r.sentence}"
        for r in results
    ]


def _entry(spec: ToolSpec) -> str:
    description = " ".join(spec.description.split())[:DESCRIPTION_CHARS]
    schema = json.dumps(spec.input_schema, ensure_ascii=False, sort_keys=True)
    if len(schema) > SCHEMA_CHARS:
        schema = schema[:SCHEMA_CHARS] + "… (cut)"
    return f"- `{spec.name}`: {description}\n  input schema: {schema}"
