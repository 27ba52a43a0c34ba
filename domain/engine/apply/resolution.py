"""Applying conclusions, verified facts, the path and solutions (what people did: wrapup.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from domain.engine.context import TurnContext
from domain.engine.schemas import (
    InvestigationStateUpdate,
    ProblemVerificationUpdate,
    RootCauseConclusionUpdate,
    SolutionToAdd,
    WorkingConclusionUpdate,
)
from domain.investigation.conclusions import RootCauseConclusion, Solution, WorkingConclusion
from domain.investigation.hypotheses import UNDER_TEST, HypothesisStatus, conclude
from domain.investigation.progress import MILESTONES, MilestoneUpdates, advance_milestones
from domain.investigation.verification import (
    Change,
    InvestigationPath,
    ProblemVerification,
    determine_investigation_path,
)
from domain.lifecycle.confirmations import PathChoicePayload
from domain.safety import reads_as_command

HUMAN_MILESTONES = frozenset({"solution_applied", "solution_verified", "mitigation_applied"})
"""Things people do: the model may report them, but only a person's confirmation sets them."""
AGENT_MILESTONES = frozenset(MILESTONES) - HUMAN_MILESTONES

_SCALARS = (
    "affected_users",
    "severity",
    "user_impact",
    "temporal_state",
    "urgency_level",
    "correlation_confidence",
    "verification_confidence",
)
_TIMES = ("started_at", "noticed_at", "resolved_naturally_at")
_LISTS = ("symptom_indicators", "affected_services", "affected_regions", "urgency_factors")


