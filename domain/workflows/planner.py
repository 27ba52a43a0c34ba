"""The alert RCA use case: facts → independent RCA → catalog search → strategies → validation.

The seed's phases in order: the model investigates and concludes first (its own signal type and
severity), the system searches the catalog with that query and the business labels as filters,
the model chooses among the workflows found and fills their parameters, and the validator decides
whether anything may be offered. Model failures never raise: the outcome says what happened.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from pydantic import BaseModel

from domain.engine.apply.scrub import SafetyLog
from domain.investigation.evidence_requests import AcquisitionGuidance
from domain.llm import (
    LLMPort,
    LLMRefusedError,
    LLMReplyInvalidError,
    LLMUnavailableError,
    ModelTier,
)
from domain.ports import Clock
from domain.workflows.catalog import Catalog, LabelFilters, RcaSeverity, Workflow
from domain.workflows.incident import IncidentContext
from domain.workflows.ports import WorkflowIndex
from domain.workflows.prompts import (
    WorkflowPrompt,
    catalog_query,
    investigation_prompt,
    selection_prompt,
)
from domain.workflows.rca import RcaFindings, RcaReply
from domain.workflows.validation import Validation, validate_reply

logger = logging.getLogger(__name__)

SEARCH_LIMIT = 5
LOGGED_REPLY_CHARS = 4000
SCHEMA_PROBLEM = "the reply did not match the response schema (JSON structure or required fields)"
MODEL_FAILED = "The model could not be reached or did not answer in time, so there is no analysis."
SELECTION_FAILED = "The model failed while choosing workflows, so none is offered."
INVALID_TWICE = "The model answered with something I could not use, twice, so there is no analysis."


def failure_note(error: Exception, *, consequence: str = "there is no analysis") -> str:
    """One plain sentence: what happened at the model (a refusal named), and what to do."""
    if isinstance(error, LLMRefusedError):
        happened, todo = error.explain()
        return f"{happened[0].upper()}{happened[1:]}, so {consequence}; {todo}."
    if isinstance(error, LLMReplyInvalidError):
        return INVALID_TWICE
    return MODEL_FAILED


class OutcomeKind(StrEnum):
    """How an analysis ended."""

    STRATEGIES = "strategies"
    """Validated strategies to offer for approval."""
    RCA_ONLY = "rca_only"
    """The analysis is shown; the strategies failed validation (logged), none is offered."""
    NO_WORKFLOWS = "no_workflows"
    """The analysis is shown; the catalog had nothing for it."""
    NO_LLM = "no_llm"
    """No model: the facts and the catalog's workflows for the signal, nothing to approve."""
    FAILED = "failed"
    """The model failed before any analysis."""


@dataclass(frozen=True)
class RcaOutcome:
    """Everything the thread and the audit log need about one analysis."""

    kind: OutcomeKind
    query: str
    filters: LabelFilters
    offered: list[Workflow] = field(default_factory=list)
    findings: RcaFindings | None = None
    reply: RcaReply | None = None
    validation: Validation | None = None
    problems: list[str] = field(default_factory=list)
    note: str | None = None

    @property
    def severity(self) -> RcaSeverity | None:
        """The RCA severity (the final reply's, else the findings')."""
        source = self.reply or self.findings
        return source.rca_severity if source else None


