"""System post-processing of a model reply (investigation seed §11.10), one function per template.

The model fills a form; the system decides ids, timestamps, categories, milestones (forward only,
human actions withheld), the path, and turns every status change into a question for the people.
"""

from __future__ import annotations

from domain.engine.apply.evidence import (
    add_evidence,
    add_requests,
    classify,
    obsolete_requests,
)
from domain.engine.apply.hypotheses import (
    Refutations,
    add_hypotheses,
    link_hypotheses,
    propose_refutations,
    update_hypotheses,
)
from domain.engine.apply.resolution import (
    add_solutions,
    advance,
    select_path,
    update_conclusions,
    update_verification,
)
from domain.engine.apply.tools import request_tools
from domain.engine.apply.wrapup import propose_human_milestones, resolve_prompt
from domain.engine.context import TurnContext
from domain.engine.schemas import (
    ConsultingResponse,
    DocumentationUpdate,
    EngineReply,
    InvestigationResponse,
    StatusChangeRequest,
    TerminalResponse,
)
from domain.investigation.evidence import milestones_advanced_by
from domain.investigation.verification import ProblemConfirmation
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    DeliverablesPayload,
    ProblemStatementPayload,
    StatusChangePayload,
)
from domain.lifecycle.status import CaseStatus

_DOC_LISTS = (
    "lessons_learned",
    "what_went_well",
    "what_could_improve",
    "preventive_measures",
    "monitoring_recommendations",
)


def apply_reply(ctx: TurnContext, reply: EngineReply) -> None:
    """Apply a validated reply to the case copy in ``ctx``."""
    if isinstance(reply, ConsultingResponse):
        apply_consulting(ctx, reply)
    elif isinstance(reply, InvestigationResponse):
        apply_investigation(ctx, reply)
    else:
        apply_terminal(ctx, reply)


def apply_consulting(ctx: TurnContext, reply: ConsultingResponse) -> None:
    """Triage, quick suggestions, a problem statement to confirm, requested status changes."""
    updates = reply.state_updates
    consulting = ctx.case.consulting
    if updates.problem_confirmation is not None and not consulting.problem_statement_confirmed:
        consulting.problem_confirmation = ProblemConfirmation.model_validate(
            {**updates.problem_confirmation.model_dump(), "created_at": ctx.now}
        )
    # Shown under the answer (a line to try now): what is withheld from them is announced.
    suggestions = ctx.log.safety.texts(updates.quick_suggestions)
    consulting.quick_suggestions = list(
        dict.fromkeys([*consulting.quick_suggestions, *suggestions])
    )
    if updates.proposed_problem_statement:
        propose_statement(ctx, ctx.log.safety.text(updates.proposed_problem_statement.strip()))
    request_status_change(ctx, updates.status_change_request)


def propose_statement(ctx: TurnContext, statement: str) -> None:
    """Ask to confirm a (new or revised) problem statement; accepting starts the investigation."""
    consulting = ctx.case.consulting
    if consulting.problem_statement_confirmed:
        ctx.ignore("the problem statement is already confirmed and cannot change")
        return
    pending = [
        c for c in ctx.case.pending_confirmations() if c.kind is ConfirmationKind.PROBLEM_STATEMENT
    ]
    if pending and consulting.proposed_problem_statement == statement:
        return
    if consulting.problem_confirmation is None:
        consulting.problem_confirmation = ProblemConfirmation(
            problem_type="unclassified", severity_guess="UNKNOWN", created_at=ctx.now
        )
    ctx.propose(
        ProblemStatementPayload(statement=statement, and_investigate=True),
        f"Is this the problem to investigate? *{statement}*",
    )


