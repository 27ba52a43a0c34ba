"""The wrap-up: what people did about a solution, recorded in their words, and what follows.

A person who writes that they applied a mitigation (the model reports it) has answered already:
it is recorded in their name, with an Undo, not asked again. When their data shows it worked,
that is recorded too, and one question follows: resolve the case and write the report, or keep it
open. Someone whose word does not count here (not a responder) is asked, as before.
"""

from __future__ import annotations

from domain.engine.context import TurnContext
from domain.engine.schemas import InvestigationStateUpdate
from domain.errors import DomainError
from domain.investigation.conclusions import Solution
from domain.lifecycle.confirmations import (
    ConfirmationState,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.decisions import AnswerResult, is_responder
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.steps import StepPayload, record_step

FIX_CHARS = 160
"""How much of a fix's words a question quotes: the summary shows the rest."""


def propose_human_milestones(ctx: TurnContext, updates: InvestigationStateUpdate) -> None:
    """Applied/verified reports: recorded for the person who wrote (then what follows is asked),
    else put to the people as questions about the named solution."""
    milestones = updates.milestones
    reported = bool(milestones.solution_applied or milestones.mitigation_applied)
    applied = _solution(
        ctx,
        updates.applied_solution_id,
        wanted=reported,
        mitigation=bool(milestones.mitigation_applied),
    )
    if updates.verified_solution_id is None and milestones.solution_verified:
        # "It worked", unnamed: what was just applied, else what was applied before.
        tried = [s for s in ctx.case.solutions if s.applied_at is not None and not s.verified_at]
        verified = applied or (tried[-1] if tried else _solution(ctx, None, wanted=True))
    else:
        verified = _solution(ctx, updates.verified_solution_id, wanted=False)
    speaker = _speaker(ctx)
    last: AnswerResult | None = None
    if applied is not None and applied.applied_at is None and applied is not verified:
        if speaker is None:
            ctx.propose(
                SolutionAppliedPayload(solution_id=applied.solution_id),
                f"Has “{applied.title}” been applied?",
            )
        else:
            last = record(ctx, SolutionAppliedPayload(solution_id=applied.solution_id), speaker)
    if verified is not None and verified.verified_at is None:
        evidence_id = ctx.evidence_id(updates.verification_evidence_id)
        payload = SolutionVerifiedPayload(solution_id=verified.solution_id, evidence_id=evidence_id)
        # A mitigation's working is recorded; a permanent fix's resolves the case, so it is asked.
        if speaker is None or not verified.is_mitigation:
            ctx.propose(payload, verify_prompt(verified))
        else:
            if verified.applied_at is None:
                record(ctx, SolutionAppliedPayload(solution_id=verified.solution_id), speaker)
            last = record(ctx, payload, speaker) or last
    if last is not None:
        ask_what_follows(ctx, last)


def record(ctx: TurnContext, payload: StepPayload, by: str) -> AnswerResult | None:
    """Record ``by``'s word on a solution step (kept in the log, so the reply says so)."""
    try:
        result = record_step(ctx.case, payload, by=by, now=ctx.now, responders=ctx.turn.responders)
    except DomainError as error:
        ctx.ignore(f"a solution step could not be recorded: {error}")
        return None
    ctx.log.recorded.append(result.confirmation)
    return result


def _speaker(ctx: TurnContext) -> str | None:
    """Who wrote this turn's words, when their word on a step counts (a responder)."""
    if ctx.turn.tool_results or not ctx.turn.messages:
        return None
    author = ctx.turn.messages[-1].author
    return author if is_responder(ctx.case, author, responders=ctx.turn.responders) else None


def verify_prompt(solution: Solution, *, watched: bool = False) -> str:
    """The question whether ``solution`` fixed it."""
    ask = "Once you have watched it: did" if watched else "Did"
    if solution.is_mitigation:
        return f"{ask} “{solution.title}” fix it?"
    return f"{ask} “{solution.title}” fix it? Yes records it as verified and resolves the case."


def resolve_prompt(ctx: TurnContext, payload: StatusChangePayload) -> str:
    """The one question of the wrap-up, short: the summary already shows problem, cause, fix."""
    worked = next(
        (
            s
            for s in reversed(ctx.case.solutions)
            if s.verified_at is not None and s.title == payload.resolution_summary
        ),
        None,
    )
    if worked is not None:
        said = f"“{_cut(worked.title)}” worked."
    elif payload.resolution_summary:
        said = f"Fixed by: {_cut(payload.resolution_summary)}."
    else:
        said = "The fix is verified."
    later = [s for s in ctx.case.solutions if not s.is_mitigation and s.applied_at is None]
    follow = f" “{_cut(later[-1].title)}” stays as the follow-up." if later else ""
    return f"{said} Resolve the case and write the report?{follow}"


def _cut(text: str) -> str:
    text = " ".join(text.split()).rstrip(".")
    return text if len(text) <= FIX_CHARS else text[: FIX_CHARS - 1].rstrip() + "…"


def ask_what_follows(ctx: TurnContext, result: AnswerResult) -> None:
    """A Yes on a solution step asks the next one, so a click never leaves the case waiting:
    applied → did it fix it?; a mitigation that fixed it → resolve and write the report? (Keep
    open leaves it open, for the permanent fix)."""
    confirmation = result.confirmation
    case = ctx.case
    if confirmation.state is not ConfirmationState.ACCEPTED or case.is_terminal:
        return
    payload = confirmation.payload
    if not isinstance(payload, SolutionAppliedPayload | SolutionVerifiedPayload):
        return
    solution = case.find_solution(payload.solution_id)
    if solution is None:
        return
    if isinstance(payload, SolutionAppliedPayload) and solution.verified_at is None:
        verify = SolutionVerifiedPayload(solution_id=solution.solution_id)
        ctx.propose(verify, verify_prompt(solution, watched=True))
    elif isinstance(payload, SolutionVerifiedPayload) and solution.is_mitigation:
        resolve = StatusChangePayload(
            to_status=CaseStatus.RESOLVED,
            reason=f"“{solution.title}” fixed it",
            resolution_summary=solution.title,
        )
        ctx.propose(resolve, resolve_prompt(ctx, resolve))


def _solution(
    ctx: TurnContext, solution_id: str | None, *, wanted: bool, mitigation: bool = False
) -> Solution | None:
    """The named solution, else (when the milestone was reported) the newest fitting one."""
    if solution_id is not None:
        found = ctx.case.find_solution(solution_id)
        if found is None:
            ctx.ignore(f"unknown solution {solution_id}")
        return found
    if not wanted:
        return None
    fitting = [s for s in ctx.case.solutions if s.is_mitigation is mitigation]
    if not fitting:
        ctx.ignore("a solution milestone was reported but no matching solution exists")
        return None
    return fitting[-1]