class RcaPlanner:
    """Runs the analysis of one incident; ports come in through the constructor."""

    def __init__(
        self,
        *,
        llm: LLMPort,
        index: WorkflowIndex | None,
        catalog: Catalog,
        clock: Clock,
        limit: int = SEARCH_LIMIT,
    ) -> None:
        self._llm = llm
        self._index = index
        self._catalog = catalog
        self._clock = clock
        self._limit = limit

    async def analyse(self, context: IncidentContext, *, case_id: str) -> RcaOutcome:
        """The whole analysis; the outcome's kind says how far it got."""
        filters = context.business
        if not self._llm.enabled:
            known = context.severity in {s.value for s in RcaSeverity}
            query = f"{context.signal_type} {context.severity}" if known else context.signal_type
            offered = await self.search(query, filters)
            return RcaOutcome(OutcomeKind.NO_LLM, query, filters, offered)
        try:
            findings = await self._ask(investigation_prompt(context, clock=self._clock), case_id)
        except (LLMUnavailableError, LLMReplyInvalidError) as error:
            logger.warning("RCA failed", extra={"case_id": case_id, "error": type(error).__name__})
            return RcaOutcome(OutcomeKind.FAILED, "", filters, note=failure_note(error))
        assert isinstance(findings, RcaFindings)
        findings = safe_findings(findings)
        query = catalog_query(findings)
        offered = await self.search(query, filters)
        if not offered:
            return RcaOutcome(OutcomeKind.NO_WORKFLOWS, query, filters, findings=findings)
        return await self._select(context, findings, offered, case_id=case_id)

    async def search(self, query: str, filters: LabelFilters) -> list[Workflow]:
        """Catalog workflows for the query that the label filters allow, best first."""
        if self._index is None or not len(self._catalog):
            return []
        matches = await self._index.search(query=query, filters=filters, limit=self._limit)
        found = [self._catalog.get(m.workflow_id, m.version) for m in matches]
        return [w for w in found if w is not None and _allowed(w, filters)]

    async def _select(
        self,
        context: IncidentContext,
        findings: RcaFindings,
        offered: list[Workflow],
        *,
        case_id: str,
    ) -> RcaOutcome:
        query, filters = catalog_query(findings), context.business
        base = RcaOutcome(OutcomeKind.RCA_ONLY, query, filters, offered, findings)
        prompt = selection_prompt(context, findings, offered, filters=filters, clock=self._clock)
        try:
            reply = await self._ask(prompt, case_id)
        except LLMReplyInvalidError:
            _log_invalid(case_id, [SCHEMA_PROBLEM], None)
            return replace(base, problems=[SCHEMA_PROBLEM])
        except LLMRefusedError as refused:
            return replace(base, note=failure_note(refused, consequence="no workflow is offered"))
        except LLMUnavailableError:
            return replace(base, note=SELECTION_FAILED)
        assert isinstance(reply, RcaReply)
        original, reply = reply, safe_reply(reply)
        validation = validate_reply(reply, offered)
        if not validation.ok:
            problems = [p.describe() for p in validation.problems]
            _log_invalid(case_id, problems, original)
            return replace(base, reply=reply, validation=validation, problems=problems)
        return replace(base, kind=OutcomeKind.STRATEGIES, reply=reply, validation=validation)

    async def _ask(self, prompt: WorkflowPrompt, case_id: str) -> BaseModel:
        return await self._llm.structured(
            tier=ModelTier.MAIN,
            messages=prompt.messages,
            schema=prompt.schema,
            template=prompt.template,
            template_hash=prompt.template_hash,
            case_id=case_id,
        )


def safe_findings(findings: RcaFindings) -> RcaFindings:
    """The findings as people may see them: no unsafe command in any text the model wrote.

    Suggested checks are shown to run, so one holding an unsafe command is dropped; in the other
    texts an unsafe command is replaced by a note.
    """
    log = SafetyLog()
    checks = log.guidance(AcquisitionGuidance(alternatives=findings.evidence_to_confirm))
    return findings.model_copy(
        update={
            "analysis_summary": log.text(findings.analysis_summary),
            "root_cause_assessment": log.text(findings.root_cause_assessment),
            "severity_rationale": log.text(findings.severity_rationale),
            "contributing_factors": log.texts(findings.contributing_factors),
            "evidence_to_confirm": checks.alternatives,
        }
    )


def safe_reply(reply: RcaReply) -> RcaReply:
    """The authoritative reply with every unsafe command in its texts replaced by a note."""
    log = SafetyLog()
    strategies = [
        s.model_copy(update={"rationale": log.text(s.rationale)}) for s in reply.strategies
    ]
    used = reply.context_used
    context_used = used.model_copy(
        update={name: log.text(getattr(used, name)) for name in type(used).model_fields}
    )
    return reply.model_copy(
        update={
            "analysis_summary": log.text(reply.analysis_summary),
            "root_cause_assessment": log.text(reply.root_cause_assessment),
            "warnings": log.texts(reply.warnings),
            "strategies": strategies,
            "context_used": context_used,
        }
    )


def _allowed(workflow: Workflow, filters: LabelFilters) -> bool:
    """The label filters hold (the index applies them too; this keeps the core honest)."""
    return all(workflow.labels.accepts(label, value) for label, value in filters.items())


def _log_invalid(case_id: str, problems: Sequence[str], reply: RcaReply | None) -> None:
    """The seed: log the validation error with details and the original reply, execute nothing."""
    original = reply.model_dump_json()[:LOGGED_REPLY_CHARS] if reply is not None else None
    logger.warning(
        "RCA reply failed validation; no workflow offered",
        extra={"case_id": case_id, "problems": list(problems), "reply": original},
    )