def aware(moment: datetime) -> datetime:
    """A time from the model; without a zone it is taken as UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def add_solutions(ctx: TurnContext, items: Sequence[SolutionToAdd]) -> list[Solution]:
    """Proposed solutions: their actions kept, destructive or unknown commands withheld."""
    added = [_solution_from(ctx, item) for item in items]
    ctx.case.solutions.extend(added)
    return added


def _solution_from(ctx: TurnContext, item: SolutionToAdd) -> Solution:
    """People run a solution's commands themselves: actions that change state are kept.

    An entry of the command list that is prose, not a command, is kept as written as a step.
    """
    safety = ctx.log.safety
    mark = safety.mark()
    prose = [c for c in item.commands if c.strip() and not reads_as_command(c)]
    solution = Solution(
        solution_type=item.solution_type,
        title=safety.text(item.title, actions=True),
        immediate_action=safety.optional_text(item.immediate_action, actions=True),
        longterm_fix=safety.optional_text(item.longterm_fix, actions=True),
        is_mitigation=item.is_mitigation,
        implementation_steps=safety.texts([*item.implementation_steps, *prose], actions=True),
        commands=safety.actions(c for c in item.commands if reads_as_command(c)),
        risks=safety.texts(item.risks, actions=True),
        proposed_at=ctx.now,
    )
    solution.withheld_commands = safety.withheld_since(mark)
    return solution


def advance(
    ctx: TurnContext, updates: InvestigationStateUpdate, solutions: list[Solution]
) -> list[str]:
    """Agent milestones forward only; solutions and a root cause imply their milestones."""
    milestones = updates.milestones
    implied: dict[str, object] = {}
    if solutions:
        implied["solution_proposed"] = True
    conclusion = updates.root_cause_conclusion
    if conclusion is not None:
        implied["root_cause_identified"] = True
        implied["root_cause_confidence"] = conclusion.confidence_score
    merged = MilestoneUpdates.model_validate({**milestones.model_dump(), **implied})
    return advance_milestones(ctx.case.progress, merged, only=AGENT_MILESTONES)


def update_conclusions(ctx: TurnContext, updates: InvestigationStateUpdate) -> None:
    """Working conclusion and root cause, with ids resolved and unknown ones dropped."""
    if updates.working_conclusion is not None:
        _working(ctx, updates.working_conclusion)
    if updates.root_cause_conclusion is not None:
        _root_cause(ctx, updates.root_cause_conclusion)


def _known_evidence(ctx: TurnContext, refs: Sequence[str]) -> list[str]:
    resolved = [ctx.evidence_id(ref) for ref in refs]
    for ref, found in zip(refs, resolved, strict=True):
        if found is None:
            ctx.ignore(f"unknown evidence {ref} cited")
    return list(dict.fromkeys(r for r in resolved if r is not None))


def _working(ctx: TurnContext, update: WorkingConclusionUpdate) -> None:
    previous = ctx.case.working_conclusion
    safety = ctx.log.safety
    ctx.case.working_conclusion = WorkingConclusion(
        statement=safety.text(update.statement),
        confidence=update.confidence,
        reasoning=safety.text(update.reasoning, shown=False),
        supporting_evidence_ids=_known_evidence(ctx, update.supporting_evidence_ids),
        caveats=safety.texts(update.caveats),
        updated_at=ctx.now,
        supersedes_conclusion_at=previous.updated_at if previous else None,
    )


def _root_cause(ctx: TurnContext, update: RootCauseConclusionUpdate) -> None:
    hypothesis_id = ctx.hypothesis_id(update.validated_hypothesis_id)
    if update.validated_hypothesis_id and hypothesis_id is None:
        ctx.ignore(f"root cause names unknown hypothesis {update.validated_hypothesis_id}")
    safety = ctx.log.safety
    data = update.model_dump(exclude={"evidence_basis", "validated_hypothesis_id"})
    ctx.case.root_cause_conclusion = RootCauseConclusion.model_validate(
        {
            **data,
            "root_cause": safety.text(update.root_cause),
            "mechanism": safety.text(update.mechanism),
            "caveats": safety.texts(update.caveats),
            "missing_evidence": safety.texts(update.missing_evidence),
            "alternative_explanations": [
                {
                    **alternative.model_dump(),
                    "hypothesis": safety.text(alternative.hypothesis),
                    "why_less_likely": safety.text(alternative.why_less_likely),
                }
                for alternative in update.alternative_explanations
            ],
            "evidence_basis": _known_evidence(ctx, update.evidence_basis),
            "validated_hypothesis_id": hypothesis_id,
            "determined_at": ctx.now,
        }
    )
    if hypothesis_id is not None and ctx.case.hypotheses[hypothesis_id].status in UNDER_TEST:
        conclude(ctx.case.hypotheses[hypothesis_id], HypothesisStatus.VALIDATED, now=ctx.now)


def update_verification(ctx: TurnContext, update: ProblemVerificationUpdate | None) -> None:
    """Merge verified facts; lists grow without duplicates."""
    if update is None:
        return
    case = ctx.case
    if case.problem_verification is None:
        statement = case.consulting.proposed_problem_statement or case.title or "(unstated)"
        case.problem_verification = ProblemVerification(symptom_statement=statement)
    pv = case.problem_verification
    safety = ctx.log.safety
    for name in _SCALARS:
        value = getattr(update, name)
        if type(value) is str:  # free text (enums and numbers are not)
            value = safety.text(value)
        if value is not None:
            setattr(pv, name, value)
    for name in _TIMES:
        moment = getattr(update, name)
        if moment is not None:
            setattr(pv, name, aware(moment))
    for name in _LISTS:
        new = safety.texts(getattr(update, name))
        setattr(pv, name, list(dict.fromkeys([*getattr(pv, name), *new])))
    pv.recent_changes.extend(
        Change.model_validate(
            {
                **c.model_dump(),
                "description": safety.text(c.description),
                "occurred_at": aware(c.occurred_at),
            }
        )
        for c in update.recent_changes
    )
    pv.correlations.extend(update.correlations)


def select_path(ctx: TurnContext) -> None:
    """Once verification completes, the matrix picks the path; ambiguous cases ask the people."""
    case = ctx.case
    pv = case.problem_verification
    if case.path_selection is not None or pv is None or not case.progress.verification_complete:
        return
    pv.verified_at = pv.verified_at or ctx.now
    selection = determine_investigation_path(pv, ctx.now)
    case.path_selection = selection
    if selection.path is InvestigationPath.USER_CHOICE:
        ctx.propose(
            PathChoicePayload(
                path=InvestigationPath.MITIGATION_FIRST, alternate=InvestigationPath.ROOT_CAUSE
            ),
            f"{selection.rationale} Yes: mitigate first (stop the impact, then find the cause). "
            "No: root-cause analysis first.",
        )
