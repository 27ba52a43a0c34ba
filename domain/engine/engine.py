"""The turn engine: (case, new inputs) → (new case, reply). The input case is never mutated.

A turn builds the prompt for the case status, calls the model for a structured reply and lets the
system apply it. A model that times out, is rate-limited or answers garbage twice leaves the case
unchanged; a model that is absent or unreachable gives a deterministic no-LLM turn instead.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from domain.budget import LLMBudgetExceededError, SpendLedger
from domain.case import Case
from domain.engine.answers import decision_note, typed_decision
from domain.engine.apply.claims import correct_claims, explained
from domain.engine.apply.reply import apply_reply
from domain.engine.apply.tool_claims import correct_tool_claims
from domain.engine.apply.wrapup import ask_what_follows
from domain.engine.context import TurnContext
from domain.engine.deliverables import (
    generate_deliverables,
    offer_deliverables,
    request_deliverables,
)
from domain.engine.inputs import TurnInput
from domain.engine.no_llm import no_llm_text, no_llm_turn
from domain.engine.present import ReplyParts, build_reply, seen
from domain.engine.prompting.briefing import brief_evidence, kept_with_findings
from domain.engine.prompting.prompts import (
    PromptContext,
    RenderedPrompt,
    prompt_kind_for,
    render_prompt,
)
from domain.engine.prompting.screenshots import image_excerpts
from domain.engine.results import TurnResult, TurnWork, fault_sentence, with_participants
from domain.engine.retrieval import RetrievalSettings, cited, retrieve, search_actions, turn_query
from domain.engine.schemas import (
    ConsultingResponse,
    EngineReply,
    InvestigationResponse,
    TerminalResponse,
)
from domain.engine.second_look import second_look
from domain.engine.view import DebugInfo, DocumentView, ReplyKind
from domain.errors import NotFoundError
from domain.investigation.evidence_requests import block_request
from domain.knowledge import KnowledgePort, still_indexing_note
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    SolutionAppliedPayload,
    StatusChangePayload,
)
from domain.lifecycle.decisions import AnswerOutcome, AnswerResult, answer
from domain.lifecycle.degraded import update_degraded_mode
from domain.lifecycle.responders import ResponderSet
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.steps import record_step, undo
from domain.lifecycle.turn_tracking import record_turn, snapshot
from domain.llm import (
    LLMPort,
    LLMRateLimitedError,
    LLMRefusedError,
    LLMReplyInvalidError,
    LLMTimeoutError,
    LLMUnavailableError,
    ModelTier,
)
from domain.memory.note import seen_before_notes
from domain.people import mention
from domain.ports import Clock

__all__ = ["SUMMARY_CHARS", "TurnEngine", "TurnResult"]

logger = logging.getLogger(__name__)

SUMMARY_CHARS = 200


class TurnEngine:
    """The investigation use case; ports come in through the constructor."""

    def __init__(
        self,
        *,
        llm: LLMPort,
        knowledge: KnowledgePort,
        clock: Clock,
        settings: RetrievalSettings | None = None,
        spending: SpendLedger | None = None,
    ) -> None:
        self._llm = llm
        self._knowledge = knowledge
        self._clock = clock
        self._spending = spending
        """What the model cost a case, for its report (no section without it)."""
        self._settings = settings or RetrievalSettings()
        self._retrieving = asyncio.Semaphore(self._settings.turns_at_once)

    async def take_turn(
        self, *, case: Case, turn: TurnInput, answered: EngineReply | None = None
    ) -> TurnResult:
        """Process what the people did since the last turn.

        ``answered`` is the model's reply to an earlier try of this same turn (the case changed
        before it was saved): it is applied to this case instead of asking the model again.
        """
        work = await self._prepare(case, turn)
        if not self._llm.enabled:
            return self._no_llm(work, unreachable=False)
        ctx = work.ctx
        notes = [decision_note(work.decided)] if work.decided else []
        notes += seen_before_notes(ctx.case)  # a lead, not a conclusion
        if ctx.log.still_indexing:  # the excerpts come from their full text only
            notes.append(still_indexing_note(ctx.log.still_indexing))
        prompt = render_prompt(
            prompt_kind_for(ctx.case),
            PromptContext(
                case=ctx.case, turn=turn, excerpts=work.excerpts, notes=notes, brief=work.brief
            ),
            clock=self._clock,
        )
        debug = DebugInfo(template=prompt.template, template_hash=prompt.template_hash)
        if answered is not None:
            return self._apply(work, answered, debug)
        try:
            reply = await self._ask(prompt, case.case_id)
        except (
            LLMTimeoutError,
            LLMRateLimitedError,
            LLMRefusedError,
            LLMReplyInvalidError,
        ) as error:
            return self._fault(work, error, debug)
        except LLMBudgetExceededError as error:
            return self._no_llm(work, unreachable=True, reason=error.breach.sentence())
        except LLMUnavailableError:
            return self._no_llm(work, unreachable=True)
        checked = await second_look(self._llm, work.ctx, reply)
        return self._apply(
            work, checked.reply, debug.model_copy(update={"second_look": checked.note})
        )

    async def answer_confirmation(
        self,
        *,
        case: Case,
        confirmation_id: str,
        by: str,
        decision: Decision,
        responders: ResponderSet | None = None,
    ) -> TurnResult:
        """A button click: apply the decision once (domain errors go to the edge)."""
        ctx = TurnContext(case=case.model_copy(deep=True), now=self._clock.now())
        before = seen(ctx.case)
        result = answer(
            ctx.case, confirmation_id, by=by, decision=decision, now=ctx.now, responders=responders
        )
        documents = await self._after_answer(ctx, result)
        parts = ReplyParts(
            kind=ReplyKind.DECISION,
            text=decision_note(result),
            log=ctx.log,
            documents=documents,
        )
        return TurnResult(ctx.case, build_reply(ctx.case, before, parts), decided=result)

    async def record_step(
        self, *, case: Case, solution_id: str, by: str, responders: ResponderSet | None = None
    ) -> TurnResult:
        """ "I've applied it" on a mitigation's card: the person's answer, recorded in their
        name; then what follows (did it fix it?) is asked."""
        ctx = TurnContext(case=case.model_copy(deep=True), now=self._clock.now())
        before = seen(ctx.case)
        payload = SolutionAppliedPayload(solution_id=solution_id)
        result = record_step(ctx.case, payload, by=by, now=ctx.now, responders=responders)
        ctx.log.recorded.append(result.confirmation)
        ask_what_follows(ctx, result)
        parts = ReplyParts(kind=ReplyKind.DECISION, text=decision_note(result), log=ctx.log)
        return TurnResult(ctx.case, build_reply(ctx.case, before, parts), decided=result)

    async def undo_step(
        self, *, case: Case, confirmation_id: str, by: str, responders: ResponderSet | None = None
    ) -> TurnResult:
        """Undo on a recorded step: reverted, and the questions that followed it withdrawn
        (the reply names them, as superseded)."""
        ctx = TurnContext(case=case.model_copy(deep=True), now=self._clock.now())
        before = seen(ctx.case)
        undo(ctx.case, confirmation_id, by=by, now=ctx.now, responders=responders)
        parts = ReplyParts(kind=ReplyKind.DECISION, text="", log=ctx.log)
        return TurnResult(ctx.case, build_reply(ctx.case, before, parts))

    async def report_unavailable(
        self, *, case: Case, request_id: str, by: str, reason: str
    ) -> TurnResult:
        """The "can't get this" button: block the request; enough blocked data means escalation."""
        ctx = TurnContext(case=case.model_copy(deep=True), now=self._clock.now())
        before = seen(ctx.case)
        request = ctx.case.find_request(request_id)
        if request is None:
            raise NotFoundError(f"no evidence request {request_id} in this case")
        block_request(request, reason=reason, turn=ctx.case.current_turn)
        update_degraded_mode(ctx.case, now=ctx.now)
        ctx.case.add_participant(by)
        lines = [f"Noted: {mention(by)} can't get “{request.label}”."]
        lines.extend(f"Another way: {alt}" for alt in request.guidance.alternatives)
        parts = ReplyParts(kind=ReplyKind.DECISION, text="\n".join(lines), log=ctx.log)
        return TurnResult(ctx.case, build_reply(ctx.case, before, parts))

    # ------------------------------------------------------------ steps of a turn

    def _register(self, ctx: TurnContext) -> None:
        case = ctx.case
        for message in ctx.turn.messages:
            case.add_participant(message.author)
        known = {f.file_id for f in case.uploaded_files}
        for upload in ctx.turn.files:
            case.add_participant(upload.file.uploaded_by)
            if upload.file.file_id not in known:
                case.uploaded_files.append(kept_with_findings(upload))

    async def _after_answer(
        self, ctx: TurnContext, result: AnswerResult | None
    ) -> list[DocumentView]:
        """Resolution offers deliverables; accepted deliverables are written; a solution step
        asks the next."""
        if result is None or result.outcome is not AnswerOutcome.APPLIED:
            return []
        confirmation = result.confirmation
        if any(t.to_status is CaseStatus.RESOLVED for t in result.transitions):
            if confirmation.kind is ConfirmationKind.STATUS_CHANGE:
                # "Resolve and write the report": one click resolves and writes.
                await request_deliverables(ctx, self._knowledge)
            else:
                await offer_deliverables(ctx, self._knowledge)
        ask_what_follows(ctx, result)
        accepted = confirmation.state is ConfirmationState.ACCEPTED
        asked = confirmation.kind in (ConfirmationKind.DELIVERABLES, ConfirmationKind.STATUS_CHANGE)
        if asked and accepted and ctx.case.documentation.artifacts.requested:
            spend = await self._spending.for_case(ctx.case.case_id) if self._spending else None
            return await generate_deliverables(
                ctx, llm=self._llm, knowledge=self._knowledge, clock=self._clock, spend=spend
            )
        return []

    async def _prepare(self, case: Case, turn: TurnInput) -> TurnWork:
        """Copy the case, note who took part, apply a typed answer, retrieve excerpts."""
        ctx = TurnContext(case=case.model_copy(deep=True), now=self._clock.now(), turn=turn)
        work = TurnWork(original=case, ctx=ctx, before=seen(ctx.case))
        self._register(ctx)
        work.decided = typed_decision(ctx)
        work.documents = await self._after_answer(ctx, work.decided)
        work.query = turn_query(ctx, broad=self._llm.enabled)
        async with self._retrieving:
            work.excerpts = await retrieve(ctx, self._knowledge, self._settings, work.query)
        work.brief = brief_evidence(
            ctx.case, turn, work.excerpts, budget_tokens=self._settings.evidence_tokens
        )
        return work

    async def _ask(self, prompt: RenderedPrompt, case_id: str) -> EngineReply:
        assert prompt.schema is not None  # turn templates always have a reply schema
        reply = await self._llm.structured(
            tier=ModelTier.MAIN,
            messages=prompt.messages,
            schema=prompt.schema,
            template=prompt.template,
            template_hash=prompt.template_hash,
            case_id=case_id,
        )
        assert isinstance(reply, ConsultingResponse | InvestigationResponse | TerminalResponse)
        return reply

    def _apply(self, work: TurnWork, reply: EngineReply, debug: DebugInfo) -> TurnResult:
        ctx = work.ctx
        before = snapshot(ctx.case)
        apply_reply(ctx, reply)
        # An answer may name what a person would run to mitigate: a command that changes state
        # is shown in code with what it changes, as a solution's is; evidence stays read-only.
        text = _held_to_the_case(ctx, ctx.log.safety.text(reply.agent_response, actions=True))
        outcome = reply.state_updates.outcome if isinstance(reply, InvestigationResponse) else None
        sources = [*work.brief.quoted, *image_excerpts(ctx.turn.files)]
        citations = cited(ctx, reply.citations, sources)
        record_turn(
            ctx.case,
            before,
            now=ctx.now,
            outcome=outcome,
            user_summary=ctx.turn.text[:SUMMARY_CHARS] or None,
            agent_summary=text[:SUMMARY_CHARS],
            actions=search_actions(work.query, work.excerpts, citations),
        )
        result = work.result(
            ReplyKind.ANSWER,
            text,
            citations=citations,
            debug=debug.model_copy(update={"llm_outcome": "ok"}),
        )
        return replace(result, answer=reply)

    def _no_llm(
        self, work: TurnWork, *, unreachable: bool, reason: str | None = None
    ) -> TurnResult:
        ctx = work.ctx
        before = snapshot(ctx.case)
        consumed = {ctx.turn.messages[-1].ts} if work.decided else set()
        first = ctx.case.current_turn == 0
        answer = no_llm_turn(ctx, work.excerpts, consumed=consumed)
        # What works without a model: said when the model is down, in a case's first turn, and
        # when there is nothing else to say; not under every message.
        how_to = unreachable or first or not (answer.lines or answer.asked or work.decided)
        lines = [reason or no_llm_text(unreachable=unreachable, how_to=how_to)]
        if work.decided:
            lines.append(decision_note(work.decided))
        lines.extend(answer.lines)
        record_turn(
            ctx.case,
            before,
            now=ctx.now,
            user_summary=ctx.turn.text[:SUMMARY_CHARS] or None,
            actions=search_actions(work.query, work.excerpts, []),
        )
        return work.result(
            ReplyKind.NO_LLM,
            "\n".join(lines),
            citations=[c.citation for c in answer.quoted],
            debug=DebugInfo(llm_outcome="unavailable" if unreachable else "disabled"),
        )

    def _fault(self, work: TurnWork, error: Exception, debug: DebugInfo) -> TurnResult:
        """One plain sentence; the case stays as it was (a person's typed answer still counts).

        Who wrote still takes part in the case: writing in the thread is how people join it.
        """
        logger.warning(
            "turn failed at the model",
            extra={"case_id": work.original.case_id, "error": type(error).__name__},
        )
        sentence = fault_sentence(error)
        debug = debug.model_copy(update={"llm_outcome": type(error).__name__})
        if work.decided:
            text = f"{decision_note(work.decided)}\n{sentence}"
            return work.result(ReplyKind.FAULT, text, debug=debug)
        parts = ReplyParts(kind=ReplyKind.FAULT, text=sentence, debug=debug)
        case = with_participants(work.original, work.ctx.case.participants)
        return TurnResult(case, build_reply(case, work.before, parts))


def _held_to_the_case(ctx: TurnContext, text: str) -> str:
    """``text`` with each claim of a status change the case did not make corrected in place."""
    asked = [
        c.payload.to_status
        for c in ctx.case.pending_confirmations()
        if isinstance(c.payload, StatusChangePayload)
    ]
    refused = ctx.log.refused
    corrected = correct_claims(text, status=ctx.case.status, asked=asked, refused=refused)
    if corrected != text:
        logger.info("a claim the case contradicts was corrected", extra={"case": ctx.case.case_id})
        for note in explained(corrected, refused):
            ctx.log.notes.remove(note)
    if ctx.turn.tools:
        open_runs = [run for run in ctx.case.tool_runs if run.is_open]
        offered = [name for spec in ctx.turn.tools for name in (spec.server, spec.tool)]
        read = bool(ctx.turn.tool_results)
        corrected = correct_tool_claims(corrected, read_results=read, runs=open_runs, names=offered)
    return corrected