def apply_investigation(ctx: TurnContext, reply: InvestigationResponse) -> None:
    """The big form, in the order that keeps inferences right (seed §11.10)."""
    updates = reply.state_updates
    before = ctx.case.progress.model_copy()
    add_hypotheses(ctx, updates.hypotheses_to_add)
    evidence = add_evidence(ctx, updates.evidence_to_add, progress=before)
    solutions = add_solutions(ctx, updates.solutions_to_add)
    update_conclusions(ctx, updates)
    newly = advance(ctx, updates, solutions)
    for item in evidence:
        item.advances_milestones = milestones_advanced_by(item.category, newly)
    update_verification(ctx, updates.verification_updates)
    select_path(ctx)
    refutations = Refutations()
    update_hypotheses(ctx, updates.hypotheses_to_update, refutations)
    link_hypotheses(ctx, updates.hypothesis_evidence_links, refutations)
    propose_refutations(ctx, refutations)
    propose_human_milestones(ctx, updates)
    obsolete_requests(ctx, updates.obsolete_request_ids)
    classify(ctx, updates.classification, evidence)
    add_requests(ctx, updates.evidence_requests)
    request_tools(ctx, updates.tool_requests, updates.evidence_requests)
    request_status_change(ctx, updates.status_change_request)


def apply_terminal(ctx: TurnContext, reply: TerminalResponse) -> None:
    """A finished case only takes documentation, and offers documents people ask for."""
    update = reply.state_updates.documentation_updates
    if update is None:
        return
    _merge_documentation(ctx, update)
    if update.documents_to_generate:
        documents = list(dict.fromkeys(update.documents_to_generate))
        names = ", ".join(d.value.replace("_", " ") for d in documents)
        ctx.propose(
            DeliverablesPayload(documents=documents),
            f"Shall I generate the {names} and save it to the knowledge base?",
        )


def _merge_documentation(ctx: TurnContext, update: DocumentationUpdate) -> None:
    documentation = ctx.case.documentation
    for name in _DOC_LISTS:
        new = ctx.log.safety.texts(getattr(update, name))
        setattr(documentation, name, list(dict.fromkeys([*getattr(documentation, name), *new])))


def request_status_change(ctx: TurnContext, request: StatusChangeRequest | None) -> None:
    """A person asked for a status change: ask them to confirm it (never applied here)."""
    if request is None:
        return
    if ctx.turn.tool_results:  # only tools spoke this turn: their text never asks for a status
        ctx.ignore("status change asked in a turn that read tool results")
        return
    statement_pending = any(
        c.kind is ConfirmationKind.PROBLEM_STATEMENT for c in ctx.case.pending_confirmations()
    )
    if request.to_status is CaseStatus.INVESTIGATING and statement_pending:
        return  # confirming the statement already starts the investigation
    if request.to_status is CaseStatus.RESOLVED and _resolving(ctx):
        return  # the mitigation that worked already asks to resolve, in one question
    # The summary becomes the recorded fix once accepted: it is checked like any text shown.
    payload = StatusChangePayload(
        to_status=request.to_status,
        closure_reason=request.closure_reason,
        reason=ctx.log.safety.text(request.reason),
        resolution_summary=ctx.log.safety.optional_text(request.resolution_summary),
    )
    asked = ctx.propose(payload, status_change_prompt(ctx, payload))
    if asked is not None and payload.to_status is CaseStatus.RESOLVED:
        # One question: resolving on their word answers "did it fix it?" too.
        for earlier in ctx.log.proposed:
            if earlier.is_pending and earlier.kind is ConfirmationKind.SOLUTION_VERIFIED:
                earlier.state = ConfirmationState.SUPERSEDED


def _resolving(ctx: TurnContext) -> bool:
    """Whether this turn already asks to resolve the case."""
    return any(
        c.is_pending
        and isinstance(c.payload, StatusChangePayload)
        and c.payload.to_status is CaseStatus.RESOLVED
        for c in ctx.log.proposed
    )


def status_change_prompt(ctx: TurnContext, payload: StatusChangePayload) -> str:
    """The question for a status change, as the seed words it per target status."""
    case = ctx.case
    problem = (
        case.problem_verification.symptom_statement
        if case.problem_verification
        else case.consulting.proposed_problem_statement or case.title
    )
    if payload.to_status is CaseStatus.INVESTIGATING:
        return f"You asked me to investigate: *{problem}* Is this the problem to investigate?"
    if payload.to_status is CaseStatus.RESOLVED:
        return resolve_prompt(ctx, payload)
    findings = case.working_conclusion.statement if case.working_conclusion else "limited data"
    return (
        f"Close this case without a resolution? Problem: {problem} · Findings so far: {findings}. "
        "The findings are kept."
    )
