"""Button clicks: confirmation answers, "Can't get this", and the case header's buttons."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.inbox.work import ClickWork, ThreadMessage
from bot.services.cases import CaseStore
from bot.services.ports import Responders
from bot.services.proposals import CloseRequests
from bot.services.scoring.service import ScoringService
from bot.services.turns import TurnService
from bot.slack.ids import (
    AnswerValue,
    CaseValue,
    CorrectionMetadata,
    InvalidValueError,
    RequestValue,
    load_value,
)
from bot.thread.presenter import ThreadPresenter, thread_of
from domain.case import Case
from domain.engine.answers import follow_up_note
from domain.engine.engine import TurnEngine, TurnResult
from domain.errors import NotFoundError
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    DeliverablesPayload,
    PendingConfirmation,
    ProblemStatementPayload,
    StatusChangePayload,
)
from domain.lifecycle.decisions import may_answer
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import TERMINAL_STATUSES
from domain.people import mention
from domain.ports import Clock
from domain.records import AuditEntry

logger = logging.getLogger(__name__)

UNAVAILABLE_REASON = "marked as not obtainable from Slack"
GO_ON = {
    (ConfirmationKind.PROBLEM_STATEMENT, ConfirmationState.ACCEPTED): (
        "The problem statement above is confirmed. Go on with the investigation: what do you "
        "need from me first?"
    ),
    (ConfirmationKind.PROBLEM_STATEMENT, ConfirmationState.REJECTED): (
        "The problem statement above is not what is going wrong. Ask me what to correct."
    ),
    (ConfirmationKind.SOLUTION_VERIFIED, ConfirmationState.REJECTED): (
        "That did not fix it: the problem is still there. What next?"
    ),
    (ConfirmationKind.PATH_CHOICE, ConfirmationState.ACCEPTED): (
        "The path is chosen, as answered above. Go on: what is the first step on it?"
    ),
    (ConfirmationKind.REFUTATION, ConfirmationState.ACCEPTED): (
        "Confirmed: the evidence refutes that hypothesis. Go on with the investigation."
    ),
    (ConfirmationKind.REFUTATION, ConfirmationState.REJECTED): (
        "I dispute that evidence: it may be wrong. What should we check again?"
    ),
    (ConfirmationKind.STATUS_CHANGE, ConfirmationState.ACCEPTED): (
        "The formal investigation is confirmed. Go on: what do you need from me first?"
    ),
}
"""What a click says to the model when it runs a turn: the turn moves the case on (the evidence
to collect first, what to correct, what to try after a fix that did not work) instead of waiting
for someone to type."""
CANT_GET = (
    "I can't get “{label}” (I marked it as not obtainable). What is the next-best source: "
    "another way to get it, a proxy (a dashboard, APM, a colleague with access), or how to go "
    "on with less confidence?"
)
"""What "Can't get this" says to the model: the turn offers another source instead of a dead end."""
CORRECTED = (
    "The problem statement above is not what is going wrong. Corrected, in my words: {text}\n"
    "Restate the problem from this and ask me to confirm it."
)
"""What No says to the model when the person wrote the correction in the form it opened."""
CLICK_SUFFIX = "+click"
REPORT_WHEN_FINISHED = "A report is written once the case is resolved or closed."


@dataclass(frozen=True)
class CorrectionForm:
    """What the form No opens shows: the statement to correct, and where the answer goes."""

    statement: str
    origin: CorrectionMetadata


class ClickService:
    """Applies a click once, to the right case, for an allowed person; says so privately if not."""

    def __init__(
        self,
        *,
        engine: TurnEngine,
        cases: CaseStore,
        presenter: ThreadPresenter,
        closing: CloseRequests,
        responders: Responders,
        clock: Clock,
        scoring: ScoringService,
        turns: TurnService | None = None,
    ) -> None:
        self._engine = engine
        self._turns = turns
        self._cases = cases
        self._presenter = presenter
        self._closing = closing
        self._responders = responders
        self._clock = clock
        self._scoring = scoring

    async def whisper(self, work: ClickWork, text: str) -> None:
        """Tell only the person who clicked."""
        await self._presenter.whisper(
            channel=work.channel_id, user=work.user_id, thread_ts=work.thread_ts, text=text
        )

    async def correction_form(self, work: ClickWork) -> CorrectionForm | None:
        """The form No on a problem statement opens (the statement, ready to edit); None when
        the click is to be recorded as it is: the question is no longer open, or the person may
        not answer it (the click then says why, as any other would)."""
        try:
            value = load_value(AnswerValue, work.value)
            case = await self._case(work, value.case_id)
        except (InvalidValueError, NotFoundError):
            return None
        confirmation = case.find_confirmation(value.confirmation_id)
        payload = confirmation.payload if confirmation is not None else None
        if (
            confirmation is None
            or not confirmation.is_pending
            or not isinstance(payload, ProblemStatementPayload)
        ):
            return None
        responders = await self._responders.for_team(case.team_id)
        if not may_answer(case, confirmation, work.user_id, responders=responders):
            return None
        origin = CorrectionMetadata(
            case_id=case.case_id,
            confirmation_id=confirmation.confirmation_id,
            channel_id=work.channel_id,
            thread_ts=work.thread_ts,
            message_ts=work.message_ts,
        )
        return CorrectionForm(statement=payload.statement, origin=origin)

    async def answer(self, *, work: ClickWork) -> None:
        """Yes / No on a question: applied once, for someone allowed; the case moves on."""
        value = load_value(AnswerValue, work.value)
        case = await self._case(work, value.case_id)
        confirmation = case.find_confirmation(value.confirmation_id)
        if confirmation is None:
            raise NotFoundError("no such confirmation")
        if not confirmation.is_pending:
            await self.whisper(work, stale_note(confirmation))
            return
        responders = await self._responders.for_team(case.team_id)

        async def answer(current: Case) -> tuple[Case, TurnResult]:
            result = await self._engine.answer_confirmation(
                case=current,
                confirmation_id=value.confirmation_id,
                by=work.user_id,
                decision=value.decision,
                responders=responders,
            )
            return result.case, result

        def answered(changed: Case) -> list[AuditEntry]:
            return [self._answered_entry(work, changed, value.confirmation_id)]

        saved, result = await self._cases.update(case, answer, audit=answered)
        decided = saved.find_confirmation(value.confirmation_id)
        assert decided is not None
        ts = work.message_ts or await self._presenter.prompt_ts(saved, decided.confirmation_id)
        if ts:
            await self._presenter.mark_decided(saved, ts, decided, result.reply.text)
        # Resolved or closed: the cards still open elsewhere in the thread lose their buttons.
        await self._presenter.redraw_closed(case, saved, shown_at=ts or "")
        assert result.decided is not None  # a click always answers
        after = follow_up_note(result.decided, result.reply.documents)
        await self._follow_up(saved, result, after=after)
        await self._go_on(work, saved, decided)

    async def _go_on(self, work: ClickWork, case: Case, decided: PendingConfirmation) -> None:
        """A click that moves the investigation (the problem statement, the path, a refutation,
        "Not fixed", starting the investigation) runs a turn, as if the person had said so."""
        said = GO_ON.get((decided.kind, decided.state))
        payload = decided.payload
        if isinstance(payload, StatusChangePayload) and payload.to_status in TERMINAL_STATUSES:
            said = None  # resolving or closing: what follows is offered by the answer itself
        if said and work.text and decided.kind is ConfirmationKind.PROBLEM_STATEMENT:
            said = CORRECTED.format(text=work.text)
        if self._turns is None or not said:
            return
        # Named after the question's message, so it sorts right after it in the conversation.
        ts = f"{work.message_ts or case.thread_ts}{CLICK_SUFFIX}"
        clicked = ThreadMessage(ts=ts, author=work.user_id, text=said)
        await self._turns.take_turn(
            thread=thread_of(case),
            messages=[clicked],
            work_key=f"{decided.confirmation_id}{CLICK_SUFFIX}",
            case=case,
            clicked=True,
        )

    async def _follow_up(self, case: Case, result: TurnResult, *, after: str) -> None:
        """New questions, documents or notes the answer produced; then the header.

        The question itself was rewritten to show the decision: the follow-up opens with
        ``after`` instead of repeating it.
        """
        reply = result.reply
        if reply.confirmations or reply.documents or reply.notices or reply.evidence_requests:
            reply = reply.model_copy(update={"text": after})
            await self._presenter.show_reply(case, reply)
        await self._presenter.show_header(case)

    async def cant_get(self, *, work: ClickWork) -> None:
        """ "Can't get this" on an evidence request: blocked, its card redrawn without the
        button, and a turn offers the next-best source."""
        value = load_value(RequestValue, work.value)
        case = await self._case(work, value.case_id)
        request = case.find_request(value.request_id)
        if request is None:
            raise NotFoundError("no such evidence request")
        if not request.is_open:
            await self.whisper(work, f"“{request.label}” is already {request.status.value}.")
            return

        async def block(current: Case) -> tuple[Case, TurnResult]:
            result = await self._engine.report_unavailable(
                case=current,
                request_id=value.request_id,
                by=work.user_id,
                reason=UNAVAILABLE_REASON,
            )
            return result.case, result

        saved, result = await self._cases.update(case, block)
        await self._presenter.redraw_request(saved, value.request_id)  # its button goes
        if self._turns is None:
            await self._presenter.show_reply(saved, result.reply)
            await self._presenter.show_header(saved)
            return
        # A turn offers the next-best source, as if the person had asked for it.
        at = work.message_ts or case.thread_ts
        clicked = ThreadMessage(
            ts=f"{at}{CLICK_SUFFIX}:{request.request_id}",
            author=work.user_id,
            text=CANT_GET.format(label=request.label),
        )
        await self._turns.take_turn(
            thread=thread_of(saved),
            messages=[clicked],
            work_key=f"{request.request_id}{CLICK_SUFFIX}",
            case=saved,
            clicked=True,
        )

    async def close(self, *, work: ClickWork) -> None:
        """Close on the header: asks "close without a fix?" first."""
        value = load_value(CaseValue, work.value)
        case = await self._case(work, value.case_id)
        await self._closing.ask(case=case, by=work.user_id)

    async def report(self, *, work: ClickWork) -> None:
        """Report on the header of a finished case: offers the case report."""
        value = load_value(CaseValue, work.value)
        case = await self._case(work, value.case_id)
        if not case.is_terminal:
            await self.whisper(work, REPORT_WHEN_FINISHED)
            return
        payload = DeliverablesPayload(documents=[DocumentType.INCIDENT_REPORT])

        async def ask_and_answer(current: Case) -> tuple[Case, TurnResult]:
            asked = propose(
                current,
                payload,
                now=self._clock.now(),
                prompt="Write the case report",
                proposed_by=work.user_id,
                answerable_by=[work.user_id],
            )
            result = await self._engine.answer_confirmation(
                case=current,
                confirmation_id=asked.confirmation_id,
                by=work.user_id,
                decision=Decision.YES,
            )
            return result.case, result

        saved, result = await self._cases.update(case, ask_and_answer)
        after = f"{mention(work.user_id)} asked for the case report:"
        await self._follow_up(saved, result, after=after)

    async def score(self, *, work: ClickWork) -> None:
        """Score on the header of a finished case: scores it."""
        value = load_value(CaseValue, work.value)
        case = await self._case(work, value.case_id)
        await self._scoring.answer(
            case=case,
            by=work.user_id,
            source="slack:button",
            channel=work.channel_id,
            thread_ts=work.thread_ts,
        )

    async def _case(self, work: ClickWork, case_id: str) -> Case:
        """The clicked case, only from the clicker's own workspace."""
        return await self._cases.clicked(case_id, work.team_id)

    def _answered_entry(self, work: ClickWork, case: Case, confirmation_id: str) -> AuditEntry:
        """The audit entry of a click's answer, from the case the answer changed (it is saved
        with that case, in one transaction)."""
        answered = case.find_confirmation(confirmation_id)
        assert answered is not None
        return AuditEntry(
            team_id=case.team_id,
            case_id=case.case_id,
            actor=work.user_id,
            action="confirmation.answered",
            detail={
                "confirmation_id": answered.confirmation_id,
                "kind": answered.kind.value,
                "decision": answered.decision.value if answered.decision else None,
                "state": answered.state.value,
            },
            source="slack:button",
            at=self._clock.now(),
        )


def stale_note(confirmation: PendingConfirmation) -> str:
    """Why a click on an answered or replaced question changed nothing."""
    if confirmation.state is ConfirmationState.SUPERSEDED:
        return "That question no longer applies (a newer one replaced it), so nothing changed."
    decision = confirmation.decision.value if confirmation.decision else "?"
    return (
        f"{mention(confirmation.answered_by)} already answered that question ({decision}), "
        "so nothing changed."
    )
