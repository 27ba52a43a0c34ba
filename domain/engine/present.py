"""Building the reply view model from a case and what the turn did."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from domain.case import Case
from domain.engine.context import TurnLog
from domain.engine.summary import call_to_action, summary_view
from domain.engine.view import (
    ConclusionView,
    ConfirmationPrompt,
    DebugInfo,
    DocumentView,
    EscalationOption,
    EscalationView,
    EvidenceView,
    HypothesisView,
    RemovedCommand,
    ReplyKind,
    RequestCard,
    RootCauseView,
    SolutionView,
    StepView,
    ToolRunCard,
    TurnReply,
)
from domain.investigation.conclusions import AGENT, Solution, rubric_band
from domain.investigation.evidence_requests import EvidenceRequest, EvidenceStatus
from domain.investigation.hypotheses import HypothesisStatus
from domain.knowledge import Citation
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    PendingConfirmation,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.special_states import DegradedMode
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.steps import undoable
from domain.people import mention
from domain.tools.runs import ToolRun

_HIDDEN_HYPOTHESES = frozenset({HypothesisStatus.REFUTED, HypothesisStatus.RETIRED})
_YES_NO = [Decision.YES, Decision.NO]
OPTIONS: dict[ConfirmationKind, list[Decision]] = {
    ConfirmationKind.REFUTATION: [Decision.YES, Decision.NO, Decision.UNSURE],
}


@dataclass(frozen=True)
class Seen:
    """What the case held before the turn, so the reply shows only what is new or changed."""

    requests: frozenset[str] = frozenset()
    solutions: frozenset[str] = frozenset()
    pending: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    suggestions: frozenset[str] = frozenset()
    stuck_said: bool = False
    """A reply already said the case is stuck, with its ways out (this one refers to it)."""
    conclusions: tuple[str, str, str] | None = None
    """How the hypotheses, the working conclusion and the root cause read before (None: not
    known, so they are shown). The living summary keeps them; a reply repeats none unchanged."""


def _conclusions(case: Case) -> tuple[str, str, str]:
    wc = case.working_conclusion
    working = ConclusionView(statement=wc.statement, confidence=wc.confidence) if wc else None
    root = root_cause_view(case)
    return (
        "|".join(h.model_dump_json() for h in hypotheses_view(case)),
        working.model_dump_json() if working else "",
        root.model_dump_json() if root else "",
    )


def seen(case: Case) -> Seen:
    """Capture what the case held before the turn."""
    return Seen(
        requests=frozenset(r.request_id for r in case.evidence_requests),
        solutions=frozenset(s.solution_id for s in case.solutions),
        pending=frozenset(c.confirmation_id for c in case.pending_confirmations()),
        tools=frozenset(r.run_id for r in case.tool_runs),
        suggestions=frozenset(case.consulting.quick_suggestions),
        stuck_said=case.degraded_mode is not None
        and case.degraded_mode.is_active
        and case.degraded_mode.said_at is not None,
        conclusions=_conclusions(case),
    )


def confirmation_prompt(
    confirmation: PendingConfirmation, case: Case | None = None
) -> ConfirmationPrompt:
    """A confirmation with the buttons its kind needs; a refutation is asked quietly while the
    mitigation is the call to action (in ``case``)."""
    payload = confirmation.payload
    quiet = confirmation.kind is ConfirmationKind.REFUTATION and (
        case is not None and call_to_action(case) is not None
    )
    return ConfirmationPrompt(
        confirmation_id=confirmation.confirmation_id,
        kind=confirmation.kind,
        prompt=confirmation.prompt,
        options=list(OPTIONS.get(confirmation.kind, _YES_NO)),
        to_status=payload.to_status if isinstance(payload, StatusChangePayload) else None,
        quiet=quiet,
    )


def request_card(request: EvidenceRequest) -> RequestCard:
    """An evidence request as a card."""
    guidance = request.guidance
    return RequestCard(
        request_id=request.request_id,
        label=request.label,
        description=request.description,
        category=request.category,
        criticality=request.criticality,
        status=request.status,
        commands=list(guidance.commands),
        file_locations=list(guidance.file_locations),
        ui_locations=list(guidance.ui_locations),
        alternatives=list(guidance.alternatives),
        prerequisites=list(guidance.prerequisites),
        expected_output=guidance.expected_output,
    )


def step_view(case: Case, confirmation: PendingConfirmation) -> StepView | None:
    """A recorded solution step as shown (None if it is not one)."""
    payload = confirmation.payload
    if not isinstance(payload, SolutionAppliedPayload | SolutionVerifiedPayload):
        return None
    solution = case.find_solution(payload.solution_id)
    return StepView(
        confirmation_id=confirmation.confirmation_id,
        solution_id=payload.solution_id,
        title=solution.title if solution else "",
        verified=isinstance(payload, SolutionVerifiedPayload),
        by=confirmation.answered_by or confirmation.proposed_by,
        at=confirmation.answered_at,
        undoable=undoable(case, confirmation),
        undone_by=confirmation.undone_by,
    )


def _applied_step(case: Case, solution: Solution) -> StepView | None:
    """The step recording that ``solution`` was applied (its newest answer)."""
    for confirmation in reversed(case.confirmations):
        payload = confirmation.payload
        if (
            isinstance(payload, SolutionAppliedPayload)
            and payload.solution_id == solution.solution_id
            and confirmation.state in (ConfirmationState.ACCEPTED, ConfirmationState.UNDONE)
        ):
            return step_view(case, confirmation)
    return None


def solution_view(solution: Solution, case: Case | None = None) -> SolutionView:
    """A solution as shown; with its ``case``, a mitigation's card says whether it is still
    offered (its buttons) and who applied it (with Undo while that can be taken back)."""
    running = case is not None and case.status is CaseStatus.INVESTIGATING
    offered = running and solution.is_mitigation and solution.applied_at is None
    applied = _applied_step(case, solution) if case is not None and solution.is_mitigation else None
    return SolutionView(
        offered=offered,
        deferred_by=solution.deferred_by,
        applied=applied if solution.applied_at is not None else None,
        solution_id=solution.solution_id,
        title=solution.title,
        is_mitigation=solution.is_mitigation,
        state=solution.state,
        immediate_action=solution.immediate_action,
        longterm_fix=solution.longterm_fix,
        implementation_steps=list(solution.implementation_steps),
        commands=list(solution.commands),
        risks=list(solution.risks),
    )


def root_cause_view(case: Case) -> RootCauseView | None:
    """The root cause with confidence, supporting and missing evidence."""
    rc = case.root_cause_conclusion
    if rc is None:
        return None
    supporting = [case.find_evidence(e) for e in rc.evidence_basis]
    return RootCauseView(
        root_cause=rc.root_cause,
        mechanism=rc.mechanism,
        confidence_score=rc.confidence_score,
        confidence_level=rc.confidence_level,
        rubric=rubric_band(rc.confidence_score),
        supporting_evidence=[
            EvidenceView(evidence_id=e.evidence_id, summary=e.summary) for e in supporting if e
        ],
        missing_evidence=list(rc.missing_evidence),
        alternative_explanations=[
            f"{a.hypothesis} ({a.confidence:.0%}): {a.why_less_likely}"
            for a in rc.alternative_explanations
        ],
        caveats=list(rc.caveats),
    )


def escalation_view(case: Case, *, said: bool = False) -> EscalationView | None:
    """Fallback options while degraded, with what to share when escalating (``said``: an
    earlier reply said it, so this one refers to it in a line)."""
    degraded = case.degraded_mode
    if degraded is None or not degraded.is_active:
        return None
    problem = case.problem_verification
    share = [f"Problem: {problem.symptom_statement}" if problem else f"Case: {case.title}"]
    if problem is not None and problem.started_at is not None:
        share.append(f"Started: {problem.started_at.isoformat(timespec='minutes')}")
    leading = hypotheses_view(case)[:1]
    if case.working_conclusion is not None:
        share.append(f"Current understanding: {case.working_conclusion.statement}")
    elif leading:
        share.append(f"Leading hypothesis ({leading[0].likelihood:.0%}): {leading[0].statement}")
    share.extend(
        f"Blocked: {r.label}" for r in case.evidence_requests if r.status is EvidenceStatus.BLOCKED
    )
    share.append("This thread's history")
    return EscalationView(
        mode=degraded.mode_type,
        reason=degraded.reason,
        recommended=degraded.escalation_recommended,
        options=list(EscalationOption),
        share=share,
        said=said,
        key=stuck_key(degraded),
        chosen=chosen_line(degraded),
    )


def stuck_key(degraded: DegradedMode) -> str:
    """What the message saying the case is stuck is remembered under (one per time stuck)."""
    return f"stuck:{degraded.entered_at.isoformat()}"


def chosen_line(degraded: DegradedMode) -> str | None:
    """Who chose which way out, last."""
    if degraded.chosen is None:
        return None
    return f"{mention(degraded.chosen_by)} chose: {degraded.chosen.label}"


def stuck_now(case: Case, view: EscalationView) -> EscalationView:
    """The stuck message as the case has it now: its buttons live only while the case is still
    stuck (the same time) and not finished; the way out chosen since, if any."""
    degraded = case.degraded_mode
    same = degraded is not None and stuck_key(degraded) == view.key
    live = same and degraded is not None and degraded.is_active and not case.is_terminal
    chosen = chosen_line(degraded) if same and degraded is not None else view.chosen
    return view.model_copy(update={"open": live, "chosen": chosen})


def hypotheses_view(case: Case) -> list[HypothesisView]:
    """Hypotheses still in play, most likely first."""
    shown = [h for h in case.hypotheses.values() if h.status not in _HIDDEN_HYPOTHESES]
    return [
        HypothesisView(
            hypothesis_id=h.hypothesis_id,
            statement=h.statement,
            category=h.category,
            status=h.status,
            likelihood=h.likelihood,
        )
        for h in sorted(shown, key=lambda h: -h.likelihood)
    ]


@dataclass(frozen=True)
class ReplyParts:
    """What the turn produced besides the case itself."""

    kind: ReplyKind
    text: str
    log: TurnLog = field(default_factory=TurnLog)
    citations: Sequence[Citation] = ()
    documents: Sequence[DocumentView] = ()
    debug: DebugInfo = field(default_factory=DebugInfo)


def tool_card(run: ToolRun) -> ToolRunCard:
    """A tool run as its card shows it."""
    return ToolRunCard.model_validate(
        run.model_dump(
            include={
                "run_id",
                "request_id",
                "number",
                "server",
                "tool",
                "arguments",
                "reason",
                "status",
                "consented_by",
                "outcome",
                "sentence",
                "citation",
            }
        )
    )


def build_reply(case: Case, before: Seen, parts: ReplyParts) -> TurnReply:
    """The reply for a turn: new items, conclusions that changed, summary, notices, debug info."""
    wc = case.working_conclusion
    now = _conclusions(case)
    was = before.conclusions
    changed = [was is None or was[i] != now[i] for i in range(3)]
    return TurnReply(
        kind=parts.kind,
        text=parts.text,
        notices=_notices(parts.log),
        evidence_requests=[
            request_card(r) for r in case.evidence_requests if r.request_id not in before.requests
        ],
        confirmations=[confirmation_prompt(c, case) for c in parts.log.proposed if c.is_pending],
        tool_runs=[tool_card(r) for r in case.tool_runs if r.run_id not in before.tools],
        superseded_confirmation_ids=[
            c.confirmation_id
            for c in case.confirmations
            if c.confirmation_id in before.pending and c.state is ConfirmationState.SUPERSEDED
        ],
        hypotheses=hypotheses_view(case) if changed[0] else [],
        working_conclusion=ConclusionView(statement=wc.statement, confidence=wc.confidence)
        if wc and changed[1]
        else None,
        root_cause=root_cause_view(case) if changed[2] else None,
        solutions=[
            solution_view(s, case)
            for s in case.solutions
            # A fix a person described is their own words: the summary keeps it, not a card.
            if s.solution_id not in before.solutions and s.proposed_by == AGENT
        ],
        recorded=[v for c in parts.log.recorded if (v := step_view(case, c)) is not None],
        citations=list(parts.citations),
        # Said by a turn's answer; a click's note or a failure leaves it to the turns.
        escalation=escalation_view(case, said=before.stuck_said)
        if parts.kind in (ReplyKind.ANSWER, ReplyKind.NO_LLM)
        else None,
        documents=list(parts.documents),
        suggestions=[s for s in case.consulting.quick_suggestions if s not in before.suggestions],
        summary=summary_view(case),
        debug=_debug(parts),
    )


def _notices(log: TurnLog) -> list[str]:
    notices = list(log.notes)
    withheld = log.safety.notice()
    return [*notices, withheld] if withheld else notices


def _debug(parts: ReplyParts) -> DebugInfo:
    removed = parts.log.safety.removed
    return parts.debug.model_copy(
        update={
            "unsafe_commands_removed": len(removed),
            "removed_commands": [
                RemovedCommand(command=v.command, safety=v.safety.value, reason=v.reason)
                for v in removed
            ],
            "ignored": list(parts.log.ignored),
        }
    )
