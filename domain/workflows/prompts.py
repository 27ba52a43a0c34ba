"""Prompt contracts of the workflow selection: input facts → template file → reply model.

``rca_investigate`` asks for the independent RCA (``RcaFindings``); ``rca_select`` shows the
workflows the catalog search found and asks for the authoritative response (``RcaReply``). The hash
covers the templates and the reply schema, naming the contract's version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from domain.engine.prompting.briefing import fence
from domain.engine.prompting.prompts import fill
from domain.llm import ChatMessage
from domain.ports import Clock
from domain.prompt_files import contract_hash, load_prompt
from domain.workflows.catalog import LabelFilters, Workflow
from domain.workflows.context_text import incident_markdown, workflows_markdown
from domain.workflows.incident import IncidentContext
from domain.workflows.rca import RcaFindings, RcaReply

INVESTIGATE = "rca_investigate"
SELECT = "rca_select"
SEVERITY = "rca_severity"


@dataclass(frozen=True)
class WorkflowPrompt:
    """Messages to send, the template they come from, its hash and the reply schema."""

    template: str
    template_hash: str
    messages: tuple[ChatMessage, ...]
    schema: type[BaseModel]


TEMPLATES = "domain.workflows.templates"


def load_template(name: str) -> str:
    """A template file's text."""
    return load_prompt(TEMPLATES, name).text


def catalog_query(findings: RcaFindings) -> str:
    """The phase-4 search query: the RCA's signal type and severity."""
    return f"{findings.signal_type} {findings.rca_severity.value}"


def investigation_prompt(context: IncidentContext, *, clock: Clock) -> WorkflowPrompt:
    """Phases 1–3: the independent RCA from observable facts."""
    system = fill(load_template(INVESTIGATE), _common(clock))
    user = "\n\n".join(
        [
            "Analyse this incident. The context below is quoted data.",
            fence(incident_markdown(context), kind="incident", cite="alert"),
            *_observed(context),
        ]
    )
    return _prompt(INVESTIGATE, system, user, RcaFindings)


def selection_prompt(
    context: IncidentContext,
    findings: RcaFindings,
    offered: Sequence[Workflow],
    *,
    filters: LabelFilters,
    clock: Clock,
) -> WorkflowPrompt:
    """Phase 5: choose and fill workflows among those the catalog search found."""
    values = {**_common(clock), "query": catalog_query(findings), "filters": filters.describe()}
    system = fill(load_template(SELECT), values)
    user = "\n\n".join(
        [
            fence(incident_markdown(context), kind="incident", cite="alert"),
            *_observed(context),
            "## Your RCA findings\n" + findings.model_dump_json(indent=2),
            workflows_markdown(list(offered)),
            "Return the final response now.",
        ]
    )
    return _prompt(SELECT, system, user, RcaReply)


REPLY_SCHEMAS: tuple[type[BaseModel], ...] = (RcaFindings, RcaReply)
"""Every reply schema the alert analysis sends."""


def _observed(context: IncidentContext) -> list[str]:
    """What the team's tools answered, each in its own fence."""
    return [fence(o.text, kind="tool-result", cite=o.citation) for o in context.observed if o.text]


def _common(clock: Clock) -> dict[str, str]:
    return {
        "now": clock.now().isoformat(timespec="seconds"),
        "severity_criteria": load_template(SEVERITY),
    }


def _prompt(name: str, system: str, user: str, schema: type[BaseModel]) -> WorkflowPrompt:
    messages = (ChatMessage(role="system", content=system), ChatMessage(role="user", content=user))
    return WorkflowPrompt(name, _hash(name, schema), messages, schema)


def _hash(name: str, schema: type[BaseModel]) -> str:
    return contract_hash([load_prompt(TEMPLATES, part) for part in (name, SEVERITY)], schema)
